package metric

import (
	"math"
	"slices"
)

// Topic is one topic (one case) as every measure sees it: the label of each
// ranked document and the grades of all judgments. Both Spec.Eval and the
// trec_eval-compatible command build a Topic and call the same methods, so the
// numbers cannot drift apart.
//
// Labels follow trec_eval: -1 means the document has no judgment for this
// topic ("not in pool"), -2 means it was judged with a negative grade ("in the
// pool, unjudged"), and a value >= 0 is the grade. A rank is relevant when its
// label is >= Threshold.
//
// Call Prepare after filling (or refilling) the exported fields and before
// calling any measure. A Topic may be reused for the next topic: Prepare
// keeps its scratch buffers.
type Topic struct {
	Labels    []int // label per rank, rank 1 first
	Judgments []int // grade of every judgment of the topic (qrels lines), any order
	Threshold int   // relevance threshold ℓ (trec_eval -l); Spec.Eval uses 1 by default

	n, r, rr int
	nonrel   int   // judged docs with 0 <= grade < Threshold
	nonpool  int   // ranks labelled -1
	unjudged int   // ranks labelled -2
	cum      []int // cum[i] = ranks among 1..i with label >= Threshold; len n+1
	off      int   // rr − cum[n]: < 0 only when Threshold < 0 (see relBack)
	ideal    []int // grades > 0, descending

	dcgOK   bool
	dcgPre  []float64 // dcgPre[k] = linear DCG of ranks 1..k, summed in rank order
	idcgPre []float64 // idcgPre[k] = linear DCG of the first k ideal grades

	maxPrecOK bool
	maxPrec   []float64 // maxPrec[j] = highest precision at any rank >= j
}

// Prepare computes the counts every measure shares. It must be called after
// the exported fields change.
func (t *Topic) Prepare() {
	t.n = len(t.Labels)
	t.maxPrecOK = false
	t.dcgOK = false
	t.r, t.nonrel = 0, 0
	t.ideal = t.ideal[:0]
	for _, g := range t.Judgments {
		switch {
		case g < 0:
		case g >= t.Threshold:
			t.r++
		default:
			t.nonrel++
		}
		if g > 0 {
			t.ideal = append(t.ideal, g)
		}
	}
	sortDesc(t.ideal)
	t.cum = append(t.cum[:0], 0)
	t.rr, t.nonpool, t.unjudged = 0, 0, 0
	all := 0
	for _, l := range t.Labels {
		switch {
		case l == -1:
			t.nonpool++
		case l < 0:
			t.unjudged++
		case l >= t.Threshold:
			t.rr++
		}
		if l >= t.Threshold {
			all++
		}
		t.cum = append(t.cum, all)
	}
	t.off = t.rr - all
}

// relBack is the number of relevant ranks among 1..k (0 <= k <= n) as
// trec_eval's backward walks (iprec_at_recall, 11pt_avg, Rprec_mult) count
// them: they start from num_rel_ret at rank n and take one off at each rank
// whose label is >= Threshold. With a negative Threshold num_rel_ret leaves
// out the unjudged ranks (labels -1, -2) that the per-rank test counts, so
// the walk's count is cum[k] + off, which can reach 0 (where the walk
// stops) above the first relevant rank. For Threshold >= 0, off is 0.
func (t *Topic) relBack(k int) int { return t.cum[k] + t.off }

// sortDesc sorts in descending order without allocating.
func sortDesc(a []int) {
	slices.Sort(a)
	slices.Reverse(a)
}

// log2 is the discount function of the DCG family: glibc's log2, which
// trec_eval calls, for the integers of discTab, else math.Log2.
func log2(x float64) float64 {
	if x >= 2 && x <= float64(len(discTab)+1) && x == math.Trunc(x) {
		return discTab[int(x)-2]
	}
	return math.Log2(x)
}

//go:generate go run gen_log2.go

// discTab[i] = log2(i+2), the discount of 0-based rank i, as glibc's log2
// gives it: math.Log2 is one unit in the last place away from glibc at
// about 2% of these arguments (3 and 9 among them), which is enough to
// round an exact 4-decimal tie of trec_eval's output the other way. The
// values that differ are in log2_glibc.go, made by gen_log2.go with the
// libm trec_eval runs on; past the table math.Log2 is used.
var discTab = func() []float64 {
	t := make([]float64, 1<<14)
	for i := range t {
		n := i + 2
		if b, ok := glibcLog2[n]; ok {
			t[i] = math.Float64frombits(b)
		} else {
			t[i] = math.Log2(float64(n))
		}
	}
	return t
}()

// disc returns log2(i+2).
func disc(i int) float64 {
	if i < len(discTab) {
		return discTab[i]
	}
	return math.Log2(float64(i + 2))
}

func (t *Topic) rel(l int) bool { return l >= t.Threshold }

// relAt returns the number of relevant ranks among 1..k (k may exceed n).
func (t *Topic) relAt(k int) int {
	if k > t.n {
		k = t.n
	}
	if k <= 0 {
		return 0
	}
	return t.cum[k]
}

// NumRet is the length of the ranking (trec_eval num_ret).
func (t *Topic) NumRet() int { return t.n }

// NumRel is R, the number of judgments with a grade >= Threshold (num_rel).
func (t *Topic) NumRel() int { return t.r }

