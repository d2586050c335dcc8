package metric

import (
	"math"
	"strings"
)

// This file holds the measures of trec_eval's all_trec set that Spec does
// not expose. Each follows trec_eval v10.0; the comment gives the rule.

// Bpref: with N = judged non-relevant docs (0 <= grade < ℓ, retrieved or
// not), walk the ranks skipping unjudged ones; at each relevant rank add
// 1 − min(nr,R)/min(N,R) when nr > 0 judged non-relevant ranks were seen
// above it, else 1. Divided by R; 0 when R = 0.
func (t *Topic) Bpref() float64 {
	if t.r == 0 {
		return 0
	}
	nr := 0
	sum := 0.0
	den := float64(min(t.nonrel, t.r))
	for _, l := range t.Labels {
		switch {
		case l < 0:
		case l >= t.Threshold:
			if nr > 0 {
				sum += 1 - float64(min(nr, t.r))/den
			} else {
				sum += 1
			}
		default:
			nr++
		}
	}
	return sum / float64(t.r)
}

// IPrecAtRecall is the interpolated precision at recall x (v10 rule): with
// c = round-half-away(x·R), 0 when c > RR, otherwise the highest precision
// at any rank j >= the rank of the c-th relevant document (rank 1 when
// c = 0). With an empty ranking the value is 0/0 (NaN), as in trec_eval.
func (t *Topic) IPrecAtRecall(x float64) float64 {
	c := int(math.Round(x * float64(t.r)))
	if c > t.rr {
		return 0
	}
	if t.n == 0 {
		return math.NaN()
	}
	t.prepMaxPrec()
	s := 1
	if c > 0 {
		s = t.rankOfRel(c)
	}
	return t.maxPrec[s]
}

