package pool

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/suite"
)

func result(id string, docs ...string) assay.CaseResult {
	obs := &assay.Observation{Case: id}
	for _, d := range docs {
		obs.Retrieved = append(obs.Retrieved, assay.Hit{ID: d, Text: "t:" + d})
	}
	return assay.CaseResult{ID: id, Observation: obs}
}

func testSuite() *assay.Suite {
	return &assay.Suite{
		Corpus: []assay.Document{{ID: "d1", Title: "One", Text: "one"}, {ID: "d2", Title: "Two", Text: "two"}, {ID: "d3", Title: "Three", Text: "three"}},
		Cases: []assay.Case{
			{ID: "q1", Query: "first", Judgments: map[string]int{"d1": 2}},
			{ID: "q2", Query: "second"},
		},
	}
}

func TestEntriesAreTheUnjudgedUnionOfTopK(t *testing.T) {
	s := testSuite()
	p := New(s, 2)
	p.Add(0, result("q1", "d1", "d2", "d3")) // top 2: d1 d2
	p.Add(1, result("q1", "x9", "d1", "d2")) // top 2: x9 d1
	p.Add(1, result("q2", "d3", "d3", "d2")) // a repeat keeps its first place: d3 d2
	p.Add(0, result("q7", "d1"))             // not in the suite
	p.Add(0, assay.CaseResult{ID: "q2", Error: &assay.Error{Class: assay.ErrTimeout}})
	got, st := p.Entries(s)
	want := []string{"q1/x9@1x1", "q1/d2@2x1", "q2/d3@1x1", "q2/d2@2x1"}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %v", got, want)
	}
	for i, e := range got {
		if s := fmt.Sprintf("%s/%s@%dx%d", e.Case, e.Doc, e.Rank, e.Runs); s != want[i] {
			t.Errorf("entry %d = %s, want %s", i, s, want[i])
		}
		if e.Grade != nil {
			t.Errorf("entry %d has a grade", i)
		}
	}
	if got[1].Text != "two" || got[1].Title != "Two" || got[0].Text != "t:x9" || got[0].Query != "first" {
		t.Errorf("text: corpus first, else the target's: %+v", got[:2])
	}
	if st != (Stats{Pooled: 5, Judged: 1, Cases: 2, Unknown: 1}) {
		t.Errorf("stats %+v", st)
	}
}

func label(c, d string, g int, who string) suite.Label {
	return suite.Label{Case: c, Doc: d, Grade: g, Labeller: who, Line: 1}
}

func TestMergeConflictRules(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC) }
	existing := []suite.Label{label("q1", "d2", 1, "ana")}
	incoming := []suite.Label{label("q1", "d2", 0, "bo"), label("q2", "Three", 2, "")}
	for _, tc := range []struct {
		rule  OnConflict
		grade int // of q1/d2 after
		err   bool
	}{
		{ConflictError, 0, true},
		{"", 0, true},
		{ConflictKeep, 1, false},
		{ConflictReplace, 0, false},
		{ConflictMax, 1, false},
		{ConflictMin, 0, false},
	} {
		s := testSuite()
		res, err := Merge(s, "j.jsonl", existing, "l.jsonl", incoming, MergeOptions{OnConflict: tc.rule, Labeller: "cy", Now: now})
		if tc.err {
			var ce *ConflictsError
			if !errors.As(err, &ce) || len(ce.Conflicts) != 1 || ce.Conflicts[0].Have != 1 || ce.Conflicts[0].Want != 0 {
				t.Errorf("%q: error %v, want one conflict 1 vs 0", tc.rule, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.rule, err)
		}
		if len(res.Labels) != 2 || res.Labels[0].Grade != tc.grade {
			t.Errorf("%q: labels %+v, want q1/d2 graded %d", tc.rule, res.Labels, tc.grade)
		}
		if l := res.Labels[1]; l.Doc != "d3" || l.Labeller != "cy" || l.Time != "2026-12-07T12:00:00Z" {
			t.Errorf("%q: new label %+v: want d3 (resolved from its title), labeller cy, the import's time", tc.rule, l)
		}
		if len(res.Resolved) != 1 || res.Resolved[0].Name != "Three" {
			t.Errorf("%q: resolved %+v", tc.rule, res.Resolved)
		}
	}
}

func TestMergeRefusals(t *testing.T) {
	for _, tc := range []struct {
		l    suite.Label
		o    MergeOptions
		want string
	}{
		{label("q9", "d1", 1, "a"), MergeOptions{}, `l.jsonl:1: case "q9": no such case`},
		{label("q1", "d9", 1, "a"), MergeOptions{}, `l.jsonl:1: case "q1": no document "d9" in the corpus`},
		{label("q1", "d2", 1, ""), MergeOptions{}, `l.jsonl:1: the label names no labeller`},
		// the suite's own judgment (d1: 2) can be kept, not replaced
		{label("q1", "d1", 0, "a"), MergeOptions{OnConflict: ConflictReplace}, `1 conflicting grade: case "q1" document "d1" is 2 (the suite's judgments)`},
		{label("q1", "d1", 3, "a"), MergeOptions{OnConflict: ConflictMax}, `1 conflicting grade`},
	} {
		_, err := Merge(testSuite(), "j.jsonl", nil, "l.jsonl", []suite.Label{tc.l}, tc.o)
		if err == nil || len(err.Error()) < len(tc.want) || err.Error()[:len(tc.want)] != tc.want {
			t.Errorf("%+v: error %v, want prefix %q", tc.l, err, tc.want)
		}
	}
	// kept: no error, nothing written
	res, err := Merge(testSuite(), "j.jsonl", nil, "l.jsonl", []suite.Label{label("q1", "d1", 0, "a")}, MergeOptions{OnConflict: ConflictMax})
	if err != nil || res.Kept != 1 || len(res.Labels) != 0 {
		t.Errorf("max keeps the suite's higher grade: %+v, %v", res, err)
	}
}

func TestOnConflictText(t *testing.T) {
	var o OnConflict
	if err := o.UnmarshalText([]byte("MAX")); err != nil || o != ConflictMax {
		t.Errorf("MAX: %q, %v", o, err)
	}
	if err := o.UnmarshalText([]byte("newest")); err == nil {
		t.Error("newest accepted")
	}
}
