package compare

import (
	"math"
	"math/rand/v2"
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	d := make([]float64, 500)
	for i := range d {
		d[i] = -0.05 + 0.01*float64(i%3)
	}
	p := signFlipP(d, 20, 10000, rand.NewPCG(1, 1))
	if p != 1.0/10001 {
		t.Errorf("p = %v; want the smallest sampled p 1/10001", p)
	}
}

func TestBootstrapCI(t *testing.T) {
	t.Parallel()
	t.Run("all zero gives [0, 0]", func(t *testing.T) {
		lo, hi := bootstrapCI(make([]float64, 50), 10000, 1)
		if lo != 0 || hi != 0 {
			t.Errorf("CI = [%v, %v]", lo, hi)
		}
	})
	t.Run("constant gives a point", func(t *testing.T) {
		d := []float64{-0.2, -0.2, -0.2}
		lo, hi := bootstrapCI(d, 10000, 1)
		if lo != -0.2 || hi != -0.2 {
			t.Errorf("CI = [%v, %v]", lo, hi)
		}
	})
	t.Run("symmetric ones match the normal width", func(t *testing.T) {
		d := make([]float64, 1000)
		for i := range d {
			d[i] = float64(2*(i%2) - 1)
		}
		lo, hi := bootstrapCI(d, 10000, 1)
		want := 1.96 / math.Sqrt(1000) // sd 1
		if math.Abs(hi-want) > 0.01 || math.Abs(lo+want) > 0.01 {
			t.Errorf("CI = [%v, %v]; want about [-%v, %v]", lo, hi, want, want)
		}
	})
}

func TestBootstrapSkippingZeroRowsMatchesDrawingAll(t *testing.T) {
	// A tenth of the deltas non-zero: skipping the zero rows must give the
	// distribution drawing every pair does (up to Monte Carlo error).
	r := rand.New(rand.NewPCG(7, 8))
	d := make([]float64, 2000)
	for i := range d {
		if r.IntN(10) == 0 {
			d[i] = r.Float64() - 0.3
		}
	}
	sLo, sHi := bootstrapCI(d, 10000, 1)
	skipZeroRows = false
	defer func() { skipZeroRows = true }()
	dLo, dHi := bootstrapCI(d, 10000, 1)
	width := dHi - dLo
	if math.Abs(sLo-dLo) > 0.05*width || math.Abs(sHi-dHi) > 0.05*width {
		t.Errorf("sparse CI [%v, %v], dense [%v, %v]", sLo, sHi, dLo, dHi)
	}
}

func TestBinomialCDF(t *testing.T) {
	t.Parallel()
	cdf := binomialCDF(1000, 0.1)
	if math.Abs(cdf[len(cdf)-1]-1) > 1e-9 {
		t.Errorf("cdf ends at %v; want 1", cdf[len(cdf)-1])
	}
	// mean = sum of P(K > k)
	var m float64
	for k := 0; k < len(cdf)-1; k++ {
		m += 1 - cdf[k]
	}
	if math.Abs(m-100) > 1e-6 {
		t.Errorf("mean %v; want 100", m)
	}
	if k := invert(cdf, 0); k != 0 && cdf[0] > 0 {
		t.Errorf("invert(0) = %d", k)
	}
	if k := invert(cdf, 0.999999999999); k < 100 {
		t.Errorf("invert(~1) = %d; want far above the mean", k)
	}
}

func TestGroupDrawsPairsUniformly(t *testing.T) {
	t.Parallel()
	// Seven measures, measure k one-hot at pair k: the mean of measure k
	// over a resample is (draws of pair k)/7, whose expectation is 1/7.
	const n, resamples = 7, 20000
	ds := make([][]float64, n)
	ms := make([][]float64, n)
	for k := range ds {
		ds[k] = make([]float64, n)
		ds[k][k] = 1
		ms[k] = make([]float64, resamples)
	}
	g := newGroup(ds)
	g.means(ms, 0, resamples, rand.NewPCG(9, 9))
	for k := range ms {
		got := mean(ms[k])
		if math.Abs(got-1.0/n) > 0.005 {
			t.Errorf("pair %d: mean share %v; want about %v", k, got, 1.0/n)
		}
	}
}

func TestPercentileNearestRank(t *testing.T) {
	t.Parallel()
	x := []float64{15, 20, 35, 40, 50}
	for p, want := range map[float64]float64{5: 15, 30: 20, 40: 20, 50: 35, 100: 50} {
		if got := percentile(x, p); got != want {
			t.Errorf("p%v = %v; want %v", p, got, want)
		}
	}
}

// Measures over the same pairs are resampled together; when every pair has
// a non-zero delta a measure's interval is the one it gets alone.
func TestJointBootstrapEqualsAlone(t *testing.T) {
	t.Parallel()
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
	o := Defaults
	together := measureAll(all, o)
	for i, s := range all {
		alone := measureAll([]series{s}, o)[0]
		if together[i] != alone {
			t.Errorf("%s with another measure %+v; alone %+v", s.name, together[i], alone)
		}
		d := make([]float64, len(s.b))
		for k := range d {
			d[k] = s.c[k] - s.b[k]
		}
		lo, hi := bootstrapCI(d, o.Resamples, o.Seed)
		if alone.CI95 != [2]float64{lo, hi} {
			t.Errorf("%s: measureAll CI %v; bootstrapCI %v", s.name, alone.CI95, [2]float64{lo, hi})
		}
	}
}

func TestSignFlipExactWhenFewDeltasAreNonZero(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	if x != y {
		t.Errorf("equal deltas, different numbers:\n%+v\n%+v", out[0], out[1])
	}
	if x.P == 0 || x.CI95 == [2]float64{} {
		t.Errorf("numbers not computed: %+v", x)
	}
}

func TestDrawIndicesRejectsToStayUniform(t *testing.T) {
	t.Parallel()
	// un = 3 * 2^30: a quarter of the 32-bit halves are rejected, and the
	// three thirds of the range must still be equally likely.
	un := uint64(3 << 30)
	tt := (1 << 32) % un
	idx := drawIndices(make([]int32, 30001), un, tt, rand.NewPCG(5, 5))
	var thirds [3]int
	for _, i := range idx {
		if uint64(uint32(i)) >= un {
			t.Fatalf("index %d out of range", uint32(i))
		}
		thirds[uint64(uint32(i))/(1<<30)]++
	}
	for k, c := range thirds {
		if math.Abs(float64(c)-10000.33) > 400 {
			t.Errorf("third %d drawn %d times of 30001; want about 10000 (%v)", k, c, thirds)
		}
	}
}
