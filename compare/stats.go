package compare

import (
	"encoding/binary"
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
	count := 0
	signFlipSums(nz, samples, rng, func(sums [][4]float64) {
		for _, s := range sums {
			if math.Abs((s[0]+s[1])+(s[2]+s[3])) >= thr {
				count++
			}
		}
	})
	return float64(count+1) / float64(samples+1)
}

// flipChunk is how many samples the sign-flip samplers make at once
// (the default 10,000 in one chunk): their PCG lanes and sums (under 50
// bytes a sample) stay in cache while every sample of the chunk goes
// through one word's tables, and beyond the chunk memory does not grow
// with the number of samples.
const flipChunk = 16384

// signFlipSums draws samples random sign assignments of the non-zero
// deltas nz and calls each with the signed sums of successive chunks of
// them, in sample order, each sum in four parts (the sum is
// (s[0]+s[1])+(s[2]+s[3])); the slice is reused by the next chunk.
// Groups of 4 deltas: a table of the 16 signed sums of each group, so a
// sample costs m/4 lookups driven by 4 random bits each; 16 groups
// (256 table slots) take one 64-bit random word, and groups past m hold
// zeros in every slot.
//
// The samples of a chunk are made a word at a time: every sample draws
// its w-th word from its own lane of the stream (the draws one sample at
// a time would make; see pcgLanes), then adds it up through the tables of
// word w, which are built once a chunk and stay in cache; no sample's
// words and no table beyond the current word's are kept. Each sample
// keeps four accumulators, which break the chain of dependent additions;
// each gets the same terms in the same order as when the samples were
// made one at a time, so the sums are the same to the bit.
func signFlipSums(nz []float64, samples int, rng *rand.PCG, each func([][4]float64)) {
	m := len(nz)
	groups := (m + 3) / 4
	words := (groups + 15) / 16
	chunk := min(samples, flipChunk)
	lanes := make([]rand.PCG, chunk)
	acc := make([][4]float64, chunk)
	var sums [16]float64
	var table [16 * 256]float64
	for k0 := 0; k0 < samples; k0 += chunk {
		nb := min(chunk, samples-k0)
		lanes, acc := lanes[:nb], acc[:nb]
		pcgLanes(rng, lanes, words)
		clear(acc)
		for w := range words {
			for q := range 16 {
				g := 16*w + q
				signedSums(sums[:], nz[min(m, 4*g):min(m, 4*g+4)])
				shift := 4 * (q % 2) // the group's bits in its byte
				for v := range 256 {
					table[256*q+v] = sums[v>>shift&15]
				}
			}
			addWord4(acc, lanes, &table)
		}
		each(acc)
	}
}

// addWord4 draws one word from each lane and adds its 16 table lookups,
// 4 bits each, to the lane's four accumulators: accumulator j takes groups
// j, j+4, j+8, j+12 of the word, in that order. t holds a table of 256
// slots per group, indexed by the byte that holds the group's 4 bits (the
// group's 16 sums, each repeated for every value of the byte's other 4
// bits), so two lookups cost one byte of the word.
func addWord4(acc [][4]float64, lanes []rand.PCG, t *[16 * 256]float64) {
	acc = acc[:len(lanes)]
	for k := range lanes {
		r := lanes[k].Uint64()
		s := &acc[k]
		s0, s1, s2, s3 := s[0], s[1], s[2], s[3]
		var b uint8
		b = uint8(r)
		s0 += t[b]
		s1 += t[256+int(b)]
		b = uint8(r >> 8)
		s2 += t[512+int(b)]
		s3 += t[768+int(b)]
		b = uint8(r >> 16)
		s0 += t[1024+int(b)]
		s1 += t[1280+int(b)]
		b = uint8(r >> 24)
		s2 += t[1536+int(b)]
		s3 += t[1792+int(b)]
		b = uint8(r >> 32)
		s0 += t[2048+int(b)]
		s1 += t[2304+int(b)]
		b = uint8(r >> 40)
		s2 += t[2560+int(b)]
		s3 += t[2816+int(b)]
		b = uint8(r >> 48)
		s0 += t[3072+int(b)]
		s1 += t[3328+int(b)]
		b = uint8(r >> 56)
		s2 += t[3584+int(b)]
		s3 += t[3840+int(b)]
		*s = [4]float64{s0, s1, s2, s3}
	}
}

// signedSums fills sums (2^b slots, len(x) <= b) with the signed sums of
// x: slot mask holds the sum, in x's order starting from 0, of -x[i] where
// bit i of mask is set and +x[i] where it is clear; bits past len(x) are
// ignored. The sums are built a delta at a time, each prefix once, which
// gives each slot the additions a delta-by-delta loop over its bits makes.
func signedSums(sums []float64, x []float64) {
	sums[0] = 0
	for j, v := range x {
		h := 1 << j
		for p, a := range sums[:h] {
			sums[p] = a + v
			sums[p|h] = a - v
		}
	}
	low := 1<<len(x) - 1
	for mask := low + 1; mask < len(sums); mask++ {
		sums[mask] = sums[mask&low]
	}
}

// The constants of math/rand/v2's PCG: state = state*pcgMul + pcgInc
// (mod 2^128) before each draw. TestPCGLanes checks them against it.
const (
	pcgMulHi = 2549297995355413924
	pcgMulLo = 4865540595714422341
	pcgIncHi = 6364136223846793005
	pcgIncLo = 1442695040888963407
)

// u128 is an unsigned 128-bit integer; arithmetic wraps mod 2^128.
type u128 struct{ hi, lo uint64 }

func (a u128) mul(b u128) u128 {
	hi, lo := bits.Mul64(a.lo, b.lo)
	return u128{hi + a.hi*b.lo + a.lo*b.hi, lo}
}

func (a u128) add(b u128) u128 {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi, _ := bits.Add64(a.hi, b.hi, c)
	return u128{hi, lo}
}

// pcgJump returns the step of n draws of the PCG: the state n draws after
// s is mul*s + inc (the LCG's steps composed by squaring).
func pcgJump(n uint64) (mul, inc u128) {
	mul = u128{0, 1}
	stepMul, stepInc := u128{pcgMulHi, pcgMulLo}, u128{pcgIncHi, pcgIncLo}
	for ; n > 0; n >>= 1 {
		if n&1 != 0 {
			mul = mul.mul(stepMul)
			inc = inc.mul(stepMul).add(stepInc)
		}
		stepInc = stepMul.add(u128{0, 1}).mul(stepInc)
		stepMul = stepMul.mul(stepMul)
	}
	return mul, inc
}

// pcgLanes splits the next len(lanes)*stride draws of rng into lanes of
// stride draws each: lane k draws exactly the numbers that rng's draws
// k*stride to k*stride+stride-1 would be. A sampler whose sample k takes
// those draws can then draw word by word across all the samples and still
// get the numbers of drawing sample after sample. rng is left as if it
// had made all the draws.
func pcgLanes(rng *rand.PCG, lanes []rand.PCG, stride int) {
	var buf [20]byte
	b, _ := rng.AppendBinary(buf[:0])
	s := u128{binary.BigEndian.Uint64(b[4:12]), binary.BigEndian.Uint64(b[12:20])}
	mul, inc := pcgJump(uint64(stride))
	for k := range lanes {
		lanes[k].Seed(s.hi, s.lo)
		s = s.mul(mul).add(inc)
	}
	rng.Seed(s.hi, s.lo)
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
