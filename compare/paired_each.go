package compare

// PairCompactEach is PairCompact of one measure for each filter of keeps
// (the rows of a segment table): the cases are paired once for all of
// them, not once a filter. Its k-th Paired is PairCompact(base, cand,
// measure, keeps[k]), bit for bit; a nil filter keeps every pair.
func PairCompactEach(base, cand *Compact, measure string, keeps []func(i int) bool) []Paired {
	direction := RateDirection(measure)
	isRate := direction != ""
	if !isRate {
		direction = "higher"
	}
	value := pairValue(base, cand, measure, isRate)
	pairs, _, _ := pairCompact(base, cand)
	out := make([]Paired, len(keeps))
	kept := make([]cpair, 0, len(pairs))
	for k, keep := range keeps {
		kept = kept[:0]
		for _, p := range pairs {
			if keep == nil || keep(p.ci) {
				kept = append(kept, p)
			}
		}
		bs, cs := caseMeans(kept, value)
		d := make([]float64, len(bs))
		for i := range d {
			d[i] = cs[i] - bs[i]
		}
		out[k] = Paired{Measure: measure, Direction: direction, Deltas: d}
	}
	return out
}
