package trec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"strconv"
	"unsafe"
)

// spaceTab marks the bytes C isspace accepts in the "C" locale.
var spaceTab = [256]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true}

// isSpace is C isspace in the "C" locale.
func isSpace(c byte) bool { return spaceTab[c] }

// notSpace is !isSpace(c), without a table load for a byte above ' ' (most
// bytes of a line): the per-byte test of the readers' field loops.
func notSpace(c byte) bool { return c > ' ' || !spaceTab[c] }

// isBlank is a space that is not '\n': what separates fields of a line.
func isBlank(c byte) bool { return c <= ' ' && c != '\n' && spaceTab[c] }

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// Judgments of one qrels topic.
type qrelsTopic struct {
	qid    string
	lines  []string // each line's docno, in file order (dropped by buildTable)
	grades []int    // every grade, one per qrels line
	dup    string   // smallest duplicated docno ("" when none)

	// An open-addressing table over the judged docnos, keyed by the
	// Qrels' docHash, for the run-side lookups (see lookup): tab holds each
	// key's hash (with its low bit set; 0 is an empty slot), tidx its index
	// in keys and kgrade, so that a probe reads one word.
	keys   []string
	kgrade []int
	tab    []uint64
	tidx   []int32
	hasDup bool
	pos    int // lines with grade > 0 (the -c summary num_rel)
}

// Qrels is a parsed qrels file: its topics in byte order of qid.
type Qrels struct {
	topics []*qrelsTopic
	index  map[string]int // qid to topic while parsing; then qidSlots
	seed   maphash.Seed
	wseed  uint64 // docHash's seed for docnos of at most 8 bytes

	// qidSlots is an open-addressing table of the qids for topicOf.
	qidSlots []qidSlot
	qidShift uint
}

// qidSlot is a topic in the qid table: ti is 1 + its index (0: empty), and
// a qid of at most 8 bytes is held packed in word, so that finding it reads
// one slot.
type qidSlot struct {
	word uint64
	ti   int32
	n    int32
}

// packQid packs the first 8 bytes of a qid into a word (little endian,
// zero padded; lengths are compared apart).
func packQid(b []byte) uint64 {
	if len(b) >= 8 {
		return binary.LittleEndian.Uint64(b)
	}
	if cap(b) >= 8 { // one load, the bytes past the qid masked off
		return binary.LittleEndian.Uint64(b[:8]) & (1<<(8*len(b)) - 1)
	}
	var w uint64
	for i, c := range b {
		w |= uint64(c) << (8 * i)
	}
	return w
}

func (q *Qrels) qidHash(w uint64, b []byte) uint64 {
	if len(b) <= 8 {
		return (w ^ uint64(len(b))<<59) * 0x9e3779b97f4a7c15
	}
	return maphash.Bytes(q.seed, b)
}

// buildQidTable builds the run-side qid lookup and drops the parse map.
func (q *Qrels) buildQidTable() {
	size, shift := 8, uint(61)
	for size < 2*len(q.topics) {
		size, shift = size*2, shift-1
	}
	q.qidSlots = make([]qidSlot, size)
	q.qidShift = shift
	mask := uint64(size - 1)
	for ti, t := range q.topics {
		b := []byte(t.qid)
		w := packQid(b)
		i := q.qidHash(w, b) >> shift
		for q.qidSlots[i].ti != 0 {
			i = (i + 1) & mask
		}
		q.qidSlots[i] = qidSlot{word: w, ti: int32(ti + 1), n: int32(len(b))}
	}
	q.index = nil
}

// topicOf returns the index of the topic whose qid is b. The lines of an
// interleaved run change topic at every line, so this is one word compare
// for the usual short qids rather than a map lookup.
func (q *Qrels) topicOf(b []byte) (int, bool) {
	mask := uint64(len(q.qidSlots) - 1)
	w := packQid(b)
	for i := q.qidHash(w, b) >> q.qidShift; ; i = (i + 1) & mask {
		s := &q.qidSlots[i]
		if s.ti == 0 {
			return 0, false
		}
		if s.word == w && int(s.n) == len(b) && (len(b) <= 8 || q.topics[s.ti-1].qid == string(b)) {
			return int(s.ti - 1), true
		}
	}
}

// docHash is the hash of a docno in the lookup tables: a mix of the
// packed bytes for a docno of at most 8 bytes (most collections' ids),
// maphash for longer ones; both seeded per process.
func (q *Qrels) docHash(b []byte) uint64 {
	if len(b) > 8 {
		return maphash.Bytes(q.seed, b)
	}
	h := packQid(b) ^ q.wseed ^ uint64(len(b))<<59
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	return h ^ h>>33
}

