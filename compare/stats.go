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

// sumDraws returns the sum of k values drawn uniformly with replacement
// from x. Each 64-bit PCG output gives two indices by Lemire's
// multiply-shift on its 32-bit halves, with his rejection step (taken with
// probability below len(x)/2^32), so the indices are exactly uniform.
func sumDraws(x []float64, k int, rng *rand.PCG) float64 {
	var s, s0, s1 float64 // two accumulators break the addition chain
	n := uint64(len(x))
	t := (1 << 32) % n
	for k >= 2 {
		r := rng.Uint64()
		m0, m1 := (r&0xffffffff)*n, (r>>32)*n
		if m0&0xffffffff < t || m1&0xffffffff < t {
			if m0&0xffffffff >= t {
				s += x[m0>>32]
				k--
			}
			if m1&0xffffffff >= t {
				s += x[m1>>32]
				k--
			}
			continue
		}
		s0 += x[m0>>32]
		s1 += x[m1>>32]
		k -= 2
	}
	s += s0 + s1
	for k > 0 {
		m := (rng.Uint64() & 0xffffffff) * n
		if m&0xffffffff >= t {
			s += x[m>>32]
			k--
		}
	}
	return s
}

// Bootstrap plan of one delta vector.
type plan int

const (
	planTrivial plan = iota // all deltas equal: the interval is that value
	planSparse              // few non-zero deltas: sample only those
	planDense               // sample all n
)

func planFor(d []float64) plan {
	if len(d) == 0 || allEqual(d) {
		return planTrivial
	}
	if float64(len(nonzero(d))) < sparseBelow*float64(len(d)) {
		return planSparse
	}
	return planDense
}

// bootstrapChunks is the fixed number of pieces the resamples of a dense
// group are split into (each with its own PCG stream), so they can run in
// parallel and still give the same numbers on any number of cores.
const bootstrapChunks = 4

// denseStream is the PCG stream of chunk c of the dense resamples of n
// pairs. It depends on n and c only, so every dense measure over the same
// n pairs sees the same resampled case indices (a joint bootstrap; each
// measure's interval is exactly what resampling it alone with that stream
// gives), and the work for several measures is shared.
func denseStream(n, c int) uint64 { return 0xb00757a9<<32 ^ uint64(n)<<4 ^ uint64(c) }

// rows lays out the deltas of several measures over the same n pairs row by
// row (pair i's deltas side by side), so one drawn index reads one cache
// line.
func rows(ds [][]float64) []float64 {
	j := len(ds)
	out := make([]float64, len(ds[0])*j)
	for k, d := range ds {
		for i, v := range d {
			out[i*j+k] = v
		}
	}
	return out
}

// denseMeans fills means[k][b] for b in [from, to) with the mean of
// measure k over a resample of n pair indices drawn with replacement;
// every measure uses the same indices. Indices come two per 64-bit PCG
// output, by Lemire's multiply-shift on each 32-bit half with his
// rejection step, so they are exactly uniform.
func denseMeans(r []float64, j, n int, means [][]float64, from, to int, rng *rand.PCG) {
	// Two accumulator rows (one per half of each random word) break the
	// chain of dependent additions.
	acc := make([]float64, 2*j)
	a0, a1 := acc[:j], acc[j:]
	un := uint64(n)
	t := (1 << 32) % un
	for b := from; b < to; b++ {
		clear(acc)
		k := n
		for k > 0 {
			x := rng.Uint64()
			m0 := (x & 0xffffffff) * un
			if m0&0xffffffff >= t {
				row := r[int(m0>>32)*j:][:j]
				for c, v := range row {
					a0[c] += v
				}
				k--
			}
			if k == 0 {
				break
			}
			m1 := (x >> 32) * un
			if m1&0xffffffff >= t {
				row := r[int(m1>>32)*j:][:j]
				for c, v := range row {
					a1[c] += v
				}
				k--
			}
		}
		for c := range means {
			means[c][b] = (a0[c] + a1[c]) / float64(n)
		}
	}
}

// sparseMeans fills means with resampled means of d when most deltas are
// zero. Zero deltas add nothing to a resample's sum, so it draws how many
// of the n draws land on a non-zero delta (Binomial(n, m/n), by inverting
// its exact CDF) and then only those draws: the same distribution as
// drawing all n, with much less work.
func sparseMeans(d []float64, means []float64, rng *rand.PCG) {
	n := len(d)
	nz := nonzero(d)
	cdf := binomialCDF(n, float64(len(nz))/float64(n))
	for b := range means {
		k := invert(cdf, float64(rng.Uint64()>>11)/(1<<53))
		means[b] = sumDraws(nz, k, rng) / float64(n)
	}
}

// percentileCI sorts means and returns their 2.5th and 97.5th percentiles
// by nearest rank.
func percentileCI(means []float64) (lo, hi float64) {
	slices.Sort(means)
	return nearestRank(means, 0.025), nearestRank(means, 0.975)
}

// bootstrapCI is the paired bootstrap 95% interval of the mean of d for
// one measure alone (Runs shares the dense work between measures, with
// identical results): resamples draws of len(d) deltas with replacement,
// percentile interval. sparseStream seeds the sparse sampler.
func bootstrapCI(d []float64, resamples int, seed, sparseStream uint64) (lo, hi float64) {
	switch planFor(d) {
	case planTrivial:
		if len(d) == 0 {
			return 0, 0
		}
		return d[0], d[0]
	case planSparse:
		means := make([]float64, resamples)
		sparseMeans(d, means, rand.NewPCG(seed, sparseStream))
		return percentileCI(means)
	}
	means := [][]float64{make([]float64, resamples)}
	r := rows([][]float64{d})
	for c := range bootstrapChunks {
		from, to := c*resamples/bootstrapChunks, (c+1)*resamples/bootstrapChunks
		denseMeans(r, 1, len(d), means, from, to, rand.NewPCG(seed, denseStream(len(d), c)))
	}
	return percentileCI(means[0])
}

// sparseBelow is the share of non-zero deltas under which bootstrapCI
// samples only the draws that land on them (a variable so tests can compare
// both samplers).
var sparseBelow = 0.5

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
