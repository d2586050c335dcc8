package grade_test

import (
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/grade"
)

func hashCase() assay.Case {
	yes := true
	return assay.Case{ID: "q1", Query: "How are tokens hashed?", Tags: map[string]string{"lang": "en"}, Source: "kb.yaml:3",
		Judgments: map[string]int{"a.md": 2, "b.md": 0, "c.md": 1, "d.md": 3},
		Expect:    assay.Expect{AnswerIncludes: []string{"sha-256"}, Refusal: new(bool), Retrieves: []string{"a.md"}, CitesOnlySurfaced: yes}}
}

// TestCaseHashIsPinned pins the hash of one case: if it changes, the
// canonical form changed, and every stored run's cases would look changed
// to compare. Change it only with grade.Version.
func TestCaseHashIsPinned(t *testing.T) {
	t.Parallel()
	o, _ := grade.NewOptions(&assay.Suite{})
	const want = "sha256:3ad698f152d5bbd20930e6b0f72b4375bc803cb22be04f15bbe2f1de80d2de01"
	if got := grade.CaseHash(hashCase(), o); got != want || grade.Version != 1 {
		t.Errorf("CaseHash = %s (grade.Version %d), want %s (version 1)", got, grade.Version, want)
	}
}

func TestCaseHash(t *testing.T) {
	t.Parallel()
	o, _ := grade.NewOptions(&assay.Suite{})
	base := grade.CaseHash(hashCase(), o)
	same := []struct {
		name string
		edit func(c *assay.Case, o *grade.Options)
	}{
		{"judgments built in another order", func(c *assay.Case, _ *grade.Options) {
			j := map[string]int{}
			for _, id := range []string{"d.md", "c.md", "b.md", "a.md"} {
				j[id] = c.Judgments[id]
			}
			c.Judgments = j
		}},
		{"id, tags and source", func(c *assay.Case, _ *grade.Options) {
			c.ID, c.Tags, c.Source, c.Guards = "other", map[string]string{"lang": "en", "category": "x"}, "x.yaml:9", "a regression"
		}},
		{"k written as the suite default", func(c *assay.Case, _ *grade.Options) { c.K = assay.DefaultK }},
		{"case sensitivity written as the suite default", func(c *assay.Case, _ *grade.Options) { c.Expect.CaseSensitive = new(bool) }},
		{"the suite's metrics", func(_ *assay.Case, o *grade.Options) { o.Metrics = o.Metrics[:1] }},
	}
	for _, tc := range same {
		c, oo := hashCase(), o
		tc.edit(&c, &oo)
		if got := grade.CaseHash(c, oo); got != base {
			t.Errorf("%s changed the hash", tc.name)
		}
	}
	changed := []struct {
		name string
		edit func(c *assay.Case, o *grade.Options)
	}{
		{"query", func(c *assay.Case, _ *grade.Options) { c.Query += "?" }},
		{"a grade", func(c *assay.Case, _ *grade.Options) {
			c.Judgments = map[string]int{"a.md": 1, "b.md": 0, "c.md": 1, "d.md": 3}
		}},
		{"a judgment added", func(c *assay.Case, _ *grade.Options) {
			c.Judgments = map[string]int{"a.md": 2, "b.md": 0, "c.md": 1, "d.md": 3, "e.md": 0}
		}},
		{"an expectation", func(c *assay.Case, _ *grade.Options) { c.Expect.AnswerExcludes = []string{"md5"} }},
		{"k", func(c *assay.Case, _ *grade.Options) { c.K = 5 }},
		{"the suite default k", func(_ *assay.Case, o *grade.Options) { o.K = 5 }},
		{"the suite default case sensitivity", func(_ *assay.Case, o *grade.Options) { o.CaseSensitive = true }},
		{"the refusal markers", func(_ *assay.Case, o *grade.Options) { o.RefusalMarkers = []string{"no idea"} }},
		{"relevant", func(c *assay.Case, _ *grade.Options) { c.Relevant = []string{"a.md"} }},
	}
	for _, tc := range changed {
		c, oo := hashCase(), o
		tc.edit(&c, &oo)
		if got := grade.CaseHash(c, oo); got == base {
			t.Errorf("changing the %s kept the hash", tc.name)
		}
	}
	t.Run("every result of the case records it", func(t *testing.T) {
		r := grade.Case(hashCase(), assay.Observation{Trial: 2, Answer: "x"}, o)
		if r.Hash != base {
			t.Errorf("result hash %q, want %q", r.Hash, base)
		}
	})
}

func TestCaseRecordsJudgedCoverage(t *testing.T) {
	t.Parallel()
	o, _ := grade.NewOptions(&assay.Suite{Metrics: []string{"precision@2", "precision@5", "mrr"}, Defaults: assay.Defaults{K: 4}})
	c := assay.Case{ID: "q", Query: "x", Judgments: map[string]int{"a": 1, "c": 0}}
	obs := assay.Observation{Retrieved: []assay.Hit{{ID: "c"}, {ID: "a"}, {ID: "u1"}, {ID: "u2"}}}
	r := grade.Case(c, obs, o)
	if want := map[string]float64{"unj@2": 0, "unj@5": 2.0 / 5, "unj@4": 2.0 / 4}; !equalMaps(r.Unjudged, want) {
		t.Errorf("unjudged %v, want %v", r.Unjudged, want)
	}
	// precision@2 reads no unjudged document and mrr is 1/2 either way:
	// only precision@5 moves.
	if want := map[string]float64{"precision@5": 3.0 / 5}; !equalMaps(r.Upper, want) {
		t.Errorf("upper %v, want %v", r.Upper, want)
	}
	t.Run("a case without judgments records none", func(t *testing.T) {
		c := assay.Case{ID: "q", Query: "x", Expect: assay.Expect{AnswerIncludes: []string{"x"}}}
		if r := grade.Case(c, obs, o); r.Unjudged != nil || r.Upper != nil {
			t.Errorf("unjudged %v, upper %v; want nil", r.Unjudged, r.Upper)
		}
	})
}

func equalMaps(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
