package metric

// LevelGain sets the gain of one relevance level (trec_eval's ndcg.1=3 style
// parameters).
type LevelGain struct {
	Level int
	Gain  float64
}

// GainTable is trec_eval's gain table for one topic: one entry per relevance
// level 0..max grade (empty levels included, gain = the level), with custom
// gains overriding levels (and adding levels absent from the topic, with no
// documents). It feeds ndcg, ndcg_rel, Rndcg, G and rbp. Build it with
// Topic.Gains; it is reusable.
type GainTable struct {
	custom  []LevelGain
	entries []gainEntry // sorted by gain ascending, trec_eval's comparator
	scratch []gainEntry
	ideal   []float64 // positive gains, highest first, each repeated count times
	lo, hi  float64   // lowest and highest gain over all entries
}

type gainEntry struct {
	level int
	gain  float64
	count int
}

// gain returns the gain of a ranked document's label, as trec_eval's
// get_gain: the first table entry (in sorted order) for that level, else 0.
// A custom level may be negative ("-1=0.5" gives documents outside the pool
// a gain, "-2=..." the pooled but unjudged ones).
func (g *GainTable) gain(label int) float64 {
	v, _ := g.lookup(label)
	return v
}

// lookup is gain, and whether the label is a level of the table.
func (g *GainTable) lookup(label int) (float64, bool) {
	if len(g.custom) == 0 {
		if label < 0 {
			return 0, false
		}
		return float64(label), true // every label >= 0 of a ranking is a level of the table
	}
	for _, e := range g.entries {
		if e.level == label {
			return e.gain, true
		}
	}
	return 0, false
}

// Gains fills g with the gain table of t (after Prepare) under the given
// custom level gains (nil for the default linear gains). As in trec_eval the
// table holds the custom levels first (in parameter order), then every level
// 0..max grade not among them, sorted by gain.
func (t *Topic) Gains(g *GainTable, custom []LevelGain) {
	g.custom = custom
	g.entries = g.entries[:0]
	numLevels := 0
	for _, v := range t.Judgments {
		if v >= numLevels {
			numLevels = v + 1
		}
	}
	for _, c := range custom {
		g.entries = append(g.entries, gainEntry{level: c.Level, gain: c.Gain})
	}
	nc := len(custom)
	inCustom := func(v int) bool {
		for i := 0; i < nc; i++ {
			if g.entries[i].level == v {
				return true
			}
		}
		return false
	}
	// Every level 0..max grade, as trec_eval; beyond 2^16 only the grades
	// that occur (trec_eval would allocate a table that large).
	const dense = 1 << 16
	for v := 0; v < min(numLevels, dense); v++ {
		if !inCustom(v) {
			g.entries = append(g.entries, gainEntry{level: v, gain: float64(v)})
		}
	}
	if numLevels > dense {
		for _, x := range t.Judgments {
			if x >= dense && !inCustom(x) && !g.has(x) {
				g.entries = append(g.entries, gainEntry{level: x, gain: float64(x)})
			}
		}
		g.scratch = msortGains(g.entries, g.scratch)
	}
	// Counts per level.
	direct := nc == 0 && numLevels <= dense // entries[v] is level v
	for _, x := range t.Judgments {
		if x < 0 {
			continue
		}
		if direct {
			g.entries[x].count++
			continue
		}
		for i := range g.entries {
			if g.entries[i].level == x {
				g.entries[i].count++
				break
			}
		}
	}
	if nc > 0 {
		g.scratch = msortGains(g.entries, g.scratch)
	} // default gains are already ascending by level
	// rbp's bounds start at 0: trec_eval v10.0 leaves them uninitialised,
	// and its stock build (no -O) starts them at 0, which shows when level
	// 0's gain is overridden (0=0.5 keeps lo at 0) or every gain is
	// negative (hi stays 0).
	g.lo, g.hi = 0, 0
	for _, e := range g.entries {
		g.lo = min(g.lo, e.gain)
		g.hi = max(g.hi, e.gain)
	}
	// The ideal list, walked as trec_eval walks it: from the last entry
	// down, one position per judgment, passing over empty levels whatever
	// their gain, and stopping at the first non-empty level whose gain is
	// <= 0 (or when the top entry's own gain is <= 0). With fractional
	// custom gains the sort leaves the table out of gain order, so an empty
	// level of gain 0 may sit above positive ones: it does not end the list.
	g.ideal = g.ideal[:0]
	cur := len(g.entries) - 1
	if cur < 0 || g.entries[cur].gain <= 0 {
		return
	}
	for ; cur >= 0; cur-- {
		e := g.entries[cur]
		if e.count == 0 {
			continue
		}
		if e.gain <= 0 {
			break
		}
		for range e.count {
			g.ideal = append(g.ideal, e.gain)
		}
	}
}

