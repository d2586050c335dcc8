package compare

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// mean returns the arithmetic mean of x (0 for none).
func mean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// nonzero returns the non-zero values of d, in order.
func nonzero(d []float64) []float64 {
	out := make([]float64, 0, len(d))
	for _, v := range d {
		if v != 0 {
			out = append(out, v)
		}
	}
	return out
}

// bootstrapChunks is the fixed number of pieces the resamples of a group
// are split into (each with its own PCG stream), so they can run in
// parallel and still give the same numbers on any number of cores.
const bootstrapChunks = 4

// bootStream is the PCG stream of chunk c of the resamples of a group of
// measures over n pairs.
func bootStream(n, c int) uint64 { return 0xb00757a9<<32 ^ uint64(n)<<4 ^ uint64(c) }

// skipZeroRows lets the sampler skip the pairs whose deltas are all zero (a
// variable so that tests can compare with drawing every pair).
var skipZeroRows = true

// group is the bootstrap work for measures over the same n pairs: their
// deltas, one column per measure, keeping only the pairs where some delta is
// not zero.
type group struct {
	n    int
	cols [][]float64 // cols[k][i]: measure k at the i-th kept pair
	kept int
	cdf  []float64 // CDF of Binomial(n, kept/n); nil when every pair is kept
}

func newGroup(ds [][]float64) *group {
	g := &group{n: len(ds[0]), cols: make([][]float64, len(ds))}
	for i := range g.n {
		any := !skipZeroRows
		for _, d := range ds {
			any = any || d[i] != 0
		}
		if !any {
			continue
		}
		for k, d := range ds {
			g.cols[k] = append(g.cols[k], d[i])
		}
		g.kept++
	}
	if g.kept < g.n {
		g.cdf = binomialCDF(g.n, float64(g.kept)/float64(g.n))
	}
	return g
}

// means fills means[k][b], for b in [from, to), with the mean of measure k
// over one resample: n pairs drawn with replacement, the same pairs for
// every measure of the group (the case-resampling bootstrap). Pairs whose
// deltas are all zero add nothing to any sum, so the sampler first draws
// how many of the n draws land on a kept pair (Binomial(n, kept/n), by
// inverting its exact CDF) and then draws only those, uniformly among the
// kept pairs: the same distribution as drawing all n pairs. Indices come two
// per 64-bit PCG output, by Lemire's multiply-shift on each 32-bit half with
// his rejection step, so they are exactly uniform.
func (g *group) means(means [][]float64, from, to int, rng *rand.PCG) {
	un := uint64(g.kept)
	t := (1 << 32) % un
	idx := make([]int32, g.n)
	for b := from; b < to; b++ {
		k := g.kept
		if g.cdf != nil {
			k = invert(g.cdf, float64(rng.Uint64()>>11)/(1<<53))
		}
		idx := drawIndices(idx[:k], un, t, rng)
		for c, col := range g.cols {
			// Four accumulators break the chain of dependent additions.
			var s0, s1, s2, s3 float64
			i := 0
			for ; i+4 <= len(idx); i += 4 {
				s0 += col[idx[i]]
				s1 += col[idx[i+1]]
				s2 += col[idx[i+2]]
				s3 += col[idx[i+3]]
			}
			for ; i < len(idx); i++ {
				s0 += col[idx[i]]
			}
			means[c][b] = ((s0 + s1) + (s2 + s3)) / float64(g.n)
		}
	}
}

// drawIndices fills idx with indices uniform in [0, un): two per 64-bit
// PCG output, by Lemire's multiply-shift on each 32-bit half, rejecting a
// half whose low word is below t = 2^32 mod un (rare: probability un/2^32).
func drawIndices(idx []int32, un, t uint64, rng *rand.PCG) []int32 {
	k, pos := len(idx), 0
	for pos+2 <= k {
		x := rng.Uint64()
		m0, m1 := (x&0xffffffff)*un, (x>>32)*un
		if m0&0xffffffff < t || m1&0xffffffff < t {
			if m0&0xffffffff >= t {
				idx[pos] = int32(m0 >> 32)
				pos++
			}
			if m1&0xffffffff >= t && pos < k {
				idx[pos] = int32(m1 >> 32)
				pos++
			}
			continue
		}
		idx[pos] = int32(m0 >> 32)
		idx[pos+1] = int32(m1 >> 32)
		pos += 2
	}
	for pos < k {
		if m := (rng.Uint64() & 0xffffffff) * un; m&0xffffffff >= t {
			idx[pos] = int32(m >> 32)
			pos++
		}
	}
	return idx
}

// percentileCI sorts means and returns their 2.5th and 97.5th percentiles
// by nearest rank.
func percentileCI(means []float64) (lo, hi float64) {
	slices.Sort(means)
	return nearestRank(means, 0.025), nearestRank(means, 0.975)
}

// bootstrapCI is the paired bootstrap 95% interval of the mean of d
// resampled alone: resamples draws of len(d) deltas with replacement,
// percentile interval, in bootstrapChunks chunks seeded from seed.
func bootstrapCI(d []float64, resamples int, seed uint64) (lo, hi float64) {
	if len(d) == 0 {
		return 0, 0
	}
	if allEqual(d) {
		return d[0], d[0]
	}
	g := newGroup([][]float64{d})
	means := [][]float64{make([]float64, resamples)}
	for c := range bootstrapChunks {
		from, to := c*resamples/bootstrapChunks, (c+1)*resamples/bootstrapChunks
		g.means(means, from, to, rand.NewPCG(seed, bootStream(len(d), c)))
	}
	return percentileCI(means[0])
}

// nearestRank returns the p-quantile of sorted x: the value of rank
// ceil(p*len(x)) (1-based).
func nearestRank(sorted []float64, p float64) float64 {
	r := int(math.Ceil(p * float64(len(sorted))))
	if r < 1 {
		r = 1
	}
	if r > len(sorted) {
		r = len(sorted)
	}
	return sorted[r-1]
}

func allEqual(d []float64) bool {
	for _, v := range d[1:] {
		if v != d[0] {
			return false
		}
	}
	return true
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

// signFlipP returns the two-sided p-value of the paired sign-flip
// (randomization) test of mean delta = 0: the share of sign assignments
// whose |sum| is at least the observed |sum|. Zero deltas do not change
// any sum and are dropped. With m <= exactMax non-zero deltas every one of
// the 2^m assignments is enumerated (p = count/2^m); otherwise samples
// random assignments are drawn and p = (count+1)/(samples+1).
func signFlipP(d []float64, exactMax, samples int, rng *rand.PCG) float64 {
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

// percentile returns the nearest-rank p-th percentile (p in [0, 100]) of x
// (0 for none); x is not changed.
func percentile(x []float64, p float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return nearestRank(s, p/100)
}
