package trec

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/assay-eval/assay/metric"
)

// Config is a parsed trec_eval command line.
type Config struct {
	PerTopic   bool     // -q
	Complete   bool     // -c
	NoSummary  bool     // -n
	JudgedOnly bool     // -J
	RelLevel   int      // -l (default 1)
	MaxRet     int      // -M (default unlimited)
	NumDocs    int      // -N
	Measures   []string // -m arguments, in order
	Qrels, Run string   // the two file names; "-" for stdin
}

// DefaultConfig returns trec_eval's defaults.
func DefaultConfig() Config { return Config{RelLevel: 1, MaxRet: math.MaxInt} }

// item is one ranked document while a topic is being formed.
type item struct {
	score float64
	doc   []byte
}

// topicResult is the per-topic output of the evaluator.
type topicResult struct {
	done bool
	vals []float64
	rel  string
	err  string // trec_eval's messages when the topic cannot be evaluated
}

type evaluator struct {
	cfg     Config
	q       *Qrels
	plan    *plan
	results []topicResult
}

// worker holds the scratch space of one evaluation goroutine.
type worker struct {
	ev     *evaluator
	items  []item
	labels []int
	topic  metric.Topic
	ctx    evalCtx
	table  []uint64 // findDup's hashes (low bit set; 0 empty)
	tidx   []int32  // and the item of each
	hashes []uint64
	sorter sorter
}

func (ev *evaluator) newWorker() *worker {
	w := &worker{ev: ev}
	n := len(ev.plan.gains)
	w.ctx = evalCtx{t: &w.topic, gt: make([]metric.GainTable, n), gainsOK: make([]bool, n),
		gainSpec: ev.plan.gains, numDocs: ev.cfg.NumDocs}
	return w
}

// cmpItems is trec_eval's order: score descending, then docno descending
// (byte order). trec_eval leaves the place of a NaN score undefined; here
// NaN ranks below every number, so the order is total and the ranking does
// not depend on the order the lines were read in.
func cmpItems(a, b item) int {
	if a.score > b.score {
		return -1
	}
	if a.score < b.score {
		return 1
	}
	if an, bn := a.score != a.score, b.score != b.score; an != bn {
		if an {
			return 1
		}
		return -1
	}
	return compareDocs(b.doc, a.doc)
}

// compareDocs is bytes.Compare; docnos of up to 8 bytes (ties in a
// ranking are ordered by them) compare as two big-endian words.
func compareDocs(a, b []byte) int {
	if len(a) > 8 || len(b) > 8 {
		return bytes.Compare(a, b)
	}
	if wa, wb := docWord(a), docWord(b); wa != wb {
		if wa < wb {
			return -1
		}
		return 1
	}
	return cmp.Compare(len(a), len(b)) // one is a prefix of the other
}

// docWord is b (at most 8 bytes) as a big-endian word, zero padded.
func docWord(b []byte) uint64 {
	if cap(b) >= 8 { // one load, the bytes past b masked off
		return binary.BigEndian.Uint64(b[:8]) &^ (^uint64(0) >> (8 * len(b)))
	}
	var w uint64
	for i, c := range b {
		w |= uint64(c) << (56 - 8*i)
	}
	return w
}

// scoreKey maps a score to a key whose ascending order is cmpItems' score
// order: -0 is +0, and every NaN comes last.
func scoreKey(f float64) uint64 {
	if f != f {
		return math.MaxUint64
	}
	if f == 0 {
		f = 0
	}
	b := math.Float64bits(f)
	if b>>63 == 0 {
		b |= 1 << 63 // positive: above every negative
	} else {
		b = ^b // negative: larger magnitude, smaller key
	}
	return ^b // descending
}

// sorter holds the scratch space of keySort.
type sorter struct {
	keys, tmp []uint64
	counts    []uint32
	out       []item
}

// sortWords sorts keys, returning them sorted in keys or in tmp (of the
// same length). Scores of a ranking spread fairly evenly, so the words are
// first distributed by their top bits into at most len(keys) buckets, which
// leaves about one word per bucket for an insertion sort to finish; a
// skewed set that makes the insertion sort move words too far is sorted
// by comparison instead.
func (s *sorter) sortWords(keys, tmp []uint64) []uint64 {
	n := len(keys)
	lo, hi := keys[0], keys[0]
	for _, k := range keys {
		lo = min(lo, k)
		hi = max(hi, k)
	}
	shift := max(bits.Len64(hi-lo)-bits.Len(uint(n))+1, 0)
	nb := int((hi-lo)>>shift) + 1 // at most n
	counts := slices.Grow(s.counts[:0], nb+1)[:nb+1]
	s.counts = counts
	clear(counts)
	for _, k := range keys {
		counts[(k-lo)>>shift+1]++
	}
	for i := 1; i <= nb; i++ {
		counts[i] += counts[i-1]
	}
	for _, k := range keys {
		b := (k - lo) >> shift
		tmp[counts[b]] = k
		counts[b]++
	}
	budget := 4*n + 64 // word moves before giving up on insertion
	for i := 1; i < n; i++ {
		v := tmp[i]
		j := i
		for j > 0 && tmp[j-1] > v {
			tmp[j] = tmp[j-1]
			j--
		}
		tmp[j] = v
		if budget -= i - j; budget < 0 {
			slices.Sort(tmp)
			break
		}
	}
	return tmp
}

