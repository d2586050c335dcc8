package compare_test

import (
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
)

// PairMeasure and DeltaInterval give a single measure the numbers Runs
// gives it, so a gate and assay compare never disagree.
func TestPairMeasureAgreesWithRuns(t *testing.T) {
	t.Parallel()
	base := run("b", 40, nil)
	cand := run("c", 40, func(i int, c *assay.CaseResult) {
		c.Metrics["ndcg@10"] += 0.02 * float64(i%5-1)
		if i%9 == 0 {
			fail(c)
		}
	})
	rep := compare.Runs(base, cand, compare.Options{})
	for _, name := range []string{"ndcg@10", "pass_rate"} {
		md := metric(t, rep, name)
		p := compare.PairMeasure(base, cand, name, nil)
		iv := compare.DeltaInterval(p.Deltas, rep.Alpha, compare.Options{})
		if iv.N != md.N || iv.Delta != md.Delta || iv.P != md.P || [2]float64{iv.Lo, iv.Hi} != md.CI95 {
			t.Errorf("%s: PairMeasure+DeltaInterval %+v; Runs n %d delta %v p %v ci %v", name, iv, md.N, md.Delta, md.P, md.CI95)
		}
	}
	// a scope keeps the cases it accepts
	p := compare.PairMeasure(base, cand, "ndcg@10", func(r *assay.CaseResult) bool { return r.ID < "q10" })
	if len(p.Deltas) != 10 || p.Direction != "higher" {
		t.Errorf("kept %d deltas (%s); want 10 (higher)", len(p.Deltas), p.Direction)
	}
	if d := compare.PairMeasure(base, cand, "error_rate", nil).Direction; d != "lower" {
		t.Errorf("error_rate direction %q", d)
	}
}

// DeltaIntervals runs its tests side by side; each must be DeltaInterval
// of its own deltas, bit for bit, whatever order the workers take them in.
func TestDeltaIntervalsAreDeltaIntervalEach(t *testing.T) {
	t.Parallel()
	var ds [][]float64
	for k := range 9 {
		d := make([]float64, 30+k*7)
		for i := range d {
			d[i] = float64((i*(k+3))%11-5) / 10
		}
		ds = append(ds, d)
	}
	ds = append(ds, nil, ds[2])
	got := compare.DeltaIntervals(ds, 0.1, compare.Options{})
	if len(got) != len(ds) {
		t.Fatalf("%d intervals for %d delta sets", len(got), len(ds))
	}
	for i, d := range ds {
		if want := compare.DeltaInterval(d, 0.1, compare.Options{}); got[i] != want {
			t.Errorf("set %d: %+v, want %+v", i, got[i], want)
		}
	}
}
