package compare

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// The sign-flip samplers make their samples in blocks (for the cache);
// the p-values and intervals must be exactly those of making the samples
// one at a time, which the functions below do: they are the samplers as
// they were before the blocks, kept here as the reference.

// TestSignFlipBlocksChangeNothing compares the blocked samplers with the
// one-at-a-time reference, bit for bit, over sizes that end mid-word and
// mid-block, with and without zero deltas.
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