// keySort sorts items by cmpItems. Each item becomes one word, its score
// key with the low 16 bits replaced by its index, and the words are sorted
// as integers (sortWords); items whose keys agree above those 16 bits (ties, in
// practice) are then ordered by cmpItems. A shuffled ranking sorts several
// times faster this way than by comparing items.
func (s *sorter) keySort(items []item) {
	n := len(items)
	if n > 1<<16 {
		slices.SortFunc(items, cmpItems)
		return
	}
	keys := slices.Grow(s.keys[:0], n)[:n]
	tmp := slices.Grow(s.tmp[:0], n)[:n]
	s.keys, s.tmp = keys, tmp
	for i := range items {
		keys[i] = scoreKey(items[i].score)&^0xffff | uint64(i)
	}
	keys = s.sortWords(keys, tmp)
	for i := 0; i < n; {
		j := i + 1
		for j < n && keys[j]>>16 == keys[i]>>16 {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(keys[i:j], func(a, b uint64) int { return cmpItems(items[a&0xffff], items[b&0xffff]) })
		}
		i = j
	}
	out := slices.Grow(s.out[:0], n)[:n]
	for j, k := range keys {
		out[j] = items[k&0xffff]
	}
	copy(items, out)
	s.out = out
}

// findDup returns the smallest docno that occurs twice among items
// (hashes[i] is the hash of items[i].doc).
func (w *worker) findDup(items []item, hashes []uint64) ([]byte, bool) {
	size := 16
	for size < 2*len(items) {
		size *= 2
	}
	if cap(w.table) < size {
		w.table = make([]uint64, size)
		w.tidx = make([]int32, size)
	}
	tab, tidx := w.table[:size], w.tidx[:size]
	clear(tab)
	mask := uint64(size - 1)
	var dup []byte
	found := false
	for i := range items {
		d := items[i].doc
		hv := hashes[i] | 1
		for h := hashes[i] & mask; ; h = (h + 1) & mask {
			v := tab[h]
			if v == 0 {
				tab[h] = hv
				tidx[h] = int32(i)
				break
			}
			if v == hv && bytes.Equal(items[tidx[h]].doc, d) {
				if !found || bytes.Compare(d, dup) < 0 {
					dup = d
				}
				found = true
				break
			}
		}
	}
	return dup, found
}

// sortItems orders by cmpItems with a scratch sorter.
func sortItems(items []item) { new(sorter).sort(items) }

// sort orders items by cmpItems. Runs are usually written in rank order
// already, with a few ties out of docno order: an insertion sort finishes
// those in linear time. Shuffled lines (an interleaved run) are radix
// sorted by key.
func (s *sorter) sort(items []item) {
	inv := 0
	for i := 1; i < len(items); i++ {
		if items[i-1].score > items[i].score {
			continue // in order: the usual case, without a call
		}
		if cmpItems(items[i-1], items[i]) > 0 {
			inv++
		}
	}
	if inv == 0 {
		return
	}
	if inv > len(items)/8 {
		s.keySort(items)
		return
	}
	budget := 8*len(items) + 64 // element moves before giving up on insertion
	for i := 1; i < len(items); i++ {
		if items[i-1].score > items[i].score || cmpItems(items[i-1], items[i]) <= 0 {
			continue
		}
		v := items[i]
		j := i
		for j > 0 && cmpItems(items[j-1], v) > 0 {
			items[j] = items[j-1]
			j--
		}
		items[j] = v
		if budget -= i - j; budget < 0 {
			s.keySort(items) // far-displaced lines
			return
		}
	}
}

