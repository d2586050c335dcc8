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
	n := len(ranking)
	if s.K > 0 {
		n = min(n, s.K)
	}
	top := max(1, o.RelLevel)
	for _, g := range judgments {
		top = max(top, g)
	}
	var extended map[string]int
	for _, id := range ranking[:n] {
		if g, judged := judgments[id]; judged && g >= 0 {
			continue
		}
		if extended == nil {
			extended = make(map[string]int, len(judgments)+n)
			for d, g := range judgments {
				extended[d] = g
			}
		}
		extended[id] = top
	}
	if extended == nil {
		return 0, false
	}
	return s.Eval(ranking, extended, o), true
}
