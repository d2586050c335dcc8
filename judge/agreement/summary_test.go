package agreement

import (
	"slices"
	"testing"

	"github.com/assay-eval/assay"
)

// TestSummaryCarriesRhoAndDisagreements: the run's record of the
// agreement (what the UI's table and the reports read) keeps Spearman's
// rho with its interval and the ids of the most disagreeing cases, in the
// report's order, and leaves both out of a criterion that has none.
func TestSummaryCarriesRhoAndDisagreements(t *testing.T) {
	lo, hi := 0.5, 0.9
	r := &Report{Labels: "l.jsonl", Criteria: []Criterion{
		{Name: "groundedness", N: 3, Spearman: &Estimate{Value: 0.7, Lo: &lo, Hi: &hi},
			Disagreements: []Disagreement{{Case: "c2", Judge: 1, Human: 0}, {Case: "c1", Judge: 0.5, Human: 0.75}}},
		{Name: "relevance", N: 3, Disagreements: []Disagreement{}},
	}}
	s := r.Summary([]assay.JudgeCriterion{{Name: "groundedness", Max: 1}, {Name: "relevance", Max: 1}}, nil)
	g, rel := s.Criteria[0], s.Criteria[1]
	if g.Spearman == nil || g.Spearman.Value != 0.7 || g.Spearman.Lo == nil || *g.Spearman.Lo != lo || g.Spearman.Hi == nil || *g.Spearman.Hi != hi {
		t.Errorf("groundedness: spearman %+v, want 0.7 [0.5, 0.9]", g.Spearman)
	}
	if !slices.Equal(g.Disagreements, []string{"c2", "c1"}) {
		t.Errorf("groundedness: disagreements %q, want [c2 c1]", g.Disagreements)
	}
	if rel.Spearman != nil || rel.Disagreements != nil {
		t.Errorf("relevance: spearman %+v, disagreements %q; want neither", rel.Spearman, rel.Disagreements)
	}
}
