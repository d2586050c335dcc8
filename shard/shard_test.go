package shard

import (
	"fmt"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Spec
		err  string
	}{
		{in: "0/4", want: Spec{0, 4}},
		{in: "3/4", want: Spec{3, 4}},
		{in: "0/1", want: Spec{0, 1}},
		{in: "4/4", err: "I is 0-based: 0 to 3 for 4 shards"},
		{in: "-1/4", err: "I is 0-based"},
		{in: "1/0", err: "N must be 1 to 10000"},
		{in: "1/10001", err: "N must be 1 to 10000"},
		{in: "1", err: "want I/N"},
		{in: "a/b", err: "whole numbers"},
		{in: "", err: "want I/N"},
	} {
		got, err := Parse(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) = %v, %v; want error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// The slice of a case is part of the stored record's meaning: shards made
// by two versions of assay must agree. These values must never change.
func TestOfIsStable(t *testing.T) {
	for _, tc := range []struct {
		id    string
		count int
		want  int
	}{
		{"q001", 4, pinned["q001/4"]},
		{"q002", 4, pinned["q002/4"]},
		{"q003", 3, pinned["q003/3"]},
		{"case-with-ünïcode", 7, pinned["case-with-ünïcode/7"]},
	} {
		if got := Of(tc.id, tc.count); got != tc.want {
			t.Errorf("Of(%q, %d) = %d, want %d (the slice of a case must never change)", tc.id, tc.count, got, tc.want)
		}
	}
}

// Computed independently: python3 -c "import hashlib; print(int.from_bytes(hashlib.sha256(ID.encode()).digest()[:8], 'big') % N)"
var pinned = map[string]int{"q001/4": 3, "q002/4": 2, "q003/3": 1, "case-with-ünïcode/7": 4}

// Every case is in exactly one slice, and the slices are about even.
func TestSlicesPartition(t *testing.T) {
	const cases, n = 10000, 4
	sizes := make([]int, n)
	for i := range cases {
		id := fmt.Sprintf("q%05d", i)
		in := 0
		for s := range n {
			if (Spec{s, n}).Contains(id) {
				in++
				sizes[s]++
			}
		}
		if in != 1 {
			t.Fatalf("case %s is in %d slices of %d", id, in, n)
		}
	}
	for s, size := range sizes {
		if size < cases/n*9/10 || size > cases/n*11/10 {
			t.Errorf("slice %d/%d holds %d of %d cases (want about %d)", s, n, size, cases, cases/n)
		}
	}
	if !(Spec{0, 1}).Contains("anything") {
		t.Error("0/1 must hold every case")
	}
}

func TestDefaultGroup(t *testing.T) {
	fp := "sha256:0123456789abcdef0123"
	git := &assay.GitInfo{Commit: "fedcba9876543210fedcba"}
	env := map[string]string{"CI_PIPELINE_ID": "77", "GITHUB_RUN_ID": "12345"}
	getenv := func(k string) string { return env[k] }
	if got, want := DefaultGroup(fp, git, getenv), "s0123456789ab-cfedcba987654-12345"; got != want {
		t.Errorf("DefaultGroup = %q, want %q", got, want)
	}
	if got, want := DefaultGroup(fp, nil, nil), "s0123456789ab"; got != want {
		t.Errorf("DefaultGroup with no git and no CI = %q, want %q", got, want)
	}
	env = map[string]string{"BUILD_TAG": "jenkins-my job-4"}
	got := DefaultGroup(fp, git, getenv)
	if got != "s0123456789ab-cfedcba987654-jenkins-my_job-4" {
		t.Errorf("DefaultGroup with Jenkins' BUILD_TAG = %q", got)
	}
	if err := CheckGroup(got); err != nil {
		t.Errorf("a default group must be a valid group: %v", err)
	}
}

func TestCheckGroup(t *testing.T) {
	for _, ok := range []string{"nightly-2026-12-01", "a", "A.b_c-9", strings.Repeat("x", 128)} {
		if err := CheckGroup(ok); err != nil {
			t.Errorf("CheckGroup(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "a b", "a/b", "../x", strings.Repeat("x", 129), "ü"} {
		if err := CheckGroup(bad); err == nil {
			t.Errorf("CheckGroup(%q) accepted it", bad)
		}
	}
}
