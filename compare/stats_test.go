package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// bruteSignFlip enumerates every sign assignment directly.
func bruteSignFlip(d []float64) float64 {
	var obs float64
	for _, v := range d {
		obs += v
	}
	obs = math.Abs(obs)
	count := 0
	total := 1 << len(d)
	for mask := range total {
		var s float64
		for i, v := range d {
			if mask&(1<<i) != 0 {
				s -= v
			} else {
				s += v
			}
		}
		if math.Abs(s) >= obs-1e-9 {
			count++
		}
	}
	return float64(count) / float64(total)
}

func TestSignFlipExact(t *testing.T) {
	tests := []struct {
		name string
		d    []float64
		want float64
	}{
		{"no change gives p 1", []float64{0, 0, 0}, 1},
		{"five equal gains give 2/32", []float64{1, 1, 1, 1, 1}, 2.0 / 32},
		{"zeros are dropped", []float64{1, 0, 1, 0, 1, 1, 0, 1}, 2.0 / 32},
		{"ten equal losses give 2/1024", []float64{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1}, 2.0 / 1024},
		{"balanced changes give 1", []float64{1, -1, 0.5, -0.5}, 1},
		{"one change gives 1", []float64{0.3}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := signFlipP(tc.d, 20, 1000, rand.NewPCG(1, 1))
			if math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("p = %v; want %v", got, tc.want)
			}
		})
	}
}

func TestSignFlipExactMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		n := 1 + r.IntN(12)
		d := make([]float64, n)
		for i := range d {
			switch r.IntN(4) {
			case 0:
				d[i] = 0
			case 1:
				d[i] = float64(r.IntN(3) - 1) // ties are common in metrics
			default:
				d[i] = math.Round((r.Float64()-0.4)*100) / 100
			}
		}
		got := signFlipP(d, 20, 1000, rand.NewPCG(1, 1))
		if want := bruteSignFlip(d); math.Abs(got-want) > 1e-12 {
			t.Fatalf("trial %d: d=%v: p = %v; brute force %v", trial, d, got, want)
		}
	}
}

func TestSignFlipMonteCarloNearExact(t *testing.T) {
	// 20 values: the exact p is known; the sampled p (forced by exactMax 0)
	// must be within Monte Carlo error of it.
	r := rand.New(rand.NewPCG(5, 6))
	d := make([]float64, 20)
	for i := range d {
		d[i] = r.Float64() - 0.35
	}
	exact := signFlipP(d, 20, 0, nil)
	sampled := signFlipP(d, 0, 10000, rand.NewPCG(1, 1))
	if se := math.Sqrt(exact * (1 - exact) / 10000); math.Abs(sampled-exact) > 4*se+1e-4 {
		t.Errorf("sampled p %v, exact %v (4 se = %v)", sampled, exact, 4*se)
	}
	if exact <= 0.001 || exact >= 0.999 {
		t.Fatalf("test data gives p %v; want a p in the middle to test", exact)
	}
}

func TestSignFlipLargeShiftIsSignificant(t *testing.T) {
	d := make([]float64, 500)
	for i := range d {
		d[i] = -0.05 + 0.01*float64(i%3)
	}
	p := signFlipP(d, 20, 10000, rand.NewPCG(1, 1))
	if p != 1.0/10001 {
		t.Errorf("p = %v; want the smallest sampled p 1/10001", p)
	}
}

func TestFlipInterval(t *testing.T) {
	ci := func(d []float64) (lo, hi, p float64) {
		p = signFlipP(d, 20, 10000, rand.NewPCG(1, 1))
		lo, hi = flipInterval(d, p, 0.05, 20, 10000, rand.NewPCG(1, 2))
		return lo, hi, p
	}
	t.Run("all zero gives [0, 0]", func(t *testing.T) {
		if lo, hi, _ := ci(make([]float64, 50)); lo != 0 || hi != 0 {
			t.Errorf("CI = [%v, %v]", lo, hi)
		}
	})
	t.Run("three equal deltas reach 0", func(t *testing.T) {
		// p = 2/8: the test rejects nothing, so the interval holds 0.
		lo, hi, p := ci([]float64{-0.2, -0.2, -0.2})
		if p != 0.25 || lo != -0.2 || hi != 0 {
			t.Errorf("CI = [%v, %v], p %v; want [-0.2, 0], p 0.25", lo, hi, p)
		}
	})
	t.Run("symmetric ones match the normal width", func(t *testing.T) {
		d := make([]float64, 1000)
		for i := range d {
			d[i] = float64(2*(i%2) - 1)
		}
		lo, hi, _ := ci(d)
		want := 1.96 / math.Sqrt(1000) // sd 1
		if math.Abs(hi-want) > 0.01 || math.Abs(lo+want) > 0.01 {
			t.Errorf("CI = [%v, %v]; want about [-%v, %v]", lo, hi, want, want)
		}
	})
	t.Run("exact interval of a shift", func(t *testing.T) {
		// 10 deltas around 0.3: the interval holds the mean and not 0.
		d := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.25, 0.35, 0.15, 0.45, 0.3}
		lo, hi, p := ci(d)
		if !(lo > 0 && lo < 0.3 && hi > 0.3 && hi < 0.5) || p >= 0.05 {
			t.Errorf("CI = [%v, %v], p %v", lo, hi, p)
		}
	})
}