// buildTable builds the lookup table of a topic from its lines: a docno
// judged twice keeps its first grade and is a duplicate (dup is the
// smallest). Most lookups are of documents the topic has not judged, so the
// table is kept at most a quarter full.
func (t *qrelsTopic) buildTable(q *Qrels) {
	n := len(t.lines)
	size := 8
	for size < 4*n {
		size *= 2
	}
	t.tab = make([]uint64, size)
	t.tidx = make([]int32, size)
	t.keys = make([]string, 0, n)
	t.kgrade = make([]int, 0, n)
	mask := uint64(size - 1)
lines:
	for li, doc := range t.lines {
		h := q.docHash(unsafe.Slice(unsafe.StringData(doc), len(doc)))
		hv := h | 1
		i := h & mask
		for ; t.tab[i] != 0; i = (i + 1) & mask {
			if t.tab[i] == hv && t.keys[t.tidx[i]] == doc {
				if !t.hasDup || doc < t.dup {
					t.dup = doc
				}
				t.hasDup = true
				continue lines
			}
		}
		t.tab[i] = hv
		t.tidx[i] = int32(len(t.keys))
		t.keys = append(t.keys, doc)
		t.kgrade = append(t.kgrade, t.grades[li])
	}
	t.lines = nil
}

// lookup returns the grade of doc (whose docHash is h).
func (t *qrelsTopic) lookup(h uint64, doc []byte) (int, bool) {
	mask := uint64(len(t.tab) - 1)
	hv := h | 1
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.tab[i]
		if s == 0 {
			return 0, false
		}
		if s == hv {
			if k := t.tidx[i]; t.keys[k] == string(doc) {
				return t.kgrade[k], true
			}
		}
	}
}

// NumTopics returns the number of topics in the qrels.
func (q *Qrels) NumTopics() int { return len(q.topics) }

// inputFail is a trec_eval input failure: message lines and exit status 2.
func inputFail(format string, args ...any) *trecError {
	return &trecError{msg: fmt.Sprintf(format, args...), code: 2}
}

// ParseQrels reads a qrels file ("qid iter docno rel" per line) with
// trec_eval v10.0's rules. name is used in messages.
func ParseQrels(data []byte, name string) (*Qrels, error) {
	if len(data) == 0 {
		return nil, inputFail("trec_eval.get_qrels: Cannot read qrels file '%s'\ntrec_eval: Quit in file '%s'\n", name, name)
	}
	if data[len(data)-1] != '\n' {
		data = append(data[:len(data):len(data)], '\n')
	}
	q := &Qrels{index: map[string]int{}}
	// The qids and docnos are cut from one copy of the file rather than
	// allocated line by line.
	text := unsafe.String(unsafe.SliceData(bytes.Clone(data)), len(data))
	var t *qrelsTopic
	line := 0
	p := 0
	n := len(data)
	for p < n {
		if data[p] == '#' {
			// A column-0 comment: skip this one line; the next one is data.
			i := bytes.IndexByte(data[p:], '\n')
			p += i + 1
			if p >= n {
				break
			}
		}
		line++
		bad := func() error {
			return inputFail("trec_eval.get_qrels: Malformed line %d\ntrec_eval: Quit in file '%s'\n", line, name)
		}
		for isBlank(data[p]) {
			p++
		}
		s := p
		for notSpace(data[p]) {
			p++
		}
		if data[p] == '\n' {
			return nil, bad()
		}
		qid, qidAt := data[s:p], s
		p++
		for isBlank(data[p]) {
			p++
		}
		for notSpace(data[p]) {
			p++
		}
		if data[p] == '\n' {
			return nil, bad()
		}
		p++
		for isBlank(data[p]) {
			p++
		}
		s = p
		for notSpace(data[p]) {
			p++
		}
		if data[p] == '\n' {
			return nil, bad()
		}
		doc, docAt := data[s:p], s
		p++
		for isBlank(data[p]) {
			p++
		}
		if data[p] == '\n' {
			return nil, bad()
		}
		s = p
		for notSpace(data[p]) {
			p++
		}
		rel := atol(string(data[s:p]))
		if data[p] != '\n' {
			p++
			for isBlank(data[p]) {
				p++
			}
			if data[p] != '\n' {
				return nil, bad()
			}
		}
		p++
		if t == nil || t.qid != string(qid) {
			ti, ok := q.index[string(qid)]
			if !ok {
				ti = len(q.topics)
				q.index[string(qid)] = ti
				q.topics = append(q.topics, &qrelsTopic{qid: text[qidAt : qidAt+len(qid)]})
			}
			t = q.topics[ti]
		}
		t.lines = append(t.lines, text[docAt:docAt+len(doc)])
		t.grades = append(t.grades, rel)
		if rel > 0 {
			t.pos++
		}
	}
	// Byte order of qid.
	sortTopics(q)
	q.seed = maphash.MakeSeed()
	q.wseed = maphash.Comparable(q.seed, 0)
	for _, t := range q.topics {
		t.buildTable(q)
	}
	q.buildQidTable()
	return q, nil
}

// sortTopics puts the topics in byte order of qid and reindexes them.
func sortTopics(q *Qrels) {
	ts := q.topics
	sortByQid(ts)
	for i, t := range ts {
		q.index[t.qid] = i
	}
}

// lo8 and hi8 are the low and high bit of every byte of a word.
const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

