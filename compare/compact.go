package compare

import (
	"encoding/hex"
	"math/bits"
	"strings"

	"github.com/assay-eval/assay"
)

// Compact is a run as a comparison reads it: the run's record without its
// cases (Head) and, for each case trial, only the facts that compare, its
// flips and its verdict use: id, trial, case hash, whether it was graded,
// passed, errored, refused, retrieved or cited anything, whether a refusal
// check passed, one value per metric (through a table of the run's metric
// names), latency, top score, cost and tokens, and its tags (through a
// table of the run's tag pairs). A run read as a stream is added to it one
// case at a time (Add), so that comparing two runs never holds their full
// results. The zero value is an empty run; set Head before comparing.
type Compact struct {
	// Head is the run's record; its Cases are not read (they are Add's).
	Head *assay.Run

	chunks   [][]compactCase // the cases, chunkSize a chunk: never copied as they grow
	n        int
	metrics  []string         // metric names, in the order first seen
	metricIx map[string]int32 // name -> index in metrics
	values   []float64        // metric values of every case, in case order
	extra    map[int][]metricValue
	tags     []tagPair
	tagIx    map[tagPair]int32
	tagRefs  []int32        // tag indexes of every case, in case order
	hashes   map[int]string // hashes that are not "sha256:" and 64 lower-case hex digits
}

// compactCase is one case trial of a Compact.
type compactCase struct {
	id                 string
	trial              int
	flags              uint16
	tagOff, tagN       int32
	valOff             int32
	mask               uint64 // metrics 0..63 the case has; their values are values[valOff:]
	hash               [32]byte
	latency, top, cost float64
	tokens             int64
}

type metricValue struct {
	ix int32
	v  float64
}

type tagPair struct{ key, value string }

const (
	fGraded uint16 = 1 << iota
	fPassed
	fErrored
	fRefused
	fRefusalPass // a refusal check passed
	fNoHit       // nothing retrieved
	fCited
	fLatency
	fTop
	fUsage
	fCost
	fHash    // the hash is in hash (sha256 form)
	fOddHash // the hash is in Compact.hashes
)

func (c *compactCase) is(f uint16) bool { return c.flags&f != 0 }

func (c *compactCase) graded() bool   { return c.is(fGraded) }
func (c *compactCase) passed() bool   { return c.is(fPassed) }
func (c *compactCase) answered() bool { return !c.is(fErrored) }
func (c *compactCase) refused() bool  { return c.is(fRefused) }

// CompactOf is run in compact form (its cases added in order).
func CompactOf(run *assay.Run) *Compact {
	head := *run
	head.Cases = nil
	c := &Compact{Head: &head}
	for i := range run.Cases {
		c.Add(&run.Cases[i])
	}
	return c
}

// chunkSize is the number of cases of a chunk of Compact.chunks.
const chunkSize = 1 << 12

// Len is the number of case trials added.
func (c *Compact) Len() int { return c.n }

// at is case i.
func (c *Compact) at(i int) *compactCase { return &c.chunks[i/chunkSize][i%chunkSize] }