// evalTopic forms the ranking of one topic and computes every column.
func (w *worker) evalTopic(j job) topicResult {
	ev := w.ev
	qt := ev.q.topics[j.ti]
	items := w.items[:0]
	for _, s := range j.segs {
		for _, e := range s.ents {
			items = append(items, item{score: e.score, doc: s.arena[e.off : e.off+e.n]})
		}
	}
	items = appendRecords(items, j.blocks)
	w.items = items
	w.sorter.sort(items)
	if len(items) > ev.cfg.MaxRet {
		items = items[:max(ev.cfg.MaxRet, 0)]
	}
	hashes := w.hashes[:0]
	for i := range items {
		hashes = append(hashes, ev.q.docHash(items[i].doc))
	}
	w.hashes = hashes
	if ev.plan.calcName == "" {
		// Only runid/num_q requested: trec_eval never forms the ranking.
		return topicResult{done: true, vals: make([]float64, len(ev.plan.cols))}
	}
	if d, ok := w.findDup(items, hashes); ok {
		return topicResult{done: true, err: fmt.Sprintf("trec_eval.form_res_qrels: duplicate docs %strec_eval: Can't calculate measure '%s'\n", d, ev.plan.calcName)}
	}
	if qt.hasDup {
		return topicResult{done: true, err: fmt.Sprintf("trec_eval.form_res_rels: duplicate docs %s\ntrec_eval: Can't calculate measure '%s'\n", qt.dup, ev.plan.calcName)}
	}
	labels := w.labels[:0]
	for i, it := range items {
		g, ok := qt.lookup(hashes[i], it.doc)
		switch {
		case !ok:
			g = -1
		case g < 0:
			g = -2
		}
		if ev.cfg.JudgedOnly && g < 0 {
			continue
		}
		labels = append(labels, g)
	}
	w.labels = labels
	return w.compute(qt, labels, false)
}

// compute fills the column values for a formed ranking. missing marks a
// -c topic absent from the run.
func (w *worker) compute(qt *qrelsTopic, labels []int, missing bool) topicResult {
	t := &w.topic
	t.Labels = labels
	t.Judgments = qt.grades
	t.Threshold = w.ev.cfg.RelLevel
	t.Prepare()
	clear(w.ctx.gainsOK)
	cols := w.ev.plan.cols
	res := topicResult{done: true, vals: make([]float64, len(cols))}
	for i := range cols {
		c := &cols[i]
		if missing && c.zeroMissing {
			continue
		}
		switch {
		case c.value != nil:
			res.vals[i] = c.value(&w.ctx)
		case c.str != nil:
			res.rel = c.str(&w.ctx)
		}
	}
	return res
}

// pool runs evalTopic on a fixed number of goroutines.
type pool struct {
	jobs chan job
	wg   sync.WaitGroup
}

// job is one topic's lines: chunk segments (read eagerly) or the blocks
// of a topicStore (collected).
type job struct {
	ti     int
	segs   []segment
	blocks [][]byte
}

func (ev *evaluator) startPool() *pool {
	p := &pool{jobs: make(chan job, 64)}
	for range runtime.GOMAXPROCS(0) {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			w := ev.newWorker()
			for j := range p.jobs {
				ev.results[j.ti] = w.evalTopic(j)
				for _, s := range j.segs {
					s.mem.release()
				}
			}
		}()
	}
	return p
}

func (p *pool) wait() { close(p.jobs); p.wg.Wait() }

