package suite

import (
	"bytes"
	"io"
	"math"
)

// The split of the lean parse (native_lean.go), done while reading: the
// text goes through a bounded buffer that holds the case item being read
// (and, in block style, the current line), never the whole file, and no
// record is kept per case. The split of a file is made twice: once to learn
// its shape and collect its header (the file without its case items), then
// again to hand each case item to the parser.

// leanSplit is what the split learns of a suite source.
type leanSplit struct {
	// header is the text without its case items (collected when asked).
	header []byte
	// casesLine is the line of the "cases" key (the same in the header).
	casesLine int
	// Tokens of the header at or after (cutLine, cutCol) come from after
	// the cut: they move dLine lines down, and those on cutLine to column
	// col - cutCol + endCol.
	cutLine, cutCol, dLine, endCol int
	// n is the number of case items.
	n    int
	json bool
	// indent is the column-1 of the block items' "-" (block style).
	indent int
}

// sameShape reports whether two splits of a file found the same shape.
func (sp *leanSplit) sameShape(o *leanSplit) bool {
	return o != nil && sp.casesLine == o.casesLine && sp.cutLine == o.cutLine && sp.cutCol == o.cutCol &&
		sp.dLine == o.dLine && sp.endCol == o.endCol && sp.n == o.n && sp.json == o.json && sp.indent == o.indent
}

// leanPiece is one case item: text[start:end] of the text it is handed in,
// which starts at line, col of the file (col 1 when start is the start of
// a line).
type leanPiece struct {
	start, end int
	line, col  int32
	// sentinel is appended to a block item before it is parsed: what
	// follows the item in the file ("-" at the items' indentation before
	// the next item, "z:" before a top-level key, nothing at the end), so
	// that goccy sees the item end as it does in the whole file.
	sentinel string
}

// leanEmit receives a case item's text (valid only during the call) and its
// position; false stops the split.
type leanEmit func(text []byte, pc leanPiece) bool

// leanScanner reads a source through a buffer that keeps the text from
// offset keep on (offsets count from the start of the text, after a byte
// order mark).
type leanScanner struct {
	r    io.Reader
	buf  []byte // buf[0] is at offset base
	base int
	pos  int // of the next byte, in buf
	keep int
	eof  bool
	// header, when set, collects the header.
	header bool
	emit   leanEmit
	sp     *leanSplit
}

const leanBufSize = 64 << 10

// leanMaxBuf bounds the buffer: a line or case item that does not fit in
// it (a runaway comment or query) is left to the whole-document parse,
// whose pre-scan refuses strings and comments longer than
// nesting.MaxScalar, rather than doubling the buffer without end.
const leanMaxBuf = 16 << 20

// scanLean splits the text r holds (a leading UTF-8 byte order mark left
// out when bom), calling emit (when set) with each case item; with header
// it collects the header. ok is false when the text is not of a shape the
// split reads, r failed, or emit stopped it.
func scanLean(r io.Reader, bom, header bool, emit leanEmit) (sp *leanSplit, ok bool) {
	defer func() {
		if recover() != nil {
			sp, ok = nil, false
		}
	}()
	sc := &leanScanner{r: r, buf: make([]byte, 0, leanBufSize), header: header, emit: emit, sp: &leanSplit{}}
	if bom {
		for len(sc.buf) < 3 && sc.fill() {
		}
		if bytes.HasPrefix(sc.buf, []byte("\ufeff")) {
			sc.buf = sc.buf[3:]
		}
	}
	// JSON when the first byte that is not a space or newline is '{'
	for {
		for sc.pos < len(sc.buf) && (sc.buf[sc.pos] == ' ' || sc.buf[sc.pos] == '\n') {
			sc.pos++
		}
		if sc.pos < len(sc.buf) || !sc.fill() {
			break
		}
	}
	isJSON := sc.pos < len(sc.buf) && sc.buf[sc.pos] == '{'
	sc.pos = 0
	if isJSON {
		ok = sc.splitJSON()
	} else {
		ok = sc.splitBlock()
	}
	if !ok || sc.base+len(sc.buf) >= math.MaxInt32 {
		return nil, false // lines and columns of pieces are int32
	}
	return sc.sp, true
}

