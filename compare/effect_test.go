package compare

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/assay-eval/assay/internal/pyoracle"
)

func TestEffectWinsFollowTheDirection(t *testing.T) {
	d := []float64{0.1, 0.2, 0, -0.3, 0.05}
	if e := EffectOf(d, "higher", 0.05); e.Wins != 3 || e.Ties != 1 || e.Losses != 1 {
		t.Errorf("higher: wins/ties/losses %d/%d/%d, want 3/1/1", e.Wins, e.Ties, e.Losses)
	}
	if e := EffectOf(d, "lower", 0.05); e.Wins != 1 || e.Ties != 1 || e.Losses != 3 {
		t.Errorf("lower: wins/ties/losses %d/%d/%d, want 1/1/3", e.Wins, e.Ties, e.Losses)
	}
}

func TestEffectUndefinedIsNull(t *testing.T) {
	// every case moved alike: no spread, so d_z is undefined (not 0, not
	// Inf), and so is the MDE (no noise to size a change against, not 0)
	e := EffectOf([]float64{0.1, 0.1, 0.1}, "higher", 0.05)
	if e.DZ != nil {
		t.Errorf("d_z of deltas without spread = %v, want null", *e.DZ)
	}
	if e.MDE != nil {
		t.Errorf("MDE of deltas without spread = %v, want null", *e.MDE)
	}
	// one case: no variance can be estimated
	if e := EffectOf([]float64{0.1}, "higher", 0.05); e.DZ != nil || e.MDE != nil {
		t.Errorf("one case: d_z %v, MDE %v; want both null", e.DZ, e.MDE)
	}
}

func TestVarianceSplitAdvice(t *testing.T) {
	// trials that agree within each case, cases that differ: more cases
	stable := [][]float64{{0.5, 0.5, 0.5}, {-0.4, -0.4, -0.4}, {0.1, 0.1, 0.1}, {-0.2, -0.2, -0.2}}
	vs := varianceSplit(stable)
	if vs == nil || vs.Advice != "more cases" || vs.WithinShare != 0 || vs.BetweenShare != 1 {
		t.Fatalf("stable trials: %+v, want all between, more cases", vs)
	}
	// cases alike on average, trials that disagree: more trials
	noisy := [][]float64{{1, -1, 0}, {-1, 1, 0}, {0, 1, -1}, {1, 0, -1}}
	vs = varianceSplit(noisy)
	if vs == nil || vs.Advice != "more trials" || vs.BetweenShare != 0 || vs.WithinShare != 1 {
		t.Fatalf("noisy trials: %+v, want all within, more trials", vs)
	}
	// one trial per case: nothing to split
	if vs := varianceSplit([][]float64{{1}, {0}, {0.5}}); vs != nil {
		t.Fatalf("single trials: %+v, want nil", vs)
	}
}

// TestEffectAgainstNumpyAndStatsmodels checks d_z, the MDE of a pair and
// the variance components against an independent implementation: numpy's
// sample sd, statsmodels' power solver (the paired test as a one-sample
// test on the deltas) and the one-way ANOVA estimator written in numpy.
func TestEffectAgainstNumpyAndStatsmodels(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 5))
	type in struct {
		D      [][]float64   `json:"d"`
		Groups [][][]float64 `json:"groups"`
	}
	var input in
	for range 25 {
		n := 3 + rng.IntN(200)
		d := make([]float64, n)
		shift := rng.Float64()*0.2 - 0.1
		for i := range d {
			d[i] = shift + rng.NormFloat64()*0.3
		}
		input.D = append(input.D, d)
	}
	for range 25 {
		cases := 2 + rng.IntN(40)
		var g [][]float64
		sb, sw := rng.Float64(), rng.Float64()
		for range cases {
			mu := rng.NormFloat64() * sb
			k := 2 + rng.IntN(4) // unbalanced trials
			row := make([]float64, k)
			for j := range row {
				row[j] = mu + rng.NormFloat64()*sw
			}
			g = append(g, row)
		}
		input.Groups = append(input.Groups, g)
	}
	const script = `
import sys, json
import numpy as np
from statsmodels.stats.power import NormalIndPower
d = json.load(sys.stdin)
pw = NormalIndPower()
dz, mde = [], []
for x in d['d']:
    x = np.array(x)
    sd = x.std(ddof=1)
    dz.append(float(x.mean() / sd))
    es = pw.solve_power(effect_size=None, nobs1=len(x), alpha=0.05, power=0.8, ratio=0)
    mde.append(float(es * sd))
comp = []
for groups in d['groups']:
    allv = np.concatenate([np.array(g) for g in groups])
    N, a = len(allv), len(groups)
    grand = allv.mean()
    ssb = sum(len(g) * (np.mean(g) - grand) ** 2 for g in groups)
    ssw = sum(((np.array(g) - np.mean(g)) ** 2).sum() for g in groups)
    msb, msw = ssb / (a - 1), ssw / (N - a)
    n0 = (N - sum(len(g) ** 2 for g in groups) / N) / (a - 1)
    comp.append([float(max(0.0, (msb - msw) / n0)), float(msw)])
print(json.dumps({'dz': dz, 'mde': mde, 'comp': comp}))
`
	var out struct {
		DZ   []float64    `json:"dz"`
		MDE  []float64    `json:"mde"`
		Comp [][2]float64 `json:"comp"`
	}
	pyoracle.Run(t, script, input, &out)
	for i, d := range input.D {
		e := EffectOf(d, "higher", 0.05)
		if e.DZ == nil || math.Abs(*e.DZ-out.DZ[i]) > 1e-9 {
			t.Fatalf("d_z of %d deltas = %v, numpy %v", len(d), e.DZ, out.DZ[i])
		}
		// statsmodels' solver is good to about 1e-5 relative
		if e.MDE == nil || math.Abs(*e.MDE-out.MDE[i]) > 1e-4*out.MDE[i] {
			t.Fatalf("MDE of %d deltas = %v, statsmodels %v", len(d), e.MDE, out.MDE[i])
		}
	}
	for i, g := range input.Groups {
		vs := varianceSplit(g)
		if vs == nil {
			t.Fatalf("groups %d: no split", i)
		}
		if math.Abs(vs.Between-out.Comp[i][0]) > 1e-9 || math.Abs(vs.Within-out.Comp[i][1]) > 1e-9 {
			t.Fatalf("groups %d: between %v within %v; numpy %v", i, vs.Between, vs.Within, out.Comp[i])
		}
	}
}
