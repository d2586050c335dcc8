package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// runIn runs the CLI in-process and returns its exit code and outputs.
func runIn(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }})
	return code, stdout.String(), stderr.String()
}

// A run streams its results through a spill file unless something needs
// them all in memory (here a gate on flaky_cases). Both ways must give the
// same summary, segments, cases, failing-case list and report files, and
// the spill file must be gone afterwards.
func TestStreamedRunEqualsARunThatKeepsItsCases(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	suitePath := filepath.Join("..", "..", "examples", "quickstart", "suite.yaml")
	trace := filepath.Join(dir, "t.jsonl")
	// A recorded trace makes both runs see the same latencies.
	if code, _, stderr := runIn(t, "run", suitePath, "--no-store", "--record", trace); code != 0 {
		t.Fatalf("record: exit %d: %s", code, stderr)
	}
	type out struct {
		doc          map[string]any
		text, md, ju string
	}
	runWith := func(name string, extra ...string) out {
		js, md, ju := filepath.Join(dir, name+".json"), filepath.Join(dir, name+".md"), filepath.Join(dir, name+".xml")
		args := append([]string{"run", suitePath, "--no-store", "--target", "replay:" + trace, "--json", js, "--markdown", md, "--junit", ju, "--max-failures", "0"}, extra...)
		code, stdout, stderr := runIn(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		var o out
		b, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &o.doc); err != nil {
			t.Fatal(err)
		}
		mdb, _ := os.ReadFile(md)
		jub, _ := os.ReadFile(ju)
		o.text, o.md, o.ju = stdout, string(mdb), string(jub)
		return o
	}
	streamed := runWith("streamed")
	kept := runWith("kept", "--gate", "flaky_cases <= 0")

	for _, k := range []string{"summary", "segments", "cases", "trials"} {
		if !reflect.DeepEqual(streamed.doc[k], kept.doc[k]) {
			t.Errorf("%s differs:\nstreamed %v\nkept     %v", k, streamed.doc[k], kept.doc[k])
		}
	}
	if cases, _ := streamed.doc["cases"].([]any); len(cases) != 24 {
		t.Errorf("the streamed run's JSON has %d cases, want 24", len(cases))
	}
	// The text differs only in the extra gate; the failing cases (with
	// their queries) are the same.
	failing := regexp.MustCompile(`(?s)failing cases.*`)
	if s, k := failing.FindString(streamed.text), failing.FindString(kept.text); s == "" || s != k {
		t.Errorf("failing cases differ:\nstreamed %q\nkept     %q", s, k)
	}
	if !regexp.MustCompile(`(?m)^  attachment-size  ".+"$`).MatchString(streamed.text) {
		t.Errorf("the failing case is listed without its query:\n%s", streamed.text)
	}
	// ... and the markdown beyond the run's id, time and the extra gate
	runLine := regexp.MustCompile("(?m)^run `.*\n")
	gateLine := regexp.MustCompile(`(?m)^.*flaky_cases.*\n`)
	if s, k := runLine.ReplaceAllString(streamed.md, ""), runLine.ReplaceAllString(gateLine.ReplaceAllString(kept.md, ""), ""); s != k {
		t.Errorf("markdown differs beyond the gate:\nstreamed %s\nkept     %s", s, k)
	}
	if !strings.Contains(streamed.ju, "<testcase") || strings.Count(streamed.ju, "<testcase") != strings.Count(kept.ju, "<testcase")-1 {
		t.Errorf("JUnit test cases: streamed %d, kept %d (one more: the gate)", strings.Count(streamed.ju, "<testcase"), strings.Count(kept.ju, "<testcase"))
	}
	left, _ := os.ReadDir(tmp)
	for _, e := range left {
		t.Errorf("left behind in TMPDIR: %s", e.Name())
	}
}
