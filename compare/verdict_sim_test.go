package compare_test

import (
	"testing"

	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/internal/verdictsim"
)

// TestVerdictProperties runs a small version of the verdict simulation
// (bench/verdictsim runs the full one) with fixed seeds and fails when one
// of the properties breaks: P1 no false alarms on A/A pairs of a
// stochastic system (compare and no_new_failures), P2 a real regression
// found, P3 a deterministic system's single flip regressed and named every
// time, P4 same only when shown, inconclusive with what would decide it.
func TestVerdictProperties(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	cfg := func(pairs, trials, hist int) verdictsim.Config {
		return verdictsim.Config{Pairs: pairs, Seed: 11, Cases: 100, Trials: trials, History: hist, Samples: 1000}
	}
	broken := func(tl verdictsim.Tally) {
		t.Helper()
		for _, b := range tl.Broken {
			t.Errorf("P4: %s", b)
		}
	}
	for _, th := range [][2]int{{1, 0}, {1, 5}, {3, 0}, {3, 5}} {
		tl := verdictsim.AA(cfg(20, th[0], th[1]))
		// 2 of 20 allows for sampling; the full run's rates are below 5%
		if n := tl.Verdicts[compare.Regressed]; n > 2 {
			t.Errorf("P1 (%d trials, %d history runs): regressed in %d of 20 A/A pairs", th[0], th[1], n)
		}
		if tl.GateFailed > 2 {
			t.Errorf("P1 (%d trials, %d history runs): no_new_failures failed in %d of 20 A/A pairs", th[0], th[1], tl.GateFailed)
		}
		if tl.StrictFailed < 18 {
			t.Errorf("no_new_failures(strict) failed in only %d of 20 A/A pairs: it should fail on any flip", tl.StrictFailed)
		}
		broken(tl)
	}
	if tl := verdictsim.Shift(cfg(20, 1, 0), 0.2, 0.05); tl.Verdicts[compare.Regressed] < 16 {
		t.Errorf("P2: regressed in %d of 20 pairs whose cases pass 0.2 less often, want >= 16", tl.Verdicts[compare.Regressed])
	}
	for _, c := range []struct {
		name      string
		trials, h int
		kind      string
	}{{"builtin", 1, 0, "builtin"}, {"3 trials", 3, 0, "http"}, {"5 history runs", 1, 5, "http"}} {
		tl := verdictsim.OneFlip(cfg(10, c.trials, c.h), c.kind, true)
		if tl.Verdicts[compare.Regressed] != 10 || tl.Named != 10 {
			t.Errorf("P3 (%s): one flip of a deterministic system regressed %d and was named %d of 10 times, want 10", c.name, tl.Verdicts[compare.Regressed], tl.Named)
		}
	}
	if tl := verdictsim.OneFlip(cfg(10, 1, 0), "http", true); tl.Verdicts[compare.Inconclusive] != 10 {
		t.Errorf("one flip, noise unknown: %v, want inconclusive every time", tl.Verdicts)
	}
	tl := verdictsim.OneFlip(cfg(10, 1, 0), "builtin", false)
	if tl.Verdicts[compare.Same] != 10 {
		t.Errorf("P4: a deterministic system against itself: %v, want same every time", tl.Verdicts)
	}
	broken(tl)
}
