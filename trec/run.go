package trec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

func sortByQid(ts []*qrelsTopic) {
	slices.SortFunc(ts, func(a, b *qrelsTopic) int { return strings.Compare(a.qid, b.qid) })
}

// entry is one run line kept for ranking: its score and where its docno
// is in the chunk it came from.
type entry struct {
	score float64
	off   uint32
	n     uint32
}

// segment holds the lines of one topic inside one chunk (or, when a run is
// collected, all the lines of the topic).
type segment struct {
	topic int // index of the qrels topic
	ents  []entry
	arena []byte    // the chunk's bytes, which ents point into
	recs  []byte    // collecting: the lines as topicStore records instead
	mem   *chunkMem // eager: what ents and arena are
}

// chunkMem is one eagerly read chunk, its bytes and its entries, shared by
// its segments and recycled once every segment's topic has been evaluated,
// so that a grouped run of any size is read and parsed into the same few
// buffers instead of fresh ones for every chunk (less garbage to collect,
// fewer pages to fault in), and no docno is copied.
type chunkMem struct {
	ents []entry
	data []byte       // the chunk, given back to bufPool
	refs atomic.Int32 // segments not yet evaluated
}

var memPool = sync.Pool{New: func() any { return new(chunkMem) }}

// release drops one segment's hold on m; the last gives m back.
func (m *chunkMem) release() {
	if m != nil && m.refs.Add(-1) == 0 {
		m.put()
	}
}

func (m *chunkMem) put() {
	putBuf(m.data)
	m.data = nil
	memPool.Put(m)
}

type chunk struct {
	idx  int
	data []byte
}

type chunkResult struct {
	idx        int
	segs       []segment
	lines      int    // data lines parsed
	badLine    int    // 1-based data line of the first malformed line, 0 if none
	tag        []byte // run tag of the last data line
	fragmented bool   // a kept topic's lines reappear after another kept topic's

	// Collecting: the scratch holding segs and the chunk data they point
	// into, both given back once the segments are stored.
	sc   *parseScratch
	data []byte
}

const chunkSize = 1 << 20

// bufPool recycles the chunk read buffers (parseChunk copies what it keeps).
var bufPool = sync.Pool{New: func() any { b := make([]byte, chunkSize); return &b }}

func getBuf() []byte { return (*bufPool.Get().(*[]byte))[:chunkSize] }

// poisonFreed, when set (by tests), makes putBuf overwrite a buffer as it
// gives it back, so that a read of a chunk after its release shows.
var poisonFreed bool

func putBuf(b []byte) {
	if cap(b) == chunkSize {
		b = b[:chunkSize]
		if poisonFreed {
			for i := range b {
				b[i] = 0xFF
			}
		}
		bufPool.Put(&b)
	}
}

var errFragmented = errors.New("trec: run topics are not contiguous")

// parseHook, when set (by tests), is called by a parser before it parses
// the chunk of index idx.
var parseHook func(idx int)

// parseScratch is a parser goroutine's reusable state: segOf[ti] is 1 + the
// segment of qrels topic ti in the current chunk (0: none yet).
//
// With reuse set (collecting), the segments of the result carry their
// lines as topicStore records (recs) held in the scratch, valid until the
// scratch parses another chunk; otherwise the segments of each result
// share a chunkMem holding the chunk and its entries (the position and
// length of each docno in it, and the score).
type parseScratch struct {
	segOf       []int32
	parts, part int // keep only topics with index%parts == part (parts 0: all)
	reuse       bool

	ents        []entry
	segs        []segment
	recs        []byte
	lineSeg     []int32
	counts, pos []int
}

func (sc *parseScratch) reset(segs []segment) {
	for _, sg := range segs {
		sc.segOf[sg.topic] = 0
	}
}

