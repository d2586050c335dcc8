package runner

import (
	"slices"
	"testing"

	"github.com/assay-eval/assay"
)

func TestCoverageWarnings(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	s := assay.Summary{
		Metrics: map[string]assay.MetricAgg{
			"ndcg@10":     {Mean: 0.68, N: 20, Upper: f(0.97)},
			"recall@10":   {Mean: 0.5, N: 20, Upper: f(0.71)},
			"map":         {Mean: 0.6, N: 20, Upper: f(0.55)}, // k = 10: falls
			"mrr":         {Mean: 0.9, N: 20, Upper: f(0.9)},  // unmoved: left out
			"hit@5":       {Mean: 1, N: 20, Upper: f(1)},      // unmoved: no warning at 5
			"precision@3": {Mean: 0.3, N: 20, Upper: f(0.4)},  // unj@3 at the threshold: none
			"judge:faith": {Mean: 0.5, N: 20, Upper: f(0.9)},  // not an IR metric
		},
		Unjudged: map[string]assay.MetricAgg{"unj@10": {Mean: 0.089, N: 20}, "unj@5": {Mean: 0.4, N: 20}, "unj@3": {Mean: 0.05, N: 20}},
	}
	got := CoverageWarnings(s, []string{"ndcg@10", "recall@10", "mrr", "map", "hit@5", "precision@3", "judge:faith"}, 10)
	want := []string{"8.9 % of the top-10 documents are unjudged (more than 5 %) and count as non-relevant: ndcg@10 is a lower bound, between 0.680 and 0.970 with them relevant, recall@10 between 0.500 and 0.710; with them relevant map would fall from 0.600 to 0.550 (they also join the ideal ranking); judge them to narrow the range"}
	if !slices.Equal(got, want) {
		t.Errorf("CoverageWarnings =\n%q\nwant\n%q", got, want)
	}
	t.Run("an older run without upper values", func(t *testing.T) {
		old := assay.Summary{Metrics: map[string]assay.MetricAgg{"ndcg@10": {Mean: 0.5, N: 3}}}
		if got := CoverageWarnings(old, nil, 10); got != nil {
			t.Errorf("warnings %q; want none", got)
		}
	})
}
