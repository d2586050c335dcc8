package compare

import (
	"math"
	"slices"
)

// Holm returns Holm's step-down adjusted p-values for a family of raw
// p-values, in the order given: the i-th smallest p (1-based rank r among
// m) is multiplied by m-r+1, the results are made non-decreasing in rank
// order and capped at 1. Rejecting every hypothesis whose adjusted p is
// below alpha controls the family-wise error rate at alpha under any
// dependence between the tests. A NaN p stays NaN and does not count in m.
func Holm(p []float64) []float64 {
	out := make([]float64, len(p))
	idx := make([]int, 0, len(p))
	for i, v := range p {
		if math.IsNaN(v) {
			out[i] = math.NaN()
			continue
		}
		idx = append(idx, i)
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	m := len(idx)
	running := 0.0
	for r, i := range idx {
		adj := math.Min(1, float64(m-r)*p[i])
		running = math.Max(running, adj)
		out[i] = running
	}
	return out
}

// McNemarExact returns the two-sided exact p-value of McNemar's test on
// the discordant pairs of a paired binary outcome: b pairs went one way
// (pass -> fail), c the other. Under "no change" each discordant pair is
// equally likely to go either way, so min(b, c) is Binomial(b+c, 1/2) and
// p = min(1, 2 P(X <= min(b, c))). With no discordant pair p is 1.
func McNemarExact(b, c int) float64 {
	n := b + c
	if n <= 0 || b < 0 || c < 0 {
		return 1
	}
	return math.Min(1, 2*binomCDFHalf(min(b, c), n))
}

// McNemarOneSided returns the one-sided exact p-value that the b pairs
// going one way outnumber the c going the other by chance:
// P(X >= b) for X ~ Binomial(b+c, 1/2). With no discordant pair p is 1.
func McNemarOneSided(b, c int) float64 {
	n := b + c
	if n <= 0 || b < 0 || c < 0 {
		return 1
	}
	if b == 0 {
		return 1
	}
	return math.Min(1, 1-binomCDFHalf(b-1, n))
}

// binomCDFHalf returns P(X <= k) for X ~ Binomial(n, 1/2), summed in log
// space so that large n neither overflows nor underflows to a wrong 0.
func binomCDFHalf(k, n int) float64 {
	if k < 0 {
		return 0
	}
	if k >= n {
		return 1
	}
	lnHalfN := float64(n) * math.Log(0.5)
	var s float64
	for i := 0; i <= k; i++ {
		s += math.Exp(lnChoose(n, i) + lnHalfN)
	}
	return math.Min(1, s)
}

// lnChoose returns ln C(n, k).
func lnChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// NormalQuantile returns the p-quantile of the standard normal
// distribution (NaN outside (0, 1)).
func NormalQuantile(p float64) float64 {
	if !(p > 0 && p < 1) {
		return math.NaN()
	}
	return math.Sqrt2 * math.Erfinv(2*p-1)
}

// MDE returns the minimum detectable effect of a paired comparison of n
// cases whose paired deltas have standard deviation sd: the smallest true
// mean delta that a two-sided test at level alpha detects with the given
// power, by the normal approximation
//
//	MDE = (z(1 - alpha/2) + z(power)) * sd / sqrt(n)
//
// It is +Inf for n < 2 and 0 when sd is 0 (any change is seen).
func MDE(sd float64, n int, alpha, power float64) float64 {
	if n < 2 {
		return math.Inf(1)
	}
	return (NormalQuantile(1-alpha/2) + NormalQuantile(power)) * sd / math.Sqrt(float64(n))
}

// CasesNeeded returns the number of paired cases that a two-sided test at
// level alpha needs to detect a true mean delta of size delta with the given
// power, when the paired deltas have standard deviation sd (the normal
// approximation that MDE inverts, rounded up). It is 0 when delta is 0 or
// sd is not positive and finite.
func CasesNeeded(sd, delta, alpha, power float64) int {
	delta = math.Abs(delta)
	if delta == 0 || !(sd > 0) || math.IsInf(sd, 0) {
		return 0
	}
	z := NormalQuantile(1-alpha/2) + NormalQuantile(power)
	n := math.Ceil(z * z * sd * sd / (delta * delta))
	if n > math.MaxInt32 {
		return math.MaxInt32
	}
	return max(2, int(n))
}