// parseChunk parses complete lines of a run file (data ends with '\n'),
// keeping the lines of topics that are in q. Lines of other topics are
// checked and counted (and give the runid) but not kept.
func parseChunk(c chunk, q *Qrels, sc *parseScratch) chunkResult {
	if len(sc.segOf) < len(q.topics) {
		sc.segOf = make([]int32, len(q.topics))
	}
	res := chunkResult{idx: c.idx}
	data := c.data
	n := len(data)
	var ents []entry
	var arena []byte
	var mem *chunkMem
	if sc.reuse {
		ents, res.segs = sc.ents[:0], sc.segs[:0]
	} else {
		mem = memPool.Get().(*chunkMem)
		ents, arena = mem.ents[:0], data
		if ents == nil {
			ents = make([]entry, 0, n/32+16) // about 37 bytes a line
		}
	}
	// Lines are grouped by qid within the chunk: segOf[i] is the segment of
	// line i; segments stay contiguous unless a qid comes back.
	cur := -1 // segment of the previous line; -2: a topic not in the qrels
	var lastQid []byte
	var lastW uint64 // lastQid's word when lastShort
	lastShort := false
	segOf := sc.lineSeg[:0]
	counts := sc.counts[:0]
	regroup := false
	var tagS, tagE int
	p := 0
	for p < n {
		for isBlank(data[p]) {
			p++
		}
		if data[p] == '\n' {
			p++
			continue
		}
		if data[p] == '#' {
			p += bytes.IndexByte(data[p:], '\n') + 1
			continue
		}
		res.lines++
		// qid
		s := p
		for notSpace(data[p]) {
			p++
		}
		if data[p] == '\n' {
			res.badLine = res.lines
			sc.reset(res.segs)
			return res
		}
		qid := data[s:p]
		// A qid of at most 8 bytes is compared with the previous line's
		// as one word (the line's first bytes, the rest masked off).
		var qw uint64
		short := len(qid) <= 8 && s+8 <= n
		if short {
			qw = binary.LittleEndian.Uint64(data[s:]) & (^uint64(0) >> (64 - 8*len(qid)))
		}
		p++
		// iter
		for isBlank(data[p]) {
			p++
		}
		for notSpace(data[p]) {
			p++
		}
		if data[p] == '\n' {
			res.badLine = res.lines
			sc.reset(res.segs)
			return res
		}
		p++
		// docno
		for isBlank(data[p]) {
			p++
		}
		s = p
		for notSpace(data[p]) {
			p++
		}
		if data[p] == '\n' {
			res.badLine = res.lines
			sc.reset(res.segs)
			return res
		}
		doc, docAt := data[s:p], s
		p++
		// rank
		for isBlank(data[p]) {
			p++
		}
		for notSpace(data[p]) {
			p++
		}
		if data[p] == '\n' {
			res.badLine = res.lines
			sc.reset(res.segs)
			return res
		}
		p++
		// score
		for isBlank(data[p]) {
			p++
		}
		s = p
		for notSpace(data[p]) {
			p++
		}
		if data[p] == '\n' {
			res.badLine = res.lines
			sc.reset(res.segs)
			return res
		}
		scoreTok, scoreAt := data[s:p], s
		p++
		// tag
		for isBlank(data[p]) {
			p++
		}
		if data[p] == '\n' {
			res.badLine = res.lines
			sc.reset(res.segs)
			return res
		}
		tagS = p
		for notSpace(data[p]) {
			p++
		}
		tagE = p
		if data[p] != '\n' {
			p += bytes.IndexByte(data[p:], '\n')
		}
		p++

		var same bool
		if short && lastShort {
			same = qw == lastW && len(qid) == len(lastQid)
		} else {
			same = bytes.Equal(qid, lastQid)
		}
		if cur == -1 || !same {
			lastQid, lastW, lastShort = qid, qw, short
			ti, ok := q.topicOf(qid)
			switch {
			case !ok || sc.parts > 1 && ti%sc.parts != sc.part:
				cur = -2
			case sc.segOf[ti] > 0:
				cur = int(sc.segOf[ti] - 1)
				regroup = true
				if cur != len(res.segs)-1 {
					res.fragmented = true
				}
			default:
				cur = len(res.segs)
				sc.segOf[ti] = int32(cur + 1)
				res.segs = append(res.segs, segment{topic: ti})
				counts = append(counts, 0)
			}
		}
		if cur == -2 {
			continue
		}
		var score float64
		if ok := false; len(scoreTok) <= 8 && scoreAt+8 <= n {
			if score, ok = plainDecimal8(binary.LittleEndian.Uint64(data[scoreAt:]), len(scoreTok)); !ok {
				score = parseFloatPrefix(scoreTok)
			}
		} else {
			score = parseFloatPrefix(scoreTok)
		}
		counts[cur]++
		segOf = append(segOf, int32(cur))
		ents = append(ents, entry{score: score, off: uint32(docAt), n: uint32(len(doc))})
	}
	sc.lineSeg, sc.counts = segOf, counts
	if sc.reuse {
		sc.ents, sc.segs = ents, res.segs
		sc.packRecords(res.segs, ents, segOf, data)
		for i := range res.segs {
			sc.segOf[res.segs[i].topic] = 0
		}
		if res.lines > 0 {
			res.tag = bytes.Clone(data[tagS:tagE])
		}
		return res
	}
	// The tag is copied before the chunk can go back to bufPool: with no
	// kept topic, put gives the buffer to the next reader at once.
	if res.lines > 0 {
		res.tag = bytes.Clone(data[tagS:tagE])
	}
	mem.ents, mem.data = ents, data
	mem.refs.Store(int32(len(res.segs)))
	if len(res.segs) == 0 {
		mem.put()
	}
	if regroup {
		// Counting sort of the entries by segment: pos[k] is where the next
		// entry of segment k goes. (Rare: the sorted copy is not recycled.)
		pos := append(sc.pos[:0], 0)
		for _, c := range counts {
			pos = append(pos, pos[len(pos)-1]+c)
		}
		sc.pos = pos
		sorted := make([]entry, len(ents))
		for i, e := range ents {
			k := segOf[i]
			sorted[pos[k]] = e
			pos[k]++
		}
		ents = sorted
		o := 0
		for i, c := range counts {
			res.segs[i].ents = ents[o : o+c : o+c]
			o += c
		}
	} else {
		o := 0
		for i, c := range counts {
			res.segs[i].ents = ents[o : o+c : o+c]
			o += c
		}
	}
	for i := range res.segs {
		res.segs[i].arena = arena
		res.segs[i].mem = mem
		sc.segOf[res.segs[i].topic] = 0
	}
	return res
}

