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
	// The samples are made in blocks, as in newFlipTest: a block's words
	// are drawn in the order one sample at a time would draw them, then
	// added up one word (256 table slots) at a time for every sample of the
	// block. Each sample keeps four accumulators, which break the chain of
	// dependent additions; each gets the same terms in the same order as
	// when the samples were made one at a time.
	block := min(samples, flipBlock)
	rnd := make([]uint64, words*block)
	acc := make([][4]float64, block)
	count := 0
	for k0 := 0; k0 < samples; k0 += block {
		nb := min(block, samples-k0)
		for k := range nb {
			for w := range words {
				rnd[w*block+k] = rng.Uint64()
			}
		}
		clear(acc)
		for w := range words {
			t := table[256*w : 256*w+256]
			for k, r := range rnd[w*block : w*block+nb] {
				s0, s1, s2, s3 := acc[k][0], acc[k][1], acc[k][2], acc[k][3]
				for q := 0; q < 4; q++ {
					u := t[64*q : 64*q+64]
					s0 += u[r&15]
					s1 += u[16+(r>>4)&15]
					s2 += u[32+(r>>8)&15]
					s3 += u[48+(r>>12)&15]
					r >>= 16
				}
				acc[k] = [4]float64{s0, s1, s2, s3}
			}
		}
		for _, s := range acc[:nb] {
			if math.Abs((s[0]+s[1])+(s[2]+s[3])) >= thr {
				count++
			}
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
