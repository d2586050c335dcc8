package metric

// Judged coverage: how much of a ranking the judgments cover, and what a
// measure would be if the documents nobody judged were relevant.

// Unjudged is trec_eval's unj_k for one case: the number of ranks among
// 1..min(k, n) whose document has no judgment or a negative grade, divided
// by k (missing ranks count as judged, as in trec_eval). It is 0 when k <= 0.
// ranking and judgments are as for Spec.Eval.
func Unjudged(ranking []string, judgments map[string]int, k int) float64 {
	if k <= 0 {
		return 0
	}
	c := 0
	for _, id := range ranking[:min(k, len(ranking))] {
		if g, judged := judgments[id]; !judged || g < 0 {
			c++ // labelled -1 or -2, as Topic.Unj counts them
		}
	}
	return float64(c) / float64(k)
}

// Upper is s.Eval with the unjudged documents the measure reads counted
// relevant: every document among the first K ranks (every rank for a
// measure without a cutoff) that has no judgment or a negative grade is
// judged with the top grade — the highest grade among judgments, at least
// 1 and at least the relevance threshold — and the measure is computed
// again. Eval counts the same documents non-relevant. ok is false when
// no such document exists (the two values are equal).
//
// For precision@k and hit@k the two values bound every value judgments of
// those documents could give. recall@k and nDCG also divide by what
// those judgments add to the ideal, so a document judged relevant at a low
// rank can lower them: the two values are the ends of the range, not
// strict bounds.
func (s Spec) Upper(ranking []string, judgments map[string]int, o Options) (v float64, ok bool) {
	extended, ok := UnjudgedRelevant(ranking, judgments, s.K, o)
	if !ok {
		return 0, false
	}
	return s.Eval(ranking, extended, o), true
}

// UnjudgedRelevant returns a copy of judgments in which every document
// among the first cut ranks (every rank when cut <= 0) that has no
// judgment or a negative grade is judged with the top grade, as Upper
// does; ok is false, and judgments is returned as is, when there is no
// such document. Measures with the same cutoff can share the copy.
func UnjudgedRelevant(ranking []string, judgments map[string]int, cut int, o Options) (extended map[string]int, ok bool) {
	n := len(ranking)
	if cut > 0 {
		n = min(n, cut)
	}
	top := max(1, o.RelLevel)
	for _, id := range ranking[:n] {
		if g, judged := judgments[id]; judged && g >= 0 {
			continue
		}
		if extended == nil {
			extended = make(map[string]int, len(judgments)+n)
			for d, g := range judgments {
				extended[d] = g
				top = max(top, g)
			}
		}
		extended[id] = -1 // marked; graded below once top is known
	}
	if extended == nil {
		return judgments, false
	}
	for _, id := range ranking[:n] {
		if extended[id] == -1 {
			if g, judged := judgments[id]; !judged || g < 0 {
				extended[id] = top
			}
		}
	}
	return extended, true
}
