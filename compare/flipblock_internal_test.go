package compare

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/assay-eval/assay/internal/largetest"
)

// The sign-flip samplers make their samples a word at a time across all
// samples (for the cache); the p-values and intervals must be exactly
// those of making the samples one at a time, which the functions below
// do: they are the samplers as they were before, kept here as the
// reference.

// TestSignFlipBlocksChangeNothing compares the word-by-word samplers with
// the one-at-a-time reference, bit for bit, over sizes that end mid-word,
// with and without zero deltas.
func TestSignFlipBlocksChangeNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{21, 63, 64, 65, 200, 1000, 4099} {
		for _, zeros := range []float64{0, 0.3} {
			for _, samples := range []int{1, 63, 64, 65, 1000} {
				d := make([]float64, n)
				for i := range d {
					if r.Float64() >= zeros {
						d[i] = math.Round((r.Float64()-0.45)*1e6) / 1e3
					}
				}
				seed := r.Uint64()
				got := signFlipP(d, 20, samples, rand.NewPCG(1, seed))
				want := signFlipPOneByOne(d, 20, samples, rand.NewPCG(1, seed))
				if got != want {
					t.Fatalf("n %d zeros %v samples %d: p %v, one at a time %v", n, zeros, samples, got, want)
				}
				ft := newFlipTest(d, 20, samples, rand.NewPCG(2, seed))
				ref := newFlipTestOneByOne(d, 20, samples, rand.NewPCG(2, seed))
				for k := range ref.a {
					if math.Float64bits(ft.a[k]) != math.Float64bits(ref.a[k]) || ft.b[k] != ref.b[k] {
						t.Fatalf("n %d zeros %v samples %d: sample %d is (%v, %d), one at a time (%v, %d)", n, zeros, samples, k, ft.a[k], ft.b[k], ref.a[k], ref.b[k])
					}
				}
				if len(ft.a) != len(ref.a) {
					t.Fatalf("n %d: %d samples, want %d", n, len(ft.a), len(ref.a))
				}
			}
		}
	}
}

func signFlipPOneByOne(d []float64, exactMax, samples int, rng *rand.PCG) float64 {
	nz := nonzero(d)
	m := len(nz)
	if m == 0 {
		return 1
	}
	var obs, abs float64
	for _, v := range nz {
		obs += v
		abs += math.Abs(v)
	}
	obs = math.Abs(obs)
	eps := 1e-9 * abs
	thr := obs - eps
	if m <= exactMax {
		// Gray-code walk from all signs negative: each step flips one.
		signs := make([]bool, m) // true: +
		var sum float64
		for _, v := range nz {
			sum -= v
		}
		count := 0
		if math.Abs(sum) >= thr {
			count++
		}
		total := 1 << m
		for g := 1; g < total; g++ {
			j := bits.TrailingZeros(uint(g))
			if signs[j] {
				sum -= 2 * nz[j]
			} else {
				sum += 2 * nz[j]
			}
			signs[j] = !signs[j]
			if math.Abs(sum) >= thr {
				count++
			}
		}
		return float64(count) / float64(total)
	}
	// Groups of 4 deltas: a table of the 16 signed sums of each group, so a
	// sample costs m/4 lookups driven by 4 random bits each.
	groups := (m + 3) / 4
	table := make([]float64, groups*16)
	for g := range groups {
		for mask := range 16 {
			var s float64
			for b := range 4 {
				i := 4*g + b
				if i >= m {
					break
				}
				if mask&(1<<b) != 0 {
					s -= nz[i]
				} else {
					s += nz[i]
				}
			}
			table[16*g+mask] = s
		}
	}
	// Pad to whole 64-bit words of randomness (16 groups): padded groups
	// hold zeros in every slot.
	words := (groups + 15) / 16
	table = append(table, make([]float64, (words*16-groups)*16)...)
	count := 0
	for range samples {
		// Four accumulators break the chain of dependent additions.
		var s0, s1, s2, s3 float64
		for w := range words {
			r := rng.Uint64()
			t := table[256*w : 256*w+256]
			for q := 0; q < 4; q++ {
				u := t[64*q : 64*q+64]
				s0 += u[r&15]
				s1 += u[16+(r>>4)&15]
				s2 += u[32+(r>>8)&15]
				s3 += u[48+(r>>12)&15]
				r >>= 16
			}
		}
		if math.Abs((s0+s1)+(s2+s3)) >= thr {
			count++
		}
	}
	return float64(count+1) / float64(samples+1)
}

