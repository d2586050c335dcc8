package compare

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// flipTest is the paired sign-flip test of "the mean delta is theta", for
// any theta, with its sign assignments fixed once so that p(theta) is a
// deterministic function: all 2^n assignments when n <= exactMax, else
// samples random ones from a PCG stream fixed by the seed and the deltas.
// For each assignment s it keeps a = sum s_i*d_i and b = sum s_i, so the
// test statistic of the shifted deltas d_i - theta is |a - theta*b|.

type flipTest struct {
	d     []float64
	sum   float64
	a     []float64
	b     []int32
	exact bool
}

func newFlipTest(d []float64, exactMax, samples int, rng *rand.PCG) *flipTest {
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
	// number of non-zero deltas. The non-zero ones go in groups of 8: a
	// table of the 256 signed sums of each group, so a sample's sum of
	// signed deltas costs m/8 lookups, driven by 8 random bits each, and
	// its sum of signs is m minus twice the number of set bits. Item i is
	// driven by bit i%64 of word i/64; only the last word has bits beyond
	// m, and its groups past m hold zeros in every slot.
	nz := nonzero(d)
	z := n - len(nz)
	var zeroCDF []float64
	if z > 0 {
		zeroCDF = binomialCDF(z, 0.5)
	}
	m := len(nz)
	words := (m + 63) / 64
	lastMask := ^uint64(0)
	if r := m % 64; r != 0 {
		lastMask = 1<<r - 1
	}
	// Sample k draws its words, then its zero count, from its own lane of
	// the stream (the draws one sample at a time would make; see
	// pcgLanes). The samples are made in chunks, and those of a chunk a
	// word at a time: the 8 tables of word w are built once a chunk, stay
	// in cache while every sample of the chunk adds its w-th word through
	// them, and are then dropped, so memory follows the samples, not the
	// deltas. Each sample's sum adds the same terms in the same order as
	// it would alone: the sums are the same to the bit.
	stride := words
	if zeroCDF != nil {
		stride++
	}
	t.a = make([]float64, samples)
	t.b = make([]int32, samples) // set bits so far, then b
	chunk := min(samples, flipChunk)
	lanes := make([]rand.PCG, chunk)
	var tab [8 * 256]float64
	for k0 := 0; k0 < samples; k0 += chunk {
		nb := min(chunk, samples-k0)
		lanes := lanes[:nb]
		a, b := t.a[k0:k0+nb], t.b[k0:k0+nb]
		pcgLanes(rng, lanes, stride)
		for w := range words {
			for q := range 8 {
				g := 8*w + q
				signedSums(tab[256*q:256*q+256], nz[min(m, 8*g):min(m, 8*g+8)])
			}
			mask := ^uint64(0)
			if w == words-1 {
				mask = lastMask
			}
			addWord8(a, b, lanes, &tab, mask)
		}
		for k := range lanes {
			set := b[k]
			b[k] = int32(m) - 2*set
			if zeroCDF != nil {
				plus := invert(zeroCDF, float64(lanes[k].Uint64()>>11)/(1<<53))
				b[k] += int32(2*plus - z)
			}
		}
	}
	return t
}

// addWord8 draws one word from each lane, adds its 8 table lookups, 8
// bits each, in order to the lane's sum a, and the number of its bits set
// under mask to the lane's count b.
func addWord8(a []float64, b []int32, lanes []rand.PCG, t *[8 * 256]float64, mask uint64) {
	a, b = a[:len(lanes)], b[:len(lanes)]
	for k := range lanes {
		r := lanes[k].Uint64()
		b[k] += int32(bits.OnesCount64(r & mask))
		s := a[k]
		s += t[r&255]
		s += t[256+(r>>8)&255]
		s += t[512+(r>>16)&255]
		s += t[768+(r>>24)&255]
		s += t[1024+(r>>32)&255]
		s += t[1280+(r>>40)&255]
		s += t[1536+(r>>48)&255]
		s += t[1792+(r>>56)]
		a[k] = s
	}
}

// p is the two-sided p-value of "the mean delta is theta": the share of
// the assignments whose |sum of signed shifted deltas| is at least the
// observed one (relative tolerance 1e-9), exact or (count+1)/(samples+1).
func (t *flipTest) p(theta float64) float64 {
	var abs float64
	for _, v := range t.d {
		abs += math.Abs(v - theta)
	}
	thr := math.Abs(t.sum-float64(len(t.d))*theta) - 1e-9*abs
	count := 0
	for k, a := range t.a {
		if math.Abs(a-theta*float64(t.b[k])) >= thr {
			count++
		}
	}
	if t.exact {
		return float64(count) / float64(len(t.a))
	}
	return float64(count+1) / float64(len(t.a)+1)
}