// NumRelRet is the number of relevant ranks (num_rel_ret).
func (t *Topic) NumRelRet() int { return t.rr }

// RelevantRanks is the number of ranks whose label is >= Threshold: RR, plus
// under a negative Threshold the unjudged ranks trec_eval's per-rank tests
// count (the count P, recall and success reach at the end of the ranking).
func (t *Topic) RelevantRanks() int { return t.cum[t.n] }

// UnjudgedRanks is the number of ranks labelled -1 or -2 (the count unj
// reaches at the end of the ranking).
func (t *Topic) UnjudgedRanks() int { return t.nonpool + t.unjudged }

// NumNonrelJudgedRet is the number of ranks with 0 <= label < Threshold.
func (t *Topic) NumNonrelJudgedRet() int { return t.n - t.nonpool - t.unjudged - t.rr }

// AP is average precision (trec_eval map): the sum over relevant ranks i of
// (relevant ranks up to i)/i, divided by R; 0 when no rank is relevant.
// As in trec_eval, only that test guards the division: under a negative
// Threshold a topic with R = 0 can have relevant (unjudged) ranks, and its
// AP is then +Inf.
func (t *Topic) AP() float64 {
	sum, rel := t.apSum(t.n)
	if rel == 0 {
		return 0
	}
	return sum / float64(t.r)
}

// APCut is map_cut_k: AP with only ranks 1..k contributing; still divided by
// R. 0 when R = 0.
func (t *Topic) APCut(k int) float64 {
	if t.r == 0 {
		return 0
	}
	sum, rel := t.apSum(k)
	if rel == 0 {
		return 0
	}
	return sum / float64(t.r)
}

// apSum returns Σ (relevant ranks up to i)/i over the relevant ranks i <= k,
// and how many there are.
func (t *Topic) apSum(k int) (float64, int) {
	if k > t.n {
		k = t.n
	}
	sum := 0.0
	rel := 0
	for i := 0; i < k; i++ {
		if t.rel(t.Labels[i]) {
			rel++
			sum += float64(rel) / float64(i+1)
		}
	}
	return sum, rel
}

// RPrec is R-precision: relevant ranks among 1..min(n,R), divided by R.
func (t *Topic) RPrec() float64 {
	k := min(t.n, t.r)
	if k == 0 {
		return 0
	}
	return float64(t.cum[k]) / float64(t.r)
}

// RecipRank is 1/i for the first relevant rank i over the whole ranking, or 0.
func (t *Topic) RecipRank() float64 {
	for i, l := range t.Labels {
		if t.rel(l) {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// P is precision at k: relevant ranks among 1..min(k,n), divided by k.
func (t *Topic) P(k int) float64 {
	if k <= 0 {
		return 0
	}
	return float64(t.relAt(k)) / float64(k)
}

// Recall is recall at k: relevant ranks among 1..min(k,n), divided by R; 0 when R = 0.
func (t *Topic) Recall(k int) float64 {
	if t.r == 0 {
		return 0
	}
	return float64(t.relAt(k)) / float64(t.r)
}

// Success is 1 when a relevant document is among ranks 1..k, else 0.
func (t *Topic) Success(k int) float64 {
	if t.relAt(k) > 0 {
		return 1
	}
	return 0
}

// RelativeP is relevant ranks among 1..min(k,n), divided by min(k,R); 0 when R = 0.
func (t *Topic) RelativeP(k int) float64 {
	if t.r == 0 || k <= 0 {
		return 0
	}
	return float64(t.relAt(k)) / float64(min(k, t.r))
}

// NDCGCut is trec_eval's ndcg_cut_k: DCG@k = Σ_{i<=min(k,n), L[i]>0} gain(L[i])/log2(i+1)
// over an ideal list of the positive judgments sorted by grade descending and
// also cut at k. gain nil means linear (the grade itself). When IDCG@k = 0 the
// value is DCG@k (which is then 0).
func (t *Topic) NDCGCut(k int, gain func(int) float64) float64 {
	if gain == nil {
		t.prepDCG()
		dcg := t.dcgPre[min(k, t.n)]
		idcg := t.idcgPre[min(k, len(t.ideal))]
		if idcg > 0 {
			return dcg / idcg
		}
		return dcg
	}
	dcg := 0.0
	for i := 0; i < k && i < t.n; i++ {
		if l := t.Labels[i]; l > 0 {
			dcg += gain(l) / disc(i)
		}
	}
	idcg := 0.0
	for i := 0; i < k && i < len(t.ideal); i++ {
		idcg += gain(t.ideal[i]) / disc(i)
	}
	if idcg > 0 {
		return dcg / idcg
	}
	return dcg
}

// prepDCG fills the linear-gain DCG prefix sums. A prefix sum is the same
// sequence of additions as summing ranks 1..k, so every cutoff reads the
// exact value a direct loop would give.
func (t *Topic) prepDCG() {
	if t.dcgOK {
		return
	}
	t.dcgOK = true
	t.dcgPre = append(t.dcgPre[:0], 0)
	s := 0.0
	for i, l := range t.Labels {
		if l > 0 {
			s += float64(l) / disc(i)
		}
		t.dcgPre = append(t.dcgPre, s)
	}
	t.idcgPre = append(t.idcgPre[:0], 0)
	s = 0
	for i, g := range t.ideal {
		s += float64(g) / disc(i)
		t.idcgPre = append(t.idcgPre, s)
	}
}