// rankOfRel returns the rank where trec_eval's backward walk counts c
// relevant documents (1 <= c <= RR): the rank of the c-th relevant
// document when Threshold >= 0 (see relBack).
func (t *Topic) rankOfRel(c int) int {
	// relBack is non-decreasing: binary search for the first k with relBack(k) >= c.
	lo, hi := 1, t.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.relBack(m) >= c {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

func (t *Topic) prepMaxPrec() {
	if t.maxPrecOK {
		return
	}
	t.maxPrecOK = true
	t.maxPrec = append(t.maxPrec[:0], make([]float64, t.n+2)...)
	best := 0.0
	for j := t.n; j >= 1; j-- {
		if p := float64(t.relBack(j)) / float64(j); p > best {
			best = p
		}
		t.maxPrec[j] = best
	}
}

// ElevenPtAvg is trec_eval's 11pt_avg over the given recall points (the
// default points are 0.0, 0.1, ..., 1.0): each point x becomes a relevant
// count c = round-half-away(x·R); walking the ranking from the bottom with
// the running interpolated precision, the point's value is taken when the
// count of relevant documents at or above the rank equals c (points with
// c > RR give 0). Values are summed from the last point to the first, then
// divided by the number of points. As in trec_eval, the points are meant to
// be ascending: other orders give trec_eval's (unsorted) answer.
func (t *Topic) ElevenPtAvg(points []float64) float64 {
	if len(points) == 0 {
		return 0
	}
	var buf [16]int
	cuts := buf[:0]
	for _, x := range points {
		cuts = append(cuts, int(math.Round(x*float64(t.r))))
	}
	cur := len(cuts) - 1
	for cur >= 0 && cuts[cur] > t.rr {
		cur--
	}
	precis := float64(t.rr) / float64(t.n)
	ip := precis
	rs := t.rr
	sum := 0.0
	for i := t.n; i > 0 && rs > 0; i-- {
		precis = float64(rs) / float64(i)
		if ip < precis {
			ip = precis
		}
		if t.rel(t.Labels[i-1]) {
			for cur >= 0 && rs == cuts[cur] {
				sum += ip
				cur--
			}
			rs--
		}
	}
	for cur >= 0 {
		sum += ip
		cur--
	}
	return sum / float64(len(points))
}

// Relstring is one character per rank for ranks 1..min(length,n): the grade
// digit for 0..9, '>' above 9, '-' for no judgment, '.' for a negative grade.
func (t *Topic) Relstring(length int) string {
	k := min(length, t.n)
	var b strings.Builder
	b.Grow(max(k, 0))
	for i := 0; i < k; i++ {
		switch l := t.Labels[i]; {
		case l == -1:
			b.WriteByte('-')
		case l < 0:
			b.WriteByte('.')
		case l > 9:
			b.WriteByte('>')
		default:
			b.WriteByte(byte('0' + l))
		}
	}
	return b.String()
}

// InfAP is inferred AP (trec_eval infAP). Walking the ranks with 0-based
// index j, skipping unpooled docs, counting pooled-unjudged u and judged
// non-relevant nr: a relevant doc with r relevant above adds 1 when j = 0,
// else 1/(j+1) + (j/(j+1))·((r+nr+u)/j)·((r+ε)/(r+nr+2ε)), ε = 1e-5. Divided by R.
func (t *Topic) InfAP() float64 {
	if t.r == 0 {
		return 0
	}
	const eps = 0.00001
	sum := 0.0
	r, nr, u := 0, 0, 0
	for j, l := range t.Labels {
		switch {
		case l == -1:
		case l < 0:
			u++
		case l >= t.Threshold:
			if j == 0 {
				sum += 1
			} else {
				fj := float64(j)
				sum += 1/(fj+1) + (fj/(fj+1))*(float64(r+nr+u)/fj)*((float64(r)+eps)/(float64(r+nr)+2*eps))
			}
			r++
		default:
			nr++
		}
	}
	return sum / float64(t.r)
}

// RPrecMult is precision at rank c = trunc(x·R + 0.9) (trec_eval Rprec_mult_x):
// RR/c when c > n, else the relevant ranks among 1..c as trec_eval's
// backward walk counts them (relBack; 0 where the walk stopped), over c.
// 0 when c = 0.
func (t *Topic) RPrecMult(x float64) float64 {
	c := int(x*float64(t.r) + 0.9)
	if c <= 0 {
		return 0
	}
	if c > t.n {
		return float64(t.rr) / float64(c)
	}
	return float64(max(t.relBack(c), 0)) / float64(c)
}

// Utility is a·RR + b·(n−RR) + c·(R−RR) + d·(N + RR − n − R) with N the
// collection size (trec_eval -N).
func (t *Topic) Utility(a, b, c, d float64, collection int) float64 {
	rr, n, r := float64(t.rr), float64(t.n), float64(t.r)
	return a*rr + b*(n-rr) + c*(r-rr) + d*(float64(collection)+rr-n-r)
}

// BinG is Σ_{relevant i} 1/log2(2 + non-relevant ranks above i), divided by
// R; 0 when no rank is relevant (+Inf, as map, when R = 0 but some rank is:
// see AP).
func (t *Topic) BinG() float64 {
	sum := 0.0
	rel := 0
	for i, l := range t.Labels {
		if t.rel(l) {
			sum += 1 / disc(i-rel)
			rel++
		}
	}
	if rel == 0 {
		return 0
	}
	return sum / float64(t.r)
}

// SetP is RR/n (0 when n = 0).
func (t *Topic) SetP() float64 {
	if t.n == 0 {
		return 0
	}
	return float64(t.rr) / float64(t.n)
}

// SetRecall is RR/R (0 when R = 0).
func (t *Topic) SetRecall() float64 {
	if t.r == 0 {
		return 0
	}
	return float64(t.rr) / float64(t.r)
}

// SetRelativeP is RR/min(n,R) (0 when that is 0).
func (t *Topic) SetRelativeP() float64 {
	d := min(t.n, t.r)
	if d == 0 {
		return 0
	}
	return float64(t.rr) / float64(d)
}

// SetMap is RR²/(n·R), computed as (RR·RR)/(n·R).
func (t *Topic) SetMap() float64 {
	if t.n == 0 || t.r == 0 {
		return 0
	}
	return (float64(t.rr) * float64(t.rr)) / (float64(t.n) * float64(t.r))
}

// SetF is (x+1)·P·Rc/(x·P + Rc) with P = RR/n and Rc = RR/R; x plays the
// role of β². 0 when RR = 0.
func (t *Topic) SetF(x float64) float64 {
	if t.rr == 0 {
		return 0
	}
	p, rc := t.SetP(), t.SetRecall()
	return (x + 1) * p * rc / (x*p + rc)
}

// Unj is the number of ranks among 1..min(k,n) with a negative label
// (unjudged), divided by k.
func (t *Topic) Unj(k int) float64 {
	if k <= 0 {
		return 0
	}
	c := 0
	for i := 0; i < k && i < t.n; i++ {
		if t.Labels[i] < 0 {
			c++
		}
	}
	return float64(c) / float64(k)
}

// RBPResid is the residual of rank-biased precision: when some retrieved
// document has a negative label, p^n + (1−p)·Σ_{i: label<0} p^(i−1); else 0.
func (t *Topic) RBPResid(p float64) float64 {
	if t.nonpool+t.unjudged == 0 {
		return 0
	}
	sum := 0.0
	w := 1.0
	for _, l := range t.Labels {
		if l < 0 {
			sum += w
		}
		w *= p
	}
	return w + (1-p)*sum
}

// YAAP is trec_eval's yaap ("yet another average precision", Robertson):
// ln((1 + s) / (1 + R − s)) with s = Σ_{i relevant} rels(i)/i, the sum AP
// divides by R. Not in all_trec; averaged like AP.
func (t *Topic) YAAP() float64 {
	sum := 0.0
	rel := 0
	for i, l := range t.Labels {
		if t.rel(l) {
			rel++
			sum += float64(rel) / float64(i+1)
		}
	}
	return math.Log((1 + sum) / (1 + float64(t.r) - sum))
}
