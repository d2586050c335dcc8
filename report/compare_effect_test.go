package report

import (
	"strings"
	"testing"

	"github.com/assay-eval/assay/compare"
)

func TestCompareTextVarianceSplit(t *testing.T) {
	t.Parallel()
	mde := 0.05
	rep := compare.Report{Suite: "kb", PairedCases: 20, PairedValues: 60, Alpha: 0.05, Power: compare.Power,
		Metrics: []compare.MetricDelta{{Name: "ndcg@10", N: 20, Gated: true, Direction: "higher", Change: compare.NoChange,
			Effect:   compare.Effect{SD: 0.1, Wins: 5, Ties: 10, Losses: 5, MDE: &mde},
			Variance: &compare.VarianceSplit{Trials: 3, Between: 0.001, Within: 0.009, BetweenShare: 0.1, WithinShare: 0.9, Advice: "more trials"}}}}
	var b strings.Builder
	if err := CompareText(&b, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"ndcg@10  10% between cases, 90% within cases (3 trials): more trials",
		"this suite cannot see changes below ndcg@10 0.0500",
		"5/10/5",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}
