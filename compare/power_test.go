package compare_test

import (
	"math"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
)

func TestPowerOfSaysWhereTheSpreadComesFrom(t *testing.T) {
	t.Parallel()
	prev := run("p", 30, nil)
	latest := run("l", 30, func(i int, c *assay.CaseResult) { c.Metrics["ndcg@10"] += 0.01 * float64(i%3-1) })
	sp := compare.PowerOf(latest, prev, []string{"ndcg@10", "mrr"}, map[string]float64{"ndcg@10": 0.02}, 0.05)
	nd, mrr := sp.Measures[0], sp.Measures[1]
	d := compare.PairMeasure(prev, latest, "ndcg@10", nil).Deltas
	sd := compare.EffectOf(d, "higher", 0.05).SD
	if nd.Basis != "paired" || nd.SD != sd || nd.N != 30 || *nd.MDE != compare.MDE(sd, 30, 0.05, 0.8) ||
		*nd.CasesNeeded != compare.CasesNeeded(sd, 0.02, 0.05, 0.8) {
		t.Errorf("ndcg@10 %+v; want paired sd %v", nd, sd)
	}
	// mrr did not move between the runs: its spread is √2 × that of the
	// latest run's values (all 0.5 here: no spread, so no MDE)
	if mrr.Basis != "spread" || mrr.SD != 0 || mrr.MDE != nil || mrr.CasesNeeded != nil {
		t.Errorf("mrr %+v; want spread with no MDE", mrr)
	}
	// one run: the case spread
	sp = compare.PowerOf(latest, nil, []string{"ndcg@10"}, nil, 0.05)
	vals := make([]float64, 0, 30)
	for _, c := range latest.Cases {
		vals = append(vals, c.Metrics["ndcg@10"])
	}
	want := math.Sqrt2 * compare.EffectOf(vals, "higher", 0.05).SD
	if m := sp.Measures[0]; m.Basis != "spread" || math.Abs(m.SD-want) > 1e-15 || sp.Previous != "" {
		t.Errorf("one run: %+v; want spread sd %v", m, want)
	}
}