// packRecords writes the lines of each segment, grouped by segment, as
// topicStore records into the scratch, so that storing a segment is one
// copy (docnos are read from data while the chunk is still in cache).
func (sc *parseScratch) packRecords(segs []segment, ents []entry, segOf []int32, data []byte) {
	pos := slices.Grow(sc.pos[:0], len(segs)+1)[:len(segs)+1]
	clear(pos)
	for i, e := range ents {
		pos[segOf[i]+1] += recordLen(e.n)
	}
	for k := 1; k < len(pos); k++ {
		pos[k] += pos[k-1]
	}
	total := pos[len(segs)]
	for k := range segs {
		segs[k].recs = nil
		segs[k].ents = nil
		segs[k].arena = nil
	}
	recs := slices.Grow(sc.recs[:0], total)[:total]
	sc.recs, sc.pos = recs, pos
	for i, e := range ents {
		k := segOf[i]
		at := pos[k]
		binary.LittleEndian.PutUint64(recs[at:], math.Float64bits(e.score))
		doc := data[e.off : e.off+e.n]
		if e.n < 0x80 {
			recs[at+8] = byte(e.n)
			copy(recs[at+9:], doc)
			pos[k] = at + 9 + len(doc)
			continue
		}
		m := binary.PutUvarint(recs[at+8:], uint64(e.n))
		pos[k] = at + 8 + m + copy(recs[at+8+m:], doc)
	}
	start := 0
	for k := range segs {
		segs[k].recs = recs[start:pos[k]:pos[k]]
		start = pos[k]
	}
}

// recordLen is the size of a topicStore record for a docno of n bytes.
func recordLen(n uint32) int {
	if n < 0x80 {
		return 9 + int(n)
	}
	return 8 + uvarintLen(n) + int(n)
}