// plainDecimal8 converts a score token of n <= 8 bytes held in the low
// bytes of w (little endian, as loaded from the line) when it is a plain
// decimal: digits and at most one '.', at least one digit. It gives the
// value parseFloatPrefix gives (the same exact m / 10^k), eight bytes at a
// time instead of a loop over them; ok is false for any other token.
func plainDecimal8(w uint64, n int) (v float64, ok bool) {
	if n < 1 || n > 8 {
		return 0, false
	}
	w &= ^uint64(0) >> (64 - 8*n)
	digits, frac := n, 0
	d := w ^ '.'*lo8 // a zero byte where w has a '.'
	if z := (d - lo8) &^ d & hi8; z != 0 {
		// The lowest zero byte is found exactly; close the gap of the '.'.
		p := bits.TrailingZeros64(z) >> 3
		keep := uint64(1)<<(8*p) - 1
		w = w&keep | w>>8&^keep
		digits, frac = n-1, n-1-p
		if digits == 0 {
			return 0, false
		}
	}
	// Left-pad to eight digits with '0'; then every byte must be a digit.
	w = w<<(8*(8-digits)) | '0'*lo8>>(8*digits)
	if ((w+0x46*lo8)|(w-'0'*lo8))&hi8 != 0 {
		return 0, false
	}
	w -= '0' * lo8
	w = w*10 + w>>8 // pairs of digits
	w = ((w&0x000000ff000000ff)*(100+1000000<<32) + (w>>16&0x000000ff000000ff)*(1+10000<<32)) >> 32
	return float64(w) / pow10[frac], true
}

// parseFloatPrefix is C atof: the longest prefix of b that strtod accepts
// (decimal, hexadecimal, inf, infinity, nan), 0 when there is none.
func parseFloatPrefix(b []byte) float64 {
	i := 0
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	start := i
	// Fast path: a plain decimal ("12.3456") whose digits fit in 2^53 and
	// whose fraction has at most 22 digits converts exactly as m / 10^k,
	// one correctly rounded division (Clinger's fast path).
	{
		var m uint64
		nd, frac := 0, 0
		dot := false
		j := i
		for ; j < len(b); j++ {
			c := b[j]
			if c >= '0' && c <= '9' {
				m = m*10 + uint64(c-'0')
				nd++
				if dot {
					frac++
				}
				if nd > 15 {
					break
				}
				continue
			}
			if c == '.' && !dot {
				dot = true
				continue
			}
			break
		}
		if j == len(b) && nd > 0 && frac <= 22 {
			v := float64(m) / pow10[frac]
			if neg {
				v = -v
			}
			return v
		}
	}
	// inf / infinity / nan
	if i < len(b) && (b[i]|0x20 == 'i' || b[i]|0x20 == 'n') {
		rest := b[i:]
		switch {
		case hasPrefixFold(rest, "inf"):
			if neg {
				return math.Inf(-1)
			}
			return math.Inf(1)
		case hasPrefixFold(rest, "nan"):
			if neg { // strtod keeps the sign of "-nan"; printf shows it
				return math.Copysign(math.NaN(), -1)
			}
			return math.NaN()
		}
		return 0
	}
	// hexadecimal
	if i+1 < len(b) && b[i] == '0' && b[i+1]|0x20 == 'x' {
		j := i + 2
		digits := 0
		for j < len(b) && isHex(b[j]) {
			j++
			digits++
		}
		if j < len(b) && b[j] == '.' {
			j++
			for j < len(b) && isHex(b[j]) {
				j++
				digits++
			}
		}
		if digits == 0 {
			// "0x" alone: the prefix "0" parses.
			if neg {
				return math.Copysign(0, -1)
			}
			return 0
		}
		mant := b[start:j]
		exp := []byte("p0")
		if j < len(b) && b[j]|0x20 == 'p' {
			k := j + 1
			if k < len(b) && (b[k] == '+' || b[k] == '-') {
				k++
			}
			if k < len(b) && b[k] >= '0' && b[k] <= '9' {
				for k < len(b) && b[k] >= '0' && b[k] <= '9' {
					k++
				}
				exp = b[j:k]
			}
		}
		s := string(mant) + string(exp)
		if bytes.HasSuffix(mant, []byte(".")) {
			s = string(mant) + "0" + string(exp)
		}
		v, _ := strconv.ParseFloat(s, 64)
		if neg {
			v = -v
		}
		return v
	}
	j := i
	digits := 0
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
		digits++
	}
	if j < len(b) && b[j] == '.' {
		j++
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0
	}
	if j < len(b) && b[j]|0x20 == 'e' {
		k := j + 1
		if k < len(b) && (b[k] == '+' || b[k] == '-') {
			k++
		}
		if k < len(b) && b[k] >= '0' && b[k] <= '9' {
			for k < len(b) && b[k] >= '0' && b[k] <= '9' {
				k++
			}
			j = k
		}
	}
	tok := b[:j]
	v, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(tok), len(tok)), 64)
	if err != nil {
		// Range errors still give ±Inf or 0 as strtod does; anything else
		// (cannot happen for the syntax checked above) gives 0.
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return v
		}
		return 0
	}
	return v
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f'
}

func hasPrefixFold(b []byte, p string) bool {
	if len(b) < len(p) {
		return false
	}
	for i := 0; i < len(p); i++ {
		if b[i]|0x20 != p[i] {
			return false
		}
	}
	return true
}