// fill reads more of the source, dropping what is before keep; false at
// the end of the source.
func (sc *leanScanner) fill() bool {
	if sc.eof {
		return false
	}
	if drop := sc.keep - sc.base; drop > 0 && drop <= sc.pos {
		n := copy(sc.buf, sc.buf[drop:])
		sc.buf = sc.buf[:n]
		sc.base += drop
		sc.pos -= drop
	}
	if len(sc.buf) == cap(sc.buf) {
		if cap(sc.buf) >= leanMaxBuf {
			panic("too large") // recovered by scanLean
		}
		nb := make([]byte, len(sc.buf), 2*cap(sc.buf)) // doubled, exactly
		copy(nb, sc.buf)
		sc.buf = nb
	}
	for {
		n, err := sc.r.Read(sc.buf[len(sc.buf):cap(sc.buf)])
		sc.buf = sc.buf[:len(sc.buf)+n]
		if sc.base+len(sc.buf) >= math.MaxInt32 {
			panic("too large") // recovered by scanLean
		}
		if err != nil {
			if err != io.EOF {
				panic(err)
			}
			sc.eof = true
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// text is the source from offset start to end, which the buffer holds.
func (sc *leanScanner) text(start, end int) []byte { return sc.buf[start-sc.base : end-sc.base] }

// nextLine returns the next line without its newline, its offset and the
// offset after it; ok is false at the end of the source.
func (sc *leanScanner) nextLine() (l []byte, off, next int, ok bool) {
	for {
		if i := bytes.IndexByte(sc.buf[sc.pos:], '\n'); i >= 0 {
			off = sc.base + sc.pos
			l = sc.buf[sc.pos : sc.pos+i]
			sc.pos += i + 1
			return l, off, off + i + 1, true
		}
		if !sc.fill() {
			if sc.pos == len(sc.buf) {
				return nil, 0, 0, false
			}
			off = sc.base + sc.pos
			l = sc.buf[sc.pos:]
			sc.pos = len(sc.buf)
			return l, off, off + len(l), true
		}
	}
}

// splitBlock splits a block-style suite whose top-level "cases:" holds a
// block sequence of items.
func (sc *leanScanner) splitBlock() bool {
	const (
		before = iota // before "cases:"
		first         // after "cases:", before the first item
		items         // in the items
		after         // after the items
	)
	sp := sc.sp
	state := before
	regionStartLine, regionEndLine := 0, 0
	pieceStart, pieceLine := 0, 0
	line := 0
	closePiece := func(end int, sentinel string) bool {
		sp.n++
		if sc.emit == nil {
			return true
		}
		return sc.emit(sc.text(pieceStart, end), leanPiece{start: 0, end: end - pieceStart, line: int32(pieceLine), col: 1, sentinel: sentinel})
	}
	var itemSentinel string
	for {
		if state == first || state == items {
			sc.keep = pieceStart
		} else {
			sc.keep = sc.base + sc.pos
		}
		l, off, next, ok := sc.nextLine()
		if !ok {
			break
		}
		line++
		if bytes.IndexByte(l, '\t') >= 0 || bytes.IndexByte(l, '\r') >= 0 {
			return false
		}
		content := bytes.TrimLeft(l, " ")
		ind := len(l) - len(content)
		blank := len(content) == 0 || content[0] == '#'
		isItem := len(content) > 0 && content[0] == '-' && (len(content) == 1 || content[1] == ' ')
		if !blank && ind == 0 {
			// document markers, directives, and "cases" spelled in ways
			// the split does not read.
			if bytes.HasPrefix(l, []byte("---")) || bytes.HasPrefix(l, []byte("...")) || l[0] == '%' ||
				l[0] == '?' || bytes.HasPrefix(l, []byte(`"cases"`)) || bytes.HasPrefix(l, []byte(`'cases'`)) {
				return false
			}
		}
		switch state {
		case before, after:
			if !blank && ind == 0 && isCasesLine(l) {
				if state == after {
					return false
				}
				state = first
				sp.casesLine = line
				pieceStart, pieceLine = next, line+1
				regionStartLine = line + 1
			}
			sc.addHeader(off, next)
		case first:
			if blank {
				break
			}
			if !isItem {
				return false
			}
			sp.indent = ind
			itemSentinel = string(bytes.Repeat([]byte(" "), ind)) + "-\n"
			state = items
		case items:
			switch {
			case blank || ind > sp.indent:
			case ind == sp.indent && isItem:
				if !closePiece(off, itemSentinel) {
					return false
				}
				pieceStart, pieceLine = off, line
			case ind == 0:
				if content[0] == '-' {
					return false
				}
				if !closePiece(off, "z:\n") {
					return false
				}
				regionEndLine = line
				state = after
				sc.addHeader(off, next)
			default:
				return false
			}
		}
	}
	switch state {
	case before, first:
		return false
	case items:
		if !closePiece(sc.base+sc.pos, "") {
			return false
		}
		regionEndLine = regionStartLine // nothing of the header follows the cut
	}
	sp.cutLine, sp.cutCol, sp.endCol = regionStartLine, 1, 1
	sp.dLine = regionEndLine - regionStartLine
	return true
}

// addHeader adds the text from start to end, which the buffer holds, to
// the header.
func (sc *leanScanner) addHeader(start, end int) {
	if sc.header {
		sc.sp.header = append(sc.sp.header, sc.text(start, end)...)
	}
}

// splitJSON splits a JSON suite: one object whose "cases" is an array of
// objects, separated by single commas.
func (sc *leanScanner) splitJSON() bool {
	sp := sc.sp
	sp.json = true
	var stack []byte
	line, col := 1, 1 // of the current byte
	lineStart := 0
	onlySpaces := true // the line holds only spaces before the current byte
	lastKey := false   // the last token at depth 1 was the string "cases"
	keyLine, lastKeyLine := 0, 0
	colonAfterCases := false
	casesDepth := -1 // len(stack) inside the cases array
	done := false    // the cases array was read
	closed := false  // the top-level object was read
	inElem := false
	needComma, afterComma := false, false // between the elements of the cases array
	var pieceStart int
	var piece leanPiece
	var elemEndLine, elemEndCol int
	// pending is the header text after the last case item read: it is
	// dropped when another item follows.
	var pending []byte
	seenPiece := false
	// string state
	inString, escaped := false, false
	need, lo, hi := 0, byte(0), byte(0) // continuation bytes of a UTF-8 sequence
	var str [8]byte
	strN, strLine := 0, 0
	for {
		if sc.pos == len(sc.buf) {
			switch {
			case inElem:
				sc.keep = pieceStart
			case onlySpaces:
				sc.keep = lineStart
			default:
				sc.keep = sc.base + sc.pos
			}
			if !sc.fill() {
				break
			}
		}
		// the long runs first: string content and spaces
		if inString && !escaped && need == 0 || !inString && sc.buf[sc.pos] == ' ' {
			j, b := sc.pos, sc.buf
			if inString {
				for ; j < len(b); j++ {
					c := b[j]
					if c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
						break
					}
					if strN < len(str) {
						str[strN] = c
					}
					strN++
					col++
				}
			} else {
				for j < len(b) && b[j] == ' ' {
					j++
				}
				col += j - sc.pos
			}
			if j > sc.pos {
				if sc.header && !inElem {
					if !seenPiece || done {
						sp.header = append(sp.header, b[sc.pos:j]...)
					} else {
						pending = append(pending, b[sc.pos:j]...)
					}
				}
				sc.pos = j
				continue
			}
		}
		off := sc.base + sc.pos
		c := sc.buf[sc.pos]
		sc.pos++
		if sc.header && !inElem {
			switch {
			case !seenPiece || done:
				sp.header = append(sp.header, c)
			default:
				pending = append(pending, c)
			}
		}
		if inString {
			// columns count runes: the text must be valid UTF-8
			switch {
			case need > 0:
				if c < lo || c > hi {
					return false
				}
				need, lo, hi = need-1, 0x80, 0xBF
			case c >= 0x80:
				if need, lo, hi = utf8Lead(c); need == 0 {
					return false
				}
			}
			switch {
			case need > 0 && c < 0x80:
				return false
			case escaped:
				if c < 0x20 {
					return false
				}
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				if need > 0 {
					return false
				}
				inString = false
				if len(stack) == 1 {
					lastKey = strN == 5 && string(str[:5]) == "cases"
					lastKeyLine = strLine
				}
			case c < 0x20:
				return false
			}
			if inString && strN < len(str) {
				str[strN] = c
			}
			strN++
			if c&0xC0 != 0x80 {
				col++
			}
			continue
		}
		if closed && c != ' ' && c != '\n' {
			return false // only spaces and newlines may follow the object
		}
		atCases := casesDepth >= 0 && len(stack) == casesDepth && !inElem
		switch {
		case c == '\n':
			line, col, lineStart, onlySpaces = line+1, 1, off+1, true
			continue
		case c == ' ':
		case c == '"':
			if atCases {
				return false // a case that is not an object
			}
			inString, strN, strLine = true, 0, line
		case c == ':':
			if atCases {
				return false
			}
			if len(stack) == 1 {
				colonAfterCases = lastKey
			}
			lastKey = false
		case c == ',':
			if atCases {
				if !needComma {
					return false
				}
				needComma, afterComma = false, true
			}
			if len(stack) == 1 {
				lastKey, colonAfterCases = false, false
			}
		case c == '{' || c == '[':
			if atCases {
				if c != '{' || needComma {
					return false
				}
				inElem, afterComma = true, false
				pieceStart = off
				piece = leanPiece{line: int32(line), col: int32(col)}
				if onlySpaces {
					pieceStart, piece.col = lineStart, 1
				}
				if sc.header {
					if !seenPiece {
						sp.header = sp.header[:len(sp.header)-1-(off-pieceStart)]
					}
					pending = pending[:0]
				}
				if !seenPiece {
					sp.cutLine, sp.cutCol = line, int(piece.col)
					sp.casesLine = keyLine
				}
				seenPiece = true
			}
			if c == '[' && len(stack) == 1 && colonAfterCases {
				if done || casesDepth >= 0 {
					return false
				}
				casesDepth = len(stack) + 1
				keyLine = lastKeyLine
			}
			stack = append(stack, c)
			lastKey = false
		case c == '}' || c == ']':
			if len(stack) == 0 || stack[len(stack)-1] != c-2 {
				return false
			}
			stack = stack[:len(stack)-1]
			if casesDepth >= 0 && len(stack) == casesDepth && c == '}' && inElem {
				inElem, needComma = false, true
				elemEndLine, elemEndCol = line, col+1
				sp.n++
				if sc.emit != nil {
					piece.end = off + 1 - pieceStart
					if !sc.emit(sc.text(pieceStart, off+1), piece) {
						return false
					}
				}
				pending = pending[:0]
			}
			if casesDepth >= 0 && len(stack) == casesDepth-1 {
				if afterComma {
					return false // a trailing comma
				}
				casesDepth, done = -1, true
				if sc.header {
					// the text after the last item belongs to the header
					sp.header = append(sp.header, pending...)
					pending = nil
				}
			}
			if len(stack) == 0 {
				closed = true
			}
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.':
			if atCases {
				return false
			}
		default:
			return false
		}
		if c != ' ' {
			onlySpaces = false
		}
		if c&0xC0 != 0x80 {
			col++
		}
	}
	if len(stack) != 0 || !done || sp.n == 0 || sp.casesLine == 0 {
		return false
	}
	sp.dLine = elemEndLine - sp.cutLine
	sp.endCol = elemEndCol
	return true
}

// utf8Lead is the number of continuation bytes after the UTF-8 lead byte c
// and the range of the first one (as utf8.DecodeRune accepts them); 0 when
// c cannot start a sequence.
func utf8Lead(c byte) (need int, lo, hi byte) {
	switch {
	case c < 0xC2:
		return 0, 0, 0
	case c < 0xE0:
		return 1, 0x80, 0xBF
	case c == 0xE0:
		return 2, 0xA0, 0xBF
	case c == 0xED:
		return 2, 0x80, 0x9F
	case c < 0xF0:
		return 2, 0x80, 0xBF
	case c == 0xF0:
		return 3, 0x90, 0xBF
	case c < 0xF4:
		return 3, 0x80, 0xBF
	case c == 0xF4:
		return 3, 0x80, 0x8F
	}
	return 0, 0, 0
}