// Add appends one case trial's facts; r is not kept.
func (c *Compact) Add(r *assay.CaseResult) {
	// The id is copied: a result's id can share the memory of the whole
	// line it was parsed from, which would then be kept for every case.
	cc := compactCase{id: strings.Clone(r.ID), trial: r.Trial}
	set := func(f uint16, on bool) {
		if on {
			cc.flags |= f
		}
	}
	set(fGraded, r.Graded())
	set(fPassed, r.Passed())
	set(fErrored, r.Error != nil)
	set(fRefused, r.Refused)
	set(fNoHit, r.Retrieved == 0)
	set(fCited, r.Citations > 0)
	for _, ch := range r.Checks {
		if ch.Kind == "refusal" && ch.Pass {
			cc.flags |= fRefusalPass
		}
	}
	if r.LatencyMs != nil {
		cc.flags |= fLatency
		cc.latency = *r.LatencyMs
	}
	if r.TopScore != nil {
		cc.flags |= fTop
		cc.top = *r.TopScore
	}
	if u := r.Usage; u != nil {
		cc.flags |= fUsage
		cc.tokens = u.Tokens()
		if u.CostUSD != nil {
			cc.flags |= fCost
			cc.cost = *u.CostUSD
		}
	}
	n := c.n
	if r.Hash != "" {
		if h, ok := sha256Hash(r.Hash); ok {
			cc.flags |= fHash
			cc.hash = h
		} else {
			cc.flags |= fOddHash
			if c.hashes == nil {
				c.hashes = map[int]string{}
			}
			c.hashes[n] = r.Hash
		}
	}
	if len(r.Metrics) > 0 {
		if c.metricIx == nil {
			c.metricIx = map[string]int32{}
		}
		var over []metricValue
		for name := range r.Metrics {
			ix, ok := c.metricIx[name]
			if !ok {
				ix = int32(len(c.metrics))
				c.metrics = append(c.metrics, name)
				c.metricIx[name] = ix
			}
			if ix < 64 {
				cc.mask |= 1 << ix
			} else {
				over = append(over, metricValue{ix, r.Metrics[name]})
			}
		}
		cc.valOff = int32(len(c.values))
		for m := cc.mask; m != 0; m &= m - 1 {
			c.values = append(c.values, r.Metrics[c.metrics[bits.TrailingZeros64(m)]])
		}
		if over != nil {
			if c.extra == nil {
				c.extra = map[int][]metricValue{}
			}
			c.extra[n] = over
		}
	}
	if len(r.Tags) > 0 {
		if c.tagIx == nil {
			c.tagIx = map[tagPair]int32{}
		}
		cc.tagOff = int32(len(c.tagRefs))
		for k, v := range r.Tags {
			p := tagPair{k, v}
			ix, ok := c.tagIx[p]
			if !ok {
				ix = int32(len(c.tags))
				c.tags = append(c.tags, p)
				c.tagIx[p] = ix
			}
			c.tagRefs = append(c.tagRefs, ix)
		}
		cc.tagN = int32(len(r.Tags))
	}
	if n%chunkSize == 0 {
		c.chunks = append(c.chunks, make([]compactCase, 0, chunkSize))
	}
	last := &c.chunks[len(c.chunks)-1]
	*last = append(*last, cc)
	c.n++
}

// sha256Hash decodes "sha256:" and 64 lower-case hex digits (the form
// package grade writes); any other hash is kept as a string.
func sha256Hash(s string) (h [32]byte, ok bool) {
	hexs, found := strings.CutPrefix(s, "sha256:")
	if !found || len(hexs) != 64 || strings.ToLower(hexs) != hexs {
		return h, false
	}
	if _, err := hex.Decode(h[:], []byte(hexs)); err != nil {
		return h, false
	}
	return h, true
}

// hasHash reports whether case i recorded a hash.
func (c *Compact) hasHash(i int) bool { return c.at(i).is(fHash | fOddHash) }

// sameHash reports whether case i of b and case j of c recorded the same
// hash string.
func sameHash(b *Compact, i int, c *Compact, j int) bool {
	bc, cc := b.at(i), c.at(j)
	switch {
	case bc.is(fHash) && cc.is(fHash):
		return bc.hash == cc.hash
	case bc.is(fOddHash) && cc.is(fOddHash):
		return b.hashes[i] == c.hashes[j]
	}
	return false
}

// metric is the value of metric ix of case i (ix < 0: not in this run).
func (c *Compact) metric(i int, ix int32) (float64, bool) {
	if ix < 0 {
		return 0, false
	}
	cc := c.at(i)
	if ix < 64 {
		if cc.mask&(1<<ix) == 0 {
			return 0, false
		}
		return c.values[int(cc.valOff)+bits.OnesCount64(cc.mask&(1<<ix-1))], true
	}
	for _, mv := range c.extra[i] {
		if mv.ix == ix {
			return mv.v, true
		}
	}
	return 0, false
}

// metricIndex is the index of the metric name in c (-1: no case has it).
func (c *Compact) metricIndex(name string) int32 {
	if ix, ok := c.metricIx[name]; ok {
		return ix
	}
	return -1
}

// eachMetric calls fn with the index of each metric case i has.
func (c *Compact) eachMetric(i int, fn func(ix int32)) {
	cc := c.at(i)
	for m := cc.mask; m != 0; m &= m - 1 {
		fn(int32(bits.TrailingZeros64(m)))
	}
	for _, mv := range c.extra[i] {
		fn(mv.ix)
	}
}

// tag is the value of tag key of case i.
func (c *Compact) tag(i int, key string) (string, bool) {
	cc := c.at(i)
	for _, ix := range c.tagRefs[cc.tagOff : cc.tagOff+cc.tagN] {
		if p := c.tags[ix]; p.key == key {
			return p.value, true
		}
	}
	return "", false
}

// metricNames are the names of the metrics some case of c has.
func (c *Compact) metricNames() []string { return c.metrics }