// runReader streams a run file through parallel parsers and hands complete
// topics to the evaluator. In eager mode a topic is handed over as soon as
// another topic's lines follow it; otherwise (interleaved runs, standard
// input) the lines of the topics of part `part` of `parts` (topic index
// modulo parts) are added to a topicStore and the topics are handed over
// at the end. An eager read gives up with errFragmented at the
// first chunk that shows a topic's lines are not contiguous.
type runReader struct {
	q      *Qrels
	eager  bool
	parts  int
	part   int
	submit func(job)

	acc        [][]segment // eager: the segments of each open topic
	store      *topicStore // collect: the lines of each kept topic
	dispatched []bool
	tag        []byte
	lines      int
}

// topicStore keeps the lines of the topics being collected, in file order,
// as the chunks come back from the parsers (one writer, the in-order loop
// of runReader.read). Each topic owns a list of blocks of records (score as
// 8 bytes little endian, docno length as a uvarint, docno): about 9 bytes
// plus the docno per line, and no copy of the raw file. Blocks grow from
// minBlock to maxBlock bytes, so a topic wastes less than maxBlock.
type topicStore struct {
	topics []storedTopic
}

// storedTopic is one topic's lines: full blocks, then the block being
// filled.
type storedTopic struct {
	blocks [][]byte
	cur    []byte
}

const (
	minBlock = 256
	maxBlock = 4 << 10
)

func newTopicStore(topics int) *topicStore {
	return &topicStore{topics: make([]storedTopic, topics)}
}

// add appends the records of one chunk segment to its topic. A record
// never spans two blocks.
func (st *topicStore) add(s segment) {
	t := &st.topics[s.topic]
	cur, recs := t.cur, s.recs
	for len(recs) > 0 {
		room := cap(cur) - len(cur)
		if room >= len(recs) {
			cur = append(cur, recs...)
			break
		}
		k := 0 // the whole records that fit
		for k < len(recs) {
			n, m := binary.Uvarint(recs[k+8:])
			l := 8 + m + int(n)
			if k+l > room {
				break
			}
			k += l
		}
		if cur != nil {
			t.blocks = append(t.blocks, append(cur, recs[:k]...))
		}
		recs = recs[k:]
		n, m := binary.Uvarint(recs[8:])
		cur = make([]byte, 0, max(min(2*cap(cur), maxBlock), minBlock, 8+m+int(n)))
	}
	t.cur = cur
}

// take returns a topic's blocks and forgets them.
func (st *topicStore) take(ti int) [][]byte {
	t := &st.topics[ti]
	bl := t.blocks
	if t.cur != nil {
		bl = append(bl, t.cur)
	}
	t.blocks, t.cur = nil, nil
	return bl
}

func uvarintLen(n uint32) int {
	k := 1
	for ; n >= 0x80; n >>= 7 {
		k++
	}
	return k
}

// appendRecords appends the items of a topic's blocks to items.
func appendRecords(items []item, blocks [][]byte) []item {
	for _, b := range blocks {
		for len(b) > 0 {
			score := math.Float64frombits(binary.LittleEndian.Uint64(b))
			n, k := binary.Uvarint(b[8:])
			end := 8 + k + int(n)
			items = append(items, item{score: score, doc: b[8+k : end : end]})
			b = b[end:]
		}
	}
	return items
}