func newFlipTestOneByOne(d []float64, exactMax, samples int, rng *rand.PCG) *flipTest {
	t := &flipTest{d: d}
	n := len(d)
	for _, v := range d {
		t.sum += v
	}
	if n <= exactMax {
		// Gray-code walk from all signs negative: each step flips one.
		t.exact = true
		total := 1 << n
		t.a = make([]float64, total)
		t.b = make([]int32, total)
		signs := make([]bool, n)
		a, b := -t.sum, -int32(n)
		t.a[0], t.b[0] = a, b
		for g := 1; g < total; g++ {
			j := bits.TrailingZeros(uint(g))
			if signs[j] {
				a, b = a-2*d[j], b-2
			} else {
				a, b = a+2*d[j], b+2
			}
			signs[j] = !signs[j]
			t.a[g], t.b[g] = a, b
		}
		return t
	}
	// The zero deltas only enter through their number of + signs, which is
	// Binomial(z, 1/2): drawn by inverting its CDF, so the cost follows the
	// number of non-zero deltas. The non-zero ones go in groups of 8:
	// tables of the 256 signed sums of each group (of the deltas and of
	// the signs), so a sample costs m/8 lookups of each, driven by 8 random
	// bits.
	nz := nonzero(d)
	z := n - len(nz)
	var zeroCDF []float64
	if z > 0 {
		zeroCDF = binomialCDF(z, 0.5)
	}
	m := len(nz)
	groups := (m + 7) / 8
	words := (groups + 7) / 8
	ta := make([]float64, words*8*256)
	tb := make([]int32, words*8*256)
	for g := range groups {
		for mask := range 256 {
			var a float64
			var b int32
			for bit := range 8 {
				i := 8*g + bit
				if i >= m {
					break
				}
				if mask&(1<<bit) != 0 {
					a, b = a-nz[i], b-1
				} else {
					a, b = a+nz[i], b+1
				}
			}
			ta[256*g+mask], tb[256*g+mask] = a, b
		}
	}
	t.a = make([]float64, samples)
	t.b = make([]int32, samples)
	for k := range samples {
		var a float64
		var b int32
		for w := range words {
			r := rng.Uint64()
			for q := range 8 {
				x := 256*(8*w+q) + int(r&255)
				a += ta[x]
				b += tb[x]
				r >>= 8
			}
		}
		if zeroCDF != nil {
			plus := invert(zeroCDF, float64(rng.Uint64()>>11)/(1<<53))
			b += int32(2*plus - z)
		}
		t.a[k], t.b[k] = a, b
	}
	return t
}

// signFlipSumsOneByOne is signFlipSums made one sample at a time.
func signFlipSumsOneByOne(nz []float64, samples int, rng *rand.PCG) [][4]float64 {
	m := len(nz)
	groups := (m + 3) / 4
	table := make([]float64, groups*16)
	for g := range groups {
		for mask := range 16 {
			var s float64
			for b := range 4 {
				i := 4*g + b
				if i >= m {
					break
				}
				if mask&(1<<b) != 0 {
					s -= nz[i]
				} else {
					s += nz[i]
				}
			}
			table[16*g+mask] = s
		}
	}
	words := (groups + 15) / 16
	table = append(table, make([]float64, (words*16-groups)*16)...)
	out := make([][4]float64, samples)
	for k := range samples {
		var s0, s1, s2, s3 float64
		for w := range words {
			r := rng.Uint64()
			t := table[256*w : 256*w+256]
			for q := 0; q < 4; q++ {
				u := t[64*q : 64*q+64]
				s0 += u[r&15]
				s1 += u[16+(r>>4)&15]
				s2 += u[32+(r>>8)&15]
				s3 += u[48+(r>>12)&15]
				r >>= 16
			}
		}
		out[k] = [4]float64{s0, s1, s2, s3}
	}
	return out
}