// TestIntervalAgreesWithSignificance: the CI shown and the "~" come from
// the same test, so a CI excludes 0 exactly when the change is
// significant. A paired bootstrap CI did not: four cases of 100 moving the
// same way gave a bootstrap CI excluding 0 with a sign-flip p of 0.125.
func TestIntervalAgreesWithSignificance(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	check := func(name string, b, c []float64) {
		t.Helper()
		md := measureAll([]series{{name: "ndcg@10", direction: "higher", gated: true, b: b, c: c}}, Defaults)[0]
		excludes := md.CI95[0] > 0 || md.CI95[1] < 0
		if excludes != md.Significant {
			t.Errorf("%s: CI %v, p %v, significant %v", name, md.CI95, md.P, md.Significant)
		}
		if md.Delta < md.CI95[0] || md.Delta > md.CI95[1] {
			t.Errorf("%s: delta %v outside CI %v", name, md.Delta, md.CI95)
		}
	}
	for moved := 1; moved <= 8; moved++ {
		b, c := make([]float64, 100), make([]float64, 100)
		for i := range moved {
			c[i] = 1
		}
		check(fmt.Sprintf("%d of 100 moved up", moved), b, c)
	}
	for trial := range 60 {
		n := []int{3, 6, 12, 25, 40, 200}[trial%6]
		b, c := make([]float64, n), make([]float64, n)
		shift := r.Float64()*0.4 - 0.1
		for i := range b {
			b[i] = r.Float64()
			if r.IntN(3) > 0 {
				c[i] = min(1, max(0, b[i]+shift+0.3*(r.Float64()-0.5)))
			} else {
				c[i] = b[i]
			}
		}
		check(fmt.Sprintf("trial %d (n %d)", trial, n), b, c)
	}
}

func TestPercentileNearestRank(t *testing.T) {
	x := []float64{15, 20, 35, 40, 50}
	for p, want := range map[float64]float64{5: 15, 30: 20, 40: 20, 50: 35, 100: 50} {
		if got := percentile(x, p); got != want {
			t.Errorf("p%v = %v; want %v", p, got, want)
		}
	}
}

// A measure's numbers do not depend on the other measures compared with it.
func TestMeasureWithOthersEqualsAlone(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	mk := func() ([]float64, []float64) {
		b, c := make([]float64, 300), make([]float64, 300)
		for i := range b {
			b[i], c[i] = r.Float64(), r.Float64()
		}
		return b, c
	}
	b1, c1 := mk()
	b2, c2 := mk()
	all := []series{{name: "ndcg@10", direction: "higher", b: b1, c: c1}, {name: "mrr", direction: "higher", b: b2, c: c2}}
	together := measureAll(all, Defaults)
	for i, s := range all {
		if alone := measureAll([]series{s}, Defaults)[0]; !reflect.DeepEqual(together[i], alone) {
			t.Errorf("%s with another measure %+v; alone %+v", s.name, together[i], alone)
		}
	}
}

func TestSignFlipExactWhenFewDeltasAreNonZero(t *testing.T) {
	// 100 pairs of which 6 moved down: enumerated exactly, p = 2/64.
	d := make([]float64, 100)
	for i := range 6 {
		d[10*i] = -0.2
	}
	if p := signFlipP(d, 20, 10000, rand.NewPCG(1, 1)); p != 2.0/64 {
		t.Errorf("p = %v; want exactly 2/64", p)
	}
}

func TestEqualDeltasGetEqualNumbers(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	b, c := make([]float64, 400), make([]float64, 400)
	for i := range b {
		b[i] = float64(r.IntN(2))
		c[i] = float64(r.IntN(2))
	}
	out := measureAll([]series{
		{name: "recall@5", direction: "higher", b: b, c: c},
		{name: "hit@5", direction: "higher", b: b, c: c},
	}, Defaults)
	x, y := out[0], out[1]
	y.Name = x.Name
	if !reflect.DeepEqual(x, y) {
		t.Errorf("equal deltas, different numbers:\n%+v\n%+v", out[0], out[1])
	}
	if x.P == 0 || x.CI95 == [2]float64{} {
		t.Errorf("numbers not computed: %+v", x)
	}
}