// read parses the whole run. It returns errFragmented (only when eager)
// when a topic's lines are not contiguous, or a *trecError for a
// malformed line.
func (rr *runReader) read(r io.Reader, name string) error {
	nt := len(rr.q.topics)
	if rr.parts < 1 {
		rr.parts = 1
	}
	if rr.eager {
		rr.acc = make([][]segment, nt)
		rr.dispatched = make([]bool, nt)
	} else {
		rr.store = newTopicStore(nt)
	}

	workers := runtime.GOMAXPROCS(0)
	chunks := make(chan chunk, workers)
	results := make(chan chunkResult, workers*2)
	done := make(chan struct{})
	var readErr error
	var empty bool

	var wg sync.WaitGroup
	// Reader.
	go func() {
		defer close(chunks)
		var carry []byte
		idx := 0
		total := 0
		for {
			size := chunkSize
			for size < len(carry)*2 {
				size *= 2
			}
			var buf []byte
			if size == chunkSize {
				buf = getBuf()
			} else {
				buf = make([]byte, size)
			}
			k := copy(buf, carry)
			m, err := io.ReadFull(r, buf[k:])
			total += m
			buf = buf[:k+m]
			eof := err == io.EOF || err == io.ErrUnexpectedEOF
			if err != nil && !eof {
				readErr = err
				return
			}
			if eof {
				if total == 0 {
					empty = true
					return
				}
				if len(buf) > 0 {
					if buf[len(buf)-1] != '\n' {
						buf = append(buf, '\n')
					}
					select {
					case chunks <- chunk{idx: idx, data: buf}:
					case <-done:
					}
				}
				return
			}
			last := bytes.LastIndexByte(buf, '\n')
			if last < 0 {
				carry = buf // a line longer than the buffer: grow
				continue
			}
			carry = bytes.Clone(buf[last+1:])
			select {
			case chunks <- chunk{idx: idx, data: buf[:last+1]}:
			case <-done:
				return
			}
			idx++
		}
	}()
	// Parsers. A parser takes a scratch from free before it takes a chunk,
	// and the in-order loop gives it back once it has used the chunk's
	// result: at most cap(free) chunks are between the reader and that
	// loop, however far a descheduled parser lets the others run ahead (the
	// results waiting for it held 100 MiB of the 7M-line pair once), and
	// the chunk every later one waits for always has its scratch.
	// Collecting, the scratch holds the chunk's records until the loop
	// has stored them, so the store has a single writer.
	free := make(chan *parseScratch, workers+2)
	for range cap(free) {
		if rr.eager {
			free <- &parseScratch{parts: 1}
		} else {
			free <- &parseScratch{parts: rr.parts, part: rr.part, reuse: true}
		}
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				var sc *parseScratch
				select {
				case sc = <-free:
				case <-done:
					return
				}
				c, ok := <-chunks
				if !ok {
					return
				}
				if parseHook != nil {
					parseHook(c.idx)
				}
				res := parseChunk(c, rr.q, sc)
				res.sc = sc
				if !rr.eager { // eager, the chunk is its segments' (chunkMem)
					res.data = c.data
				}
				select {
				case results <- res:
				case <-done:
				}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	stop := func() {
		close(done)
		for range results {
		}
	}
	pending := map[int]chunkResult{}
	next := 0
	cur := -1
	for res := range results {
		pending[res.idx] = res
		for {
			c, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			if c.badLine > 0 {
				stop()
				return inputFail("trec_eval.get_results: Malformed line %d\ntrec_eval: Quit in file '%s'\n", rr.lines+c.badLine, name)
			}
			rr.lines += c.lines
			if c.tag != nil {
				rr.tag = c.tag
			}
			if !rr.eager {
				for _, s := range c.segs {
					rr.store.add(s)
				}
				putBuf(c.data)
				free <- c.sc
				continue
			}
			if c.fragmented {
				stop()
				return errFragmented
			}
			for _, s := range c.segs {
				ti := s.topic
				if ti != cur && cur >= 0 {
					rr.submit(job{ti: cur, segs: rr.acc[cur]})
					rr.acc[cur] = nil
					rr.dispatched[cur] = true
				}
				cur = ti
				if ti < 0 {
					continue
				}
				if rr.dispatched[ti] {
					stop()
					return errFragmented
				}
				rr.acc[ti] = append(rr.acc[ti], s)
			}
			free <- c.sc
		}
	}
	if readErr != nil {
		return inputFail("trec_eval.get_results: Cannot read results file '%s'\ntrec_eval: Quit in file '%s'\n", name, name)
	}
	if empty {
		return inputFail("trec_eval.get_results: Cannot read results file '%s'\ntrec_eval: Quit in file '%s'\n", name, name)
	}
	if rr.eager {
		if cur >= 0 {
			rr.submit(job{ti: cur, segs: rr.acc[cur]})
			rr.acc[cur] = nil
			rr.dispatched[cur] = true
		}
		return nil
	}
	for ti := range rr.store.topics {
		if bl := rr.store.take(ti); len(bl) > 0 {
			rr.submit(job{ti: ti, blocks: bl})
		}
	}
	return nil
}