// flipIntervalOneByOne is flipInterval over newFlipTestOneByOne.
func flipIntervalOneByOne(d []float64, p0, alpha float64, exactMax, samples int, rng *rand.PCG) (lo, hi float64) {
	if len(d) == 0 {
		return 0, 0
	}
	t := newFlipTestOneByOne(d, exactMax, samples, rng)
	m := mean(d)
	lowest, highest := d[0], d[0]
	for _, v := range d {
		lowest, highest = math.Min(lowest, v), math.Max(highest, v)
	}
	m = min(max(m, lowest), highest)
	lo = t.endpoint(m, lowest, -1, p0, alpha)
	hi = t.endpoint(m, highest, +1, p0, alpha)
	if p0 >= alpha {
		lo, hi = math.Min(lo, 0), math.Max(hi, 0)
	}
	return round8(lo), round8(hi)
}

// flipDeltas makes n paired deltas of one kind: continuous values, heavy
// ties (a few distinct values, as rates and graded metrics give), mostly
// zeros (90 % and 99.9 %, the latter leaving fewer non-zero deltas than
// ExactMax at small n), zeros with negative zeros among them, or all zero.
func flipDeltas(r *rand.Rand, n int, kind string) []float64 {
	d := make([]float64, n)
	for i := range d {
		switch kind {
		case "continuous":
			d[i] = r.Float64() - 0.45
		case "ties":
			d[i] = float64(r.IntN(7)-3) / 3
		case "zeros90":
			if r.Float64() < 0.1 {
				d[i] = math.Round((r.Float64()-0.4)*1e3) / 1e3
			}
		case "zeros999":
			if r.Float64() < 0.001 {
				d[i] = r.Float64() - 0.3
			}
		case "negzero":
			switch r.IntN(3) {
			case 0:
				d[i] = math.Copysign(0, -1)
			case 1:
				d[i] = float64(r.IntN(5)) / 4
			}
		case "allzero":
		}
	}
	return d
}

