package compare

// PairCompact is PairMeasure of two runs in compact form: measure (an IR
// metric name or one of the rates PairMeasure names) paired over the case
// trials of base and cand, the per-case deltas exactly as PairMeasure and
// Runs compute them. keep reports whether the pair of the candidate's
// case trial i (its index in cand, in the order Add took it) is kept; nil
// keeps every pair. The baseline's side of a pair is not asked: a filter
// on a fact both runs record alike (the case id, the tags of one suite)
// keeps the pairs PairMeasure's keep does. A measure no paired case
// defines gives a Paired with no deltas.
func PairCompact(base, cand *Compact, measure string, keep func(i int) bool) Paired {
	return PairCompactEach(base, cand, measure, []func(int) bool{keep})[0]
}

// Tag is the value of tag key of case trial i (its index in the order Add
// took it), and whether the case has that tag: what a keep function of
// PairCompact reads to pair one segment.
func (c *Compact) Tag(i int, key string) (string, bool) { return c.tag(i, key) }

// ID is the case id of case trial i (its index in the order Add took it).
func (c *Compact) ID(i int) string { return c.at(i).id }