func (g *GainTable) has(level int) bool {
	for _, e := range g.entries {
		if e.level == level {
			return true
		}
	}
	return false
}

// msortGains sorts entries by gain ascending with trec_eval's comparator,
// which compares the truncated integer difference of the gains, using a
// top-down merge sort (glibc's qsort for small arrays), so fractional custom
// gains order as they do there.
func msortGains(a, tmp []gainEntry) []gainEntry {
	if cap(tmp) < len(a) {
		tmp = make([]gainEntry, len(a))
	}
	tmp = tmp[:len(a)]
	msort(a, tmp)
	return tmp
}

func msort(a, tmp []gainEntry) {
	if len(a) <= 1 {
		return
	}
	n1 := len(a) / 2
	msort(a[:n1], tmp)
	msort(a[n1:], tmp)
	b1, b2 := a[:n1], a[n1:]
	k := 0
	for len(b1) > 0 && len(b2) > 0 {
		if int(b1[0].gain-b2[0].gain) <= 0 {
			tmp[k] = b1[0]
			b1 = b1[1:]
		} else {
			tmp[k] = b2[0]
			b2 = b2[1:]
		}
		k++
	}
	k += copy(tmp[k:], b1)
	copy(tmp[k:], b2)
	copy(a, tmp[:len(a)])
}

// idcgAt sums the ideal gains of positions 0..d-1 with the log2 discount.
func (g *GainTable) idcgAt(d int) float64 {
	s := 0.0
	for i := 0; i < d && i < len(g.ideal); i++ {
		s += g.ideal[i] / disc(i)
	}
	return s
}

// NDCG is trec_eval's ndcg: DCG over the whole ranking with the table gains,
// divided by the DCG of the whole ideal list; 0 when that is 0.
func (t *Topic) NDCG(g *GainTable) float64 {
	dcg := 0.0
	for i, l := range t.Labels {
		if gn := g.gain(l); gn != 0 {
			dcg += gn / disc(i)
		}
	}
	idcg := g.idcgAt(len(g.ideal))
	if idcg > 0 {
		return dcg / idcg
	}
	return 0
}

// DCG is the unnormalised DCG over the whole ranking (trec_eval dcg).
func (t *Topic) DCG(g *GainTable) float64 {
	dcg := 0.0
	for i, l := range t.Labels {
		if gn := g.gain(l); gn != 0 {
			dcg += gn / disc(i)
		}
	}
	return dcg
}

// IdealDCG is the DCG of the whole ideal list (trec_eval ideal_dcg).
func (t *Topic) IdealDCG(g *GainTable) float64 { return g.idcgAt(len(g.ideal)) }

// NDCGRel (trec_eval ndcg_rel): with P the ideal list length, each retrieved
// doc with positive gain at rank i adds DCG@i/IDCG@min(i,P); then
// (P − k)·DCG@n/IDCG@P is added for the k such docs — negative when more
// documents with positive gain were retrieved than the ideal list holds,
// which custom gains allow; the sum is divided by P when it is > 0, else the
// value is 0. IEEE arithmetic as in trec_eval: a division by an IDCG of 0
// gives ±Inf or NaN, and NaN is not > 0.
func (t *Topic) NDCGRel(g *GainTable) float64 {
	p := len(g.ideal)
	sum := 0.0
	dcg, idcg := 0.0, 0.0
	k := 0
	for i, l := range t.Labels {
		disc := disc(i)
		if i < p {
			idcg += g.ideal[i] / disc
		}
		gn := g.gain(l)
		if gn != 0 {
			dcg += gn / disc
		}
		if gn > 0 {
			k++
			sum += dcg / idcg
		}
	}
	full := g.idcgAt(p)
	sum += float64(p-k) * dcg / full
	if sum > 0 {
		return sum / float64(p)
	}
	return 0
}