// flipInterval is the 1-alpha confidence interval of the mean delta that
// the sign-flip test itself gives: the values theta it does not reject
// (p(theta) >= alpha), found by bisection from the mean delta (p = 1)
// outward on each side, within the range of the deltas. p0 is the test's
// p for theta = 0 as reported (signFlipP); 0 is used as an anchor of the
// bisection, so 0 lies inside the interval exactly when p0 >= alpha: a
// change is significant exactly when its interval excludes 0.
//
// Beyond the range of the deltas the test's p is constant (only the
// assignments of one sign reach the observed sum); when that p is still
// >= alpha (5 or fewer deltas) the test rejects no value on that side, and
// the interval is clamped to the range (widened to 0 when 0 is accepted).
// Endpoints are rounded to 8 decimals, never across 0.
func flipInterval(d []float64, p0, alpha float64, exactMax, samples int, rng *rand.PCG) (lo, hi float64) {
	if len(d) == 0 {
		return 0, 0
	}
	t := newFlipTest(d, exactMax, samples, rng)
	m := mean(d)
	lowest, highest := d[0], d[0]
	for _, v := range d {
		lowest, highest = math.Min(lowest, v), math.Max(highest, v)
	}
	m = min(max(m, lowest), highest) // the float mean can fall just outside
	lo = t.endpoint(m, lowest, -1, p0, alpha)
	hi = t.endpoint(m, highest, +1, p0, alpha)
	if p0 >= alpha { // by construction already; kept as the rule's guard
		lo, hi = math.Min(lo, 0), math.Max(hi, 0)
	}
	return round8(lo), round8(hi)
}

// round8 rounds an endpoint to 8 decimals (the bisection's own precision
// is about 1e-9 of the range), unless that would move it onto or across 0.
func round8(x float64) float64 {
	r := math.Round(x*1e8) / 1e8
	if (r > 0) != (x > 0) || (r < 0) != (x < 0) {
		return x
	}
	return r
}

// endpoint walks from the mean m (accepted) toward far, the edge of the
// deltas' range, and returns the last accepted value before the first
// rejected one, to a relative precision of 1e-9 of the range.
// side is -1 for the lower endpoint, +1 for the upper one.
func (t *flipTest) endpoint(m, far, side, p0, alpha float64) float64 {
	in, out := m, far
	zeroOnSide := side*(0-m) > 0 // 0 lies between m and far, or beyond far
	if zeroOnSide && math.Abs(0-m) <= math.Abs(far-m) {
		if p0 < alpha {
			return t.bisect(in, 0, alpha)
		}
		in = 0
	}
	if t.p(far) >= alpha {
		if zeroOnSide && p0 >= alpha && math.Abs(0-m) > math.Abs(far-m) {
			return 0
		}
		return far
	}
	return t.bisect(in, out, alpha)
}

// bisect narrows [in, out], p(in) >= alpha > p(out), and returns in.
func (t *flipTest) bisect(in, out, alpha float64) float64 {
	tol := 1e-9 * math.Max(math.Abs(out-in), 1e-300)
	for range 64 {
		if math.Abs(out-in) <= tol {
			break
		}
		mid := in + (out-in)/2
		if mid == in || mid == out {
			break
		}
		if t.p(mid) >= alpha {
			in = mid
		} else {
			out = mid
		}
	}
	return in
}

// binomialCDF returns P(K <= k) for K ~ Binomial(n, p), k = 0..n, computed
// from log-pmf terms (exact to float precision, no underflow of the tails
// that matter).
func binomialCDF(n int, p float64) []float64 {
	cdf := make([]float64, n+1)
	lp, lq := math.Log(p), math.Log1p(-p)
	ln1, _ := math.Lgamma(float64(n + 1))
	var acc float64
	for k := 0; k <= n; k++ {
		lk, _ := math.Lgamma(float64(k + 1))
		lnk, _ := math.Lgamma(float64(n - k + 1))
		acc += math.Exp(ln1 - lk - lnk + float64(k)*lp + float64(n-k)*lq)
		cdf[k] = acc
	}
	return cdf
}

// invert returns the smallest k with cdf[k] > u.
func invert(cdf []float64, u float64) int {
	k, _ := slices.BinarySearchFunc(cdf, u, func(c, u float64) int {
		if c <= u {
			return -1
		}
		return 1
	})
	if k >= len(cdf) {
		k = len(cdf) - 1
	}
	return k
}
