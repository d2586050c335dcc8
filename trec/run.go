package trec

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
)

func sortByQid(ts []*qrelsTopic) {
	slices.SortFunc(ts, func(a, b *qrelsTopic) int { return strings.Compare(a.qid, b.qid) })
}

// entry is one run line kept for ranking: its score and its docno, stored
// in the arena of the chunk it came from.
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
	arena []byte
}

type chunk struct {
	idx  int
	data []byte
}

type chunkResult struct {
	idx     int
	segs    []segment
	lines   int    // data lines parsed
	badLine int    // 1-based data line of the first malformed line, 0 if none
	tag     []byte // run tag of the last data line
}

const chunkSize = 1 << 20

// bufPool recycles the chunk read buffers (parseChunk copies what it keeps).
var bufPool = sync.Pool{New: func() any { b := make([]byte, chunkSize); return &b }}

func getBuf() []byte { return (*bufPool.Get().(*[]byte))[:chunkSize] }

func putBuf(b []byte) {
	if cap(b) == chunkSize {
		b = b[:chunkSize]
		bufPool.Put(&b)
	}
}

var errFragmented = errors.New("trec: run topics are not contiguous")

// parseScratch is a parser goroutine's reusable state: segOf[ti] is 1 + the
// segment of qrels topic ti in the current chunk (0: none yet).
type parseScratch struct {
	segOf       []int32
	parts, part int // keep only topics with index%parts == part (parts 0: all)
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
	// Pre-size the arena and entries from the chunk size: lines are ~30+ bytes.
	lines := bytes.Count(data, []byte{'\n'})
	ents := make([]entry, 0, lines)
	arena := make([]byte, 0, n/4+64)
	// Lines are grouped by qid within the chunk: segOf[i] is the segment of
	// line i; segments stay contiguous unless a qid comes back.
	cur := -1 // segment of the previous line; -2: a topic not in the qrels
	var lastQid []byte
	var segOf []int32
	var counts []int
	regroup := false
	var tagS, tagE int
	p := 0
	for p < n {
		for data[p] != '\n' && isSpace(data[p]) {
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
		for !isSpace(data[p]) {
			p++
		}
		if data[p] == '\n' {
			res.badLine = res.lines
			sc.reset(res.segs)
			return res
		}
		qid := data[s:p]
		p++
		// iter
		for data[p] != '\n' && isSpace(data[p]) {
			p++
		}
		for !isSpace(data[p]) {
			p++
		}
		if data[p] == '\n' {
			res.badLine = res.lines
			sc.reset(res.segs)
			return res
		}
		p++
		// docno
		for data[p] != '\n' && isSpace(data[p]) {
			p++
		}
		s = p
		for !isSpace(data[p]) {
			p++
		}
		if data[p] == '\n' {
			res.badLine = res.lines
			sc.reset(res.segs)
			return res
		}
		doc := data[s:p]
		p++
		// rank
		for data[p] != '\n' && isSpace(data[p]) {
			p++
		}
		for !isSpace(data[p]) {
			p++
		}
		if data[p] == '\n' {
			res.badLine = res.lines
			sc.reset(res.segs)
			return res
		}
		p++
		// score
		for data[p] != '\n' && isSpace(data[p]) {
			p++
		}
		s = p
		for !isSpace(data[p]) {
			p++
		}
		if data[p] == '\n' {
			res.badLine = res.lines
			sc.reset(res.segs)
			return res
		}
		scoreTok := data[s:p]
		p++
		// tag
		for data[p] != '\n' && isSpace(data[p]) {
			p++
		}
		if data[p] == '\n' {
			res.badLine = res.lines
			sc.reset(res.segs)
			return res
		}
		tagS = p
		for !isSpace(data[p]) {
			p++
		}
		tagE = p
		if data[p] != '\n' {
			p += bytes.IndexByte(data[p:], '\n')
		}
		p++

		if cur == -1 || !bytes.Equal(qid, lastQid) {
			lastQid = qid
			ti, ok := q.index[string(qid)]
			switch {
			case !ok || sc.parts > 1 && ti%sc.parts != sc.part:
				cur = -2
			case sc.segOf[ti] > 0:
				cur = int(sc.segOf[ti] - 1)
				regroup = true
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
		score := parseFloatPrefix(scoreTok)
		counts[cur]++
		segOf = append(segOf, int32(cur))
		ents = append(ents, entry{score: score, off: uint32(len(arena)), n: uint32(len(doc))})
		arena = append(arena, doc...)
	}
	if regroup {
		// Counting sort of the entries by segment.
		start := make([]int, len(counts)+1)
		for i, c := range counts {
			start[i+1] = start[i] + c
		}
		sorted := make([]entry, len(ents))
		pos := slices.Clone(start[:len(counts)])
		for i, e := range ents {
			k := segOf[i]
			sorted[pos[k]] = e
			pos[k]++
		}
		ents = sorted
		for i := range res.segs {
			res.segs[i].ents = ents[start[i]:start[i+1]:start[i+1]]
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
		sc.segOf[res.segs[i].topic] = 0
	}
	if res.lines > 0 {
		res.tag = bytes.Clone(data[tagS:tagE])
	}
	return res
}

// runReader streams a run file through parallel parsers and hands complete
// topics to the evaluator. In eager mode a topic is handed over as soon as
// another topic's lines follow it; otherwise (interleaved runs, standard
// input) the topics of part `part` of `parts` (topic index modulo parts) are
// copied into compact per-topic storage and handed over at the end.
type runReader struct {
	q      *Qrels
	eager  bool
	parts  int
	part   int
	submit func(ti int, segs []segment)

	acc        [][]segment // eager: the segments of each open topic
	store      []segment   // collect: one compact segment per topic
	dispatched []bool
	tag        []byte
	lines      int
}

// keep copies a segment's lines into the topic's compact storage.
func (rr *runReader) keep(ti int, s segment) {
	st := &rr.store[ti]
	for _, e := range s.ents {
		st.ents = append(st.ents, entry{score: e.score, off: uint32(len(st.arena)), n: e.n})
		st.arena = append(st.arena, s.arena[e.off:e.off+e.n]...)
	}
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
		rr.store = make([]segment, nt)
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
	// Parsers.
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := parseScratch{parts: rr.parts, part: rr.part}
			if rr.eager {
				sc.parts = 1
			}
			for c := range chunks {
				res := parseChunk(c, rr.q, &sc)
				putBuf(c.data)
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
			for _, s := range c.segs {
				ti := s.topic
				if !rr.eager {
					if ti%rr.parts == rr.part {
						rr.keep(ti, s)
					}
					continue
				}
				if ti != cur && cur >= 0 {
					rr.submit(cur, rr.acc[cur])
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
			rr.submit(cur, rr.acc[cur])
			rr.acc[cur] = nil
			rr.dispatched[cur] = true
		}
		return nil
	}
	for ti := range rr.store {
		if len(rr.store[ti].ents) > 0 {
			rr.submit(ti, []segment{rr.store[ti]})
			rr.store[ti] = segment{}
		}
	}
	return nil
}
