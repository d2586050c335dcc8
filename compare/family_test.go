package compare

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/assay-eval/assay/internal/pyoracle"
)

func TestHolmByHand(t *testing.T) {
	// m = 4: ranks 1..4 multiply by 4, 3, 2, 1, then a running maximum.
	got := Holm([]float64{0.04, 0.01, 0.03, 0.5})
	want := []float64{0.09, 0.04, 0.09, 0.5}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("Holm = %v, want %v", got, want)
		}
	}
	if got := Holm([]float64{0.6, 0.7}); got[0] != 1 || got[1] != 1 {
		t.Fatalf("Holm caps at 1: got %v", got)
	}
}

func TestMcNemarExactByHand(t *testing.T) {
	// 6 discordant pairs all one way: 2 * 0.5^6.
	if got, want := McNemarExact(6, 0), 2.0/64; math.Abs(got-want) > 1e-15 {
		t.Fatalf("McNemarExact(6,0) = %v, want %v", got, want)
	}
	if got := McNemarExact(3, 3); got != 1 {
		t.Fatalf("McNemarExact(3,3) = %v, want 1", got)
	}
	if got := McNemarExact(0, 0); got != 1 {
		t.Fatalf("McNemarExact(0,0) = %v, want 1", got)
	}
	if got, want := McNemarOneSided(6, 0), 1.0/64; math.Abs(got-want) > 1e-15 {
		t.Fatalf("McNemarOneSided(6,0) = %v, want %v", got, want)
	}
}

// TestFamilyAgainstStatsmodels checks Holm, McNemar's exact test and the
// normal-approximation power figures against statsmodels on generated
// inputs.
func TestFamilyAgainstStatsmodels(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	type in struct {
		P       [][]float64 `json:"p"`
		BC      [][2]int    `json:"bc"`
		Effects []float64   `json:"effects"`
		Ns      []int       `json:"ns"`
		MDEs    []float64   `json:"mdes"`
	}
	var input in
	for range 40 {
		m := 1 + rng.IntN(12)
		p := make([]float64, m)
		for i := range p {
			p[i] = rng.Float64() * rng.Float64()
		}
		if m > 2 {
			p[1] = p[0] // ties
		}
		input.P = append(input.P, p)
	}
	for range 60 {
		input.BC = append(input.BC, [2]int{rng.IntN(40), rng.IntN(40)})
	}
	input.BC = append(input.BC, [2]int{0, 0}, [2]int{500, 430}, [2]int{1, 0})
	for range 30 {
		input.Effects = append(input.Effects, 0.05+rng.Float64())
		n := 2 + rng.IntN(500)
		input.Ns = append(input.Ns, n)
		input.MDEs = append(input.MDEs, MDE(1, n, 0.05, 0.8))
	}
	const script = `
import sys, json
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.power import NormalIndPower
d = json.load(sys.stdin)
holm = [list(multipletests(p, alpha=0.05, method='holm')[1]) for p in d['p']]
mc = []
for b, c in d['bc']:
    if b + c == 0:
        mc.append(1.0)
    else:
        mc.append(float(mcnemar([[0, b], [c, 0]], exact=True).pvalue))
pw = NormalIndPower()
# ratio=0: a one-sample (paired) test; effect size in sd units
# the power statsmodels gives at our MDE (its solver is only good to ~1e-5)
mde = [float(pw.power(effect_size=e, nobs1=n, alpha=0.05, ratio=0)) for e, n in zip(d['mdes'], d['ns'])]
need = [float(pw.solve_power(effect_size=e, nobs1=None, alpha=0.05, power=0.8, ratio=0)) for e in d['effects']]
print(json.dumps({'holm': holm, 'mcnemar': mc, 'mde': mde, 'need': need}))
`
	var out struct {
		Holm    [][]float64 `json:"holm"`
		McNemar []float64   `json:"mcnemar"`
		MDE     []float64   `json:"mde"`
		Need    []float64   `json:"need"`
	}
	pyoracle.Run(t, script, input, &out)
	for i, p := range input.P {
		got := Holm(p)
		for j := range got {
			if math.Abs(got[j]-out.Holm[i][j]) > 1e-12 {
				t.Fatalf("Holm(%v)[%d] = %v, statsmodels %v", p, j, got[j], out.Holm[i][j])
			}
		}
	}
	for i, bc := range input.BC {
		if got := McNemarExact(bc[0], bc[1]); math.Abs(got-out.McNemar[i]) > 1e-9*math.Max(1e-300, out.McNemar[i])+1e-15 {
			t.Fatalf("McNemarExact(%d, %d) = %v, statsmodels %v", bc[0], bc[1], got, out.McNemar[i])
		}
	}
	for i, n := range input.Ns {
		// statsmodels counts the far tail too (about 1e-6 at 80% power)
		if math.Abs(out.MDE[i]-0.8) > 1e-5 {
			t.Fatalf("MDE(sd 1, n %d) = %v: statsmodels gives power %v there, want 0.8", n, input.MDEs[i], out.MDE[i])
		}
	}
	for i, e := range input.Effects {
		want := int(math.Ceil(out.Need[i] - 1e-9))
		want = max(want, 2)
		if got := CasesNeeded(1, e, 0.05, 0.8); got != want {
			t.Fatalf("CasesNeeded(sd 1, delta %v) = %d, statsmodels %v", e, got, out.Need[i])
		}
	}
}