// report prints per-topic rows (with -q) and the summary, returning the
// exit status. Output stops at the first topic that cannot be evaluated,
// as trec_eval's does.
func (ev *evaluator) report(stdout, stderr io.Writer, tag []byte) int {
	out := bufio.NewWriterSize(stdout, 1<<16)
	cols := ev.plan.cols
	sums := make([]float64, len(cols))
	var w *worker
	nq := 0
	buf := make([]byte, 0, 256)
	var skipped []string
	nSkipped := 0
	for ti, qt := range ev.q.topics {
		res := ev.results[ti]
		if !res.done {
			if !ev.cfg.Complete {
				// Absent from the run: skipped, as trec_eval 9.x did.
				if len(skipped) < maxSkippedIDs {
					skipped = append(skipped, qt.qid)
				}
				nSkipped++
				continue
			}
			if w == nil {
				w = ev.newWorker()
			}
			if qt.hasDup && ev.plan.calcName != "" {
				res = topicResult{done: true, err: fmt.Sprintf("trec_eval.form_res_rels: duplicate docs %s\ntrec_eval: Can't calculate measure '%s'\n", qt.dup, ev.plan.calcName)}
			} else {
				// As trec_eval: one retrieved document outside the pool,
				// through the same -M and -J, then the forced zeros.
				labels := []int{-1}
				if ev.cfg.MaxRet < 1 || ev.cfg.JudgedOnly {
					labels = labels[:0]
				}
				res = w.compute(qt, labels, true)
			}
		}
		if res.err != "" {
			out.Flush()
			io.WriteString(stderr, res.err)
			return 4
		}
		if ev.plan.utilityBad {
			out.Flush()
			io.WriteString(stderr, "trec_eval.calc_utility: improper number of coefficients\ntrec_eval: Can't calculate measure 'utility'\n")
			return 4
		}
		nq++
		for i := range cols {
			c := &cols[i]
			v := res.vals[i]
			switch c.agg {
			case aggGeo:
				if v > 1e-5 {
					sums[i] += math.Log(v)
				} else {
					sums[i] += math.Log(1e-5)
				}
			case aggOnly:
			default:
				sums[i] += v
			}
			if !ev.cfg.PerTopic || c.agg == aggOnly || c.agg == aggGeo {
				continue
			}
			buf = buf[:0]
			if c.agg == aggNone {
				buf = appendName(buf, c.name, qt.qid)
				buf = append(buf, '\'')
				buf = append(buf, res.rel...)
				buf = append(buf, "'\n"...)
			} else {
				buf = appendRow(buf, c.name, qt.qid, v, c.integer)
			}
			out.Write(buf)
		}
		if out.Available() < 512 {
			// A write that fails (a full disk, a closed pipe) stops the
			// report now rather than after every topic.
			if err := out.Flush(); err != nil {
				return writeFailed(stderr, err)
			}
		}
	}
	if ev.cfg.Complete {
		nq = len(ev.q.topics)
	}
	if nSkipped > 0 {
		out.Flush()
		io.WriteString(stderr, skippedNote(nSkipped, skipped))
	}
	if nq == 0 {
		out.Flush()
		io.WriteString(stderr, "trec_eval: No queries with both results and relevance info\n")
		return 7
	}
	if !ev.cfg.NoSummary {
		q := float64(nq)
		for i := range cols {
			c := &cols[i]
			buf = buf[:0]
			switch c.agg {
			case aggNone:
				continue
			case aggOnly:
				if c.name == "runid" {
					buf = appendName(buf, c.name, "all")
					buf = append(buf, tag...)
					buf = append(buf, '\n')
				} else {
					buf = appendRow(buf, c.name, "all", q, true)
				}
			case aggSum:
				v := sums[i]
				if c.name == "num_rel" && ev.cfg.Complete {
					v = 0
					for _, t := range ev.q.topics {
						v += float64(t.pos)
					}
				}
				buf = appendRow(buf, c.name, "all", v, true)
			case aggGeo:
				buf = appendRow(buf, c.name, "all", math.Exp(sums[i]/q), false)
			default:
				buf = appendRow(buf, c.name, "all", sums[i]/q, false)
			}
			out.Write(buf)
		}
	}
	if err := out.Flush(); err != nil {
		return writeFailed(stderr, err)
	}
	return 0
}

// writeFailed reports an output that could not be written (exit status 2:
// the report is incomplete).
func writeFailed(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "assay trec: cannot write the report: %v\n", err)
	return 2
}

// appendName writes "%-22s\t%s\t".
func appendName(b []byte, name, qid string) []byte {
	b = append(b, name...)
	for i := len(name); i < 22; i++ {
		b = append(b, ' ')
	}
	b = append(b, '\t')
	b = append(b, qid...)
	return append(b, '\t')
}

// appendRow writes one output line: "%-22s\t%s\t%6.4f\n" (or %ld for counts).
func appendRow(b []byte, name, qid string, v float64, integer bool) []byte {
	b = appendName(b, name, qid)
	if integer {
		b = strconv.AppendInt(b, int64(v), 10)
		return append(b, '\n')
	}
	return append(appendValue(b, v), '\n')
}

// appendValue is C's %6.4f: NaN prints as glibc prints 0/0 ("-nan").
func appendValue(b []byte, v float64) []byte {
	var s []byte
	var tmp [32]byte
	switch {
	case math.IsNaN(v):
		s = append(tmp[:0], "-nan"...)
	case math.IsInf(v, 1):
		s = append(tmp[:0], "inf"...)
	case math.IsInf(v, -1):
		s = append(tmp[:0], "-inf"...)
	default:
		s = strconv.AppendFloat(tmp[:0], v, 'f', 4, 64)
	}
	for i := len(s); i < 6; i++ {
		b = append(b, ' ')
	}
	return append(b, s...)
}

// maxSkippedIDs is how many ids of skipped topics the note names.
const maxSkippedIDs = 5

// skippedNote is the one stderr line saying how many qrels topics were
// skipped because the run has no line for them (the first ids, in qid
// order), and that -c counts them.
func skippedNote(n int, ids []string) string {
	topics := "topics"
	if n == 1 {
		topics = "topic"
	}
	list := strings.Join(ids, " ")
	if n > len(ids) {
		list += " ..."
	}
	return fmt.Sprintf("assay trec: skipped %d qrels %s not in the run (%s); trec_eval v10.0 would stop, -c scores them\n", n, topics, list)
}