// RNDCG is trec_eval's Rndcg: nDCG averaged at the "R levels", the ranks
// where the ideal gain changes while walking the gain table from the highest
// gain down (each level lasting as many ranks as it has judgments), plus
// one point at the end of the ranking when the ideal runs out of positive
// gain before it. 0 when R = 0; 0/0 (NaN) when no point is recorded.
func (t *Topic) RNDCG(g *GainTable) float64 {
	if t.r == 0 {
		return 0
	}
	e := g.entries
	cur := len(e) - 1
	ig := 0.0
	if cur >= 0 {
		ig = e[cur].gain
	}
	old := ig
	sum, cnt := 0.0, 0
	dcg, idcg := 0.0, 0.0
	nat := 0
	step := func() {
		nat++
		for cur >= 0 && nat > e[cur].count {
			nat = 1
			cur--
			ig = 0
			if cur >= 0 {
				ig = e[cur].gain
			}
		}
		if old != ig {
			if idcg > 0 {
				sum += dcg / idcg
				cnt++
			}
			old = ig
		}
	}
	i := 0
	for ; i < t.n && ig > 0; i++ {
		rg := g.gain(t.Labels[i])
		step()
		if rg != 0 {
			dcg += rg / disc(i)
		}
		if ig > 0 {
			idcg += ig / disc(i)
		}
	}
	if i < t.n {
		for ; i < t.n; i++ {
			if rg := g.gain(t.Labels[i]); rg != 0 {
				dcg += rg / disc(i)
			}
		}
		if idcg > 0 {
			sum += dcg / idcg
			cnt++
		}
	}
	for ig > 0 {
		step()
		if ig > 0 {
			idcg += ig / disc(i)
		}
		i++
	}
	return sum / float64(cnt)
}

// G is trec_eval's experimental G measure: walking the ranks, Sr sums the
// gains seen and Sc the ideal gains (at least 1 each); a doc with gain g ≠ 0
// adds g/log2(2 + Sc − Sr). Divided by the sum of the ideal gains.
func (t *Topic) G(g *GainTable) float64 {
	total := 0.0
	for _, v := range g.ideal {
		total += v
	}
	if total == 0 {
		return 0
	}
	sum, sr, sc := 0.0, 0.0, 0.0
	for i, l := range t.Labels {
		gn := g.gain(l)
		sr += gn
		if i < len(g.ideal) && g.ideal[i] >= 1 {
			sc += g.ideal[i]
		} else {
			sc += 1
		}
		if gn != 0 {
			sum += gn / log2(2+sc-sr)
		}
	}
	return sum / total
}

// RBP is rank-biased precision with persistence p: gains are the table
// gains, rescaled to (g−lo)/(hi−lo) when they leave [0,1], where lo and hi
// are the lowest and highest gain of the table and 0 (trec_eval's stock
// build); rbp = (1−p)·Σ gain(i)·p^(i−1). A label that is no level of the
// table (unjudged documents, unless a custom level -1 or -2 gives them a
// gain) gains 0.
func (t *Topic) RBP(p float64, g *GainTable) float64 {
	scale := g.lo < 0 || g.hi > 1
	sum := 0.0
	w := 1.0
	for _, l := range t.Labels {
		gn, ok := g.lookup(l)
		if ok && scale {
			gn = (gn - g.lo) / (g.hi - g.lo)
		}
		if gn != 0 {
			sum += gn * w
		}
		w *= p
	}
	return (1 - p) * sum
}