// TestSignFlipWordByWordChangesNothing checks the p-value, every sample's
// sums, the interval and the state the stream is left in against the
// one-at-a-time samplers, bit for bit, at several sizes (some ending
// mid-word, up to 20,000 deltas at the default 10,000 samples, and samples
// that take three chunks, the last one short) and kinds
// of deltas, ties and zeros included. The 20,000 deltas (two thirds of
// the test's CPU) run only with the large tests (ASSAY_TEST_LARGE=1, CI's
// first pass); 4,097 deltas, mid-word and over many words, run every time.
func TestSignFlipWordByWordChangesNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	kinds := []string{"continuous", "ties", "zeros90", "zeros999", "negzero", "allzero"}
	sizes := []struct{ n, samples int }{{21, 10000}, {25, 7}, {64, 1}, {65, 300}, {1000, 10000}, {4097, 999}, {20000, 10000}, {130, 2*flipChunk + 77}}
	for _, sz := range sizes {
		if (testing.Short() || !largetest.Enabled()) && sz.n > 5000 {
			continue
		}
		for _, kind := range kinds {
			d := flipDeltas(r, sz.n, kind)
			seed := r.Uint64()
			name := fmt.Sprintf("n %d %s samples %d", sz.n, kind, sz.samples)

			p := signFlipP(d, 20, sz.samples, rand.NewPCG(1, seed))
			if want := signFlipPOneByOne(d, 20, sz.samples, rand.NewPCG(1, seed)); math.Float64bits(p) != math.Float64bits(want) {
				t.Fatalf("%s: p %v, one at a time %v", name, p, want)
			}
			nz := nonzero(d)
			got, gotRNG := rand.NewPCG(1, seed), rand.NewPCG(1, seed)
			var sums [][4]float64
			signFlipSums(nz, sz.samples, got, func(c [][4]float64) { sums = append(sums, c...) })
			if len(sums) != sz.samples {
				t.Fatalf("%s: %d sums, want %d", name, len(sums), sz.samples)
			}
			ref := signFlipSumsOneByOne(nz, sz.samples, gotRNG)
			for k := range ref {
				for j := range 4 {
					if math.Float64bits(sums[k][j]) != math.Float64bits(ref[k][j]) {
						t.Fatalf("%s: sample %d part %d is %v, one at a time %v", name, k, j, sums[k][j], ref[k][j])
					}
				}
			}
			samePCG(t, name+": stream after the p-value's samples", got, gotRNG)

			ft, ftRNG := rand.NewPCG(2, seed), rand.NewPCG(2, seed)
			ftest := newFlipTest(d, 20, sz.samples, ft)
			fref := newFlipTestOneByOne(d, 20, sz.samples, ftRNG)
			if ftest.exact != fref.exact || len(ftest.a) != len(fref.a) || len(ftest.b) != len(fref.b) {
				t.Fatalf("%s: exact %v with %d samples, one at a time exact %v with %d", name, ftest.exact, len(ftest.a), fref.exact, len(fref.a))
			}
			for k := range fref.a {
				if math.Float64bits(ftest.a[k]) != math.Float64bits(fref.a[k]) || ftest.b[k] != fref.b[k] {
					t.Fatalf("%s: sample %d is (%v, %d), one at a time (%v, %d)", name, k, ftest.a[k], ftest.b[k], fref.a[k], fref.b[k])
				}
			}
			if !ftest.exact {
				samePCG(t, name+": stream after the interval's samples", ft, ftRNG)
			}

			alphas := []float64{0.05, 0.10}
			if sz.n > 5000 {
				alphas = alphas[:1]
			}
			for _, alpha := range alphas {
				lo, hi := flipInterval(d, p, alpha, 20, sz.samples, rand.NewPCG(3, seed))
				wlo, whi := flipIntervalOneByOne(d, p, alpha, 20, sz.samples, rand.NewPCG(3, seed))
				if math.Float64bits(lo) != math.Float64bits(wlo) || math.Float64bits(hi) != math.Float64bits(whi) {
					t.Fatalf("%s alpha %v: interval [%v, %v], one at a time [%v, %v]", name, alpha, lo, hi, wlo, whi)
				}
			}
		}
	}
}

func samePCG(t *testing.T, what string, got, want *rand.PCG) {
	t.Helper()
	g, _ := got.MarshalBinary()
	w, _ := want.MarshalBinary()
	if string(g) != string(w) {
		t.Fatalf("%s: state %x, want %x", what, g, w)
	}
}

// TestPCGLanes checks that lane k of pcgLanes draws what the stream's
// draws k*stride to k*stride+stride-1 are, and that the stream is left
// after all of them; and pcgJump(n) against n single draws.
func TestPCGLanes(t *testing.T) {
	for _, c := range []struct{ samples, stride int }{{1, 1}, {2, 0}, {3, 1}, {5, 7}, {64, 33}, {10, 1563}} {
		seq := rand.NewPCG(9, uint64(c.stride))
		split := rand.NewPCG(9, uint64(c.stride))
		lanes := make([]rand.PCG, c.samples)
		pcgLanes(split, lanes, c.stride)
		for k := range lanes {
			for i := range c.stride {
				if got, want := lanes[k].Uint64(), seq.Uint64(); got != want {
					t.Fatalf("%+v: lane %d draw %d is %#x, the stream's %#x", c, k, i, got, want)
				}
			}
		}
		samePCG(t, fmt.Sprintf("%+v: stream after the lanes", c), split, seq)
	}
	step := rand.NewPCG(11, 12)
	for n := range 300 {
		b, _ := rand.NewPCG(11, 12).MarshalBinary()
		s := u128{binary.BigEndian.Uint64(b[4:12]), binary.BigEndian.Uint64(b[12:20])}
		mul, inc := pcgJump(uint64(n))
		s = s.mul(mul).add(inc)
		jumped := rand.NewPCG(s.hi, s.lo)
		samePCG(t, fmt.Sprintf("jump %d", n), jumped, step)
		step.Uint64()
	}
}
