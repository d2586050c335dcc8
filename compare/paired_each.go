package compare

// PairCompactEach is PairCompact of one measure for each filter of keeps
// (the rows of a segment table; PairCompact is its one-filter form): the
// cases are paired once for all of them, not once a filter, and each
// pair's values and the case it belongs to are found once. Its k-th
// Paired is what PairMeasure gives on the full runs with the same filter,
// bit for bit (each case's mean takes the same additions in the same
// order); a nil filter keeps every pair.
func PairCompactEach(base, cand *Compact, measure string, keeps []func(i int) bool) []Paired {
	direction := RateDirection(measure)
	isRate := direction != ""
	if !isRate {
		direction = "higher"
	}
	value := pairValue(base, cand, measure, isRate)
	pairs, _, _ := pairCompact(base, cand)
	// vals[i] is pair i's values and the number of its case (pairs are in
	// case id order, so a case's trials are next to each other).
	type pairVal struct {
		b, c float64
		ok   bool
		cas  int32
	}
	vals := make([]pairVal, len(pairs))
	cas := int32(-1)
	for i, p := range pairs {
		if i == 0 || p.caseID() != pairs[i-1].caseID() {
			cas++
		}
		b, c, ok := value(p)
		vals[i] = pairVal{b, c, ok, cas}
	}
	out := make([]Paired, len(keeps))
	kept := make([]int32, 0, len(pairs))
	for k, keep := range keeps {
		kept = kept[:0]
		cases := 0
		for i, p := range pairs {
			if keep == nil || keep(p.ci) {
				if len(kept) == 0 || vals[kept[len(kept)-1]].cas != vals[i].cas {
					cases++
				}
				kept = append(kept, int32(i))
			}
		}
		// A case's mean over its kept trials with a value, as caseMeans
		// takes it.
		d := make([]float64, 0, cases)
		for i := 0; i < len(kept); {
			j := i
			var sb, sc float64
			n := 0
			for ; j < len(kept) && vals[kept[j]].cas == vals[kept[i]].cas; j++ {
				if v := vals[kept[j]]; v.ok {
					sb += v.b
					sc += v.c
					n++
				}
			}
			if n > 0 {
				d = append(d, sc/float64(n)-sb/float64(n))
			}
			i = j
		}
		out[k] = Paired{Measure: measure, Direction: direction, Deltas: d}
	}
	return out
}
