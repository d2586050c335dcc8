package suite

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"runtime"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// The lean parse. goccy/go-yaml's AST costs about 10 KB per case, so the
// whole-document parse of a 100,000-case suite peaks near 1 GB. parseLean
// instead finds the case items in the text, parses the file without them
// (the header), then parses and decodes one case item at a time (simple
// items by the fast front end of native_fast.go, others by goccy), shifting
// every token's line (and, where a piece starts mid-line, column) back to
// where it is in the file, so that positions are the same as in the
// whole-document parse. The decoding (nativeDecoder) is the same code.
//
// Only two simple shapes are split, and only when nothing can make a piece
// read differently on its own:
//
//   - block style: a top-level "cases:" line (nothing after the colon but a
//     comment) followed by "- " items at one indentation, every other line
//     of an item more indented (blank and comment lines anywhere);
//   - JSON: a file that is one object, with a top-level "cases" array of
//     objects, written with double-quoted strings, numbers, true, false,
//     null, punctuation, spaces and newlines only.
//
// Anything else falls back to the whole-document parse: tabs, carriage
// returns, document markers or directives, anchors, aliases and merge keys
// anywhere, a second "cases", odd indentation. So does any fault the lean
// parse meets (a syntax error in a piece, an unknown field, a wrong type),
// so that every error message comes from the whole-document parse.

// leanParse, when false, makes parseNative and load parse the whole
// document always (the tests compare the two paths).
var leanParse = true

// errNotLean stops the lean parse: the whole document is parsed instead.
var errNotLean = errors.New("not lean")

// leanSplit is a suite source cut into its header and its case items.
type leanSplit struct {
	header []byte
	// casesLine is the line of the "cases" key (the same in the header).
	casesLine int
	// Tokens of the header at or after (cutLine, cutCol) come from after
	// the cut: they move dLine lines down, and those on cutLine to column
	// col - cutCol + endCol.
	cutLine, cutCol, dLine, endCol int
	pieces                         []leanPiece
	json                           bool
	// ra, when set, holds the text the pieces are read from, at base.
	ra   io.ReaderAt
	base int64
	// indent is the column-1 of the block items' "-" (block style).
	indent int
	// lastSentinel is appended to the last block piece, and "-" at indent
	// to the others: what follows the item in the file (a top-level key,
	// nothing at the end, or the next item), so that goccy sees the item
	// end as it does in the whole file.
	lastSentinel string
}

// leanPiece is one case item: src[start:end], which starts at line, col of
// the file (col 1 when start is the start of a line). A suite keeps one per
// case while it loads, so it is small.
type leanPiece struct {
	start, end int
	line, col  int32
}

// parseLean parses src in pieces; ok is false when it cannot be sure to
// match parseWhole, or met any fault.
func parseLean(file string, src []byte) (p *parsed, ok bool) {
	sp, ok := splitLean(src)
	if !ok {
		return nil, false
	}
	return sp.decode(file, src)
}

// parseLeanFile is parseLean of the file at path (a UTF-8 byte order mark
// left out) that does not hold the file's text while it decodes the cases:
// it reads the file to split it, lets that go, and reads each batch of
// pieces back from the file. A file that changes meanwhile is not read.
func parseLeanFile(file string) (*parsed, bool) {
	f, err := os.Open(file)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil || !before.Mode().IsRegular() || before.Size() >= math.MaxInt32 {
		return nil, false
	}
	src := make([]byte, before.Size())
	if _, err := io.ReadFull(f, src); err != nil {
		return nil, false
	}
	var base int64
	if bytes.HasPrefix(src, []byte("\ufeff")) {
		src, base = src[3:], 3
	}
	sp, ok := splitLean(src)
	if !ok {
		return nil, false
	}
	src = nil // the pieces are read back from f
	sp.ra, sp.base = f, base
	p, ok := sp.decode(file, nil)
	if !ok {
		return nil, false
	}
	after, err := f.Stat()
	if err != nil || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
		return nil, false
	}
	return p, true
}

// splitLean splits src by its shape: JSON or block style.
func splitLean(src []byte) (sp *leanSplit, ok bool) {
	defer func() {
		if recover() != nil {
			sp, ok = nil, false
		}
	}()
	if len(src) >= math.MaxInt32 {
		return nil, false // lines and columns of pieces are int32
	}
	if first := bytes.TrimLeft(src, " \n"); len(first) > 0 && first[0] == '{' {
		return splitJSON(src)
	}
	return splitBlock(src)
}

// decode parses the header and decodes the cases, reading the pieces from
// src, or from sp.ra when src is nil.
func (sp *leanSplit) decode(file string, src []byte) (p *parsed, ok bool) {
	defer func() {
		if recover() != nil {
			p, ok = nil, false
		}
	}()
	body, ok := sp.parseHeader()
	if !ok {
		return nil, false
	}
	r := &nodeReader{file: file}
	p, err := decodeNative(r, body, sp.parsePieces(src), len(sp.pieces))
	if err != nil {
		return nil, false
	}
	return p, true
}

// batchBytes returns the text of pieces lo..hi-1 and the offset in the
// file of its first byte: src itself, or read from sp.ra.
func (sp *leanSplit) batchBytes(src []byte, lo, hi int) ([]byte, int, bool) {
	if src != nil {
		return src, 0, true
	}
	start, end := sp.pieces[lo].start, sp.pieces[hi-1].end
	buf := make([]byte, end-start)
	if _, err := sp.ra.ReadAt(buf, sp.base+int64(start)); err != nil {
		return nil, 0, false
	}
	return buf, start, true
}

// parseHeader parses the header and checks that it is a block mapping
// with one "cases" key, on casesLine, holding nothing (block) or [] (JSON).
func (sp *leanSplit) parseHeader() (ast.Node, bool) {
	tks := lexer.Tokenize(string(sp.header))
	for _, tk := range tks {
		if !leanToken(tk) {
			return nil, false
		}
		pos := tk.Position
		if pos.Line > sp.cutLine || pos.Line == sp.cutLine && pos.Column >= sp.cutCol {
			if pos.Line == sp.cutLine {
				pos.Column = pos.Column - sp.cutCol + sp.endCol
			}
			pos.Line += sp.dLine
		}
	}
	body, ok := parseOneBody(tks)
	if !ok {
		return nil, false
	}
	var values []*ast.MappingValueNode
	switch m := body.(type) {
	case *ast.MappingNode:
		if m.IsFlowStyle != sp.json {
			return nil, false
		}
		values = m.Values
	case *ast.MappingValueNode:
		if sp.json {
			return nil, false
		}
		values = []*ast.MappingValueNode{m}
	default:
		return nil, false
	}
	found := 0
	for _, mv := range values {
		k, ok := nodeScalar(mv.Key)
		if !ok || k != "cases" {
			continue
		}
		found++
		if line, _ := nodePos(mv.Key); line != sp.casesLine {
			return nil, false
		}
		switch v := mv.Value.(type) {
		case nil, *ast.NullNode:
			if sp.json {
				return nil, false
			}
		case *ast.SequenceNode:
			if !sp.json || len(v.Values) != 0 {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return body, found == 1
}

// parsePieces yields the parsed case items in order. goccy/go-yaml's
// parse is most of the time of a load, so workers (one per CPU, at most
// leanWorkers) parse the pieces ahead while the caller decodes them.
func (sp *leanSplit) parsePieces(src []byte) caseSource {
	return func(yield func(ast.Node) error) error {
		n := len(sp.pieces)
		workers := min(runtime.GOMAXPROCS(0), leanWorkers, n/leanBatch)
		if workers < 2 {
			for b := 0; b < n; b += leanBatch {
				hi := min(b+leanBatch, n)
				buf, off, ok := sp.batchBytes(src, b, hi)
				if !ok {
					return errNotLean
				}
				for i := b; i < hi; i++ {
					item, ok := sp.parsePiece(buf, off, i)
					if !ok {
						return errNotLean
					}
					if err := yield(item); err != nil {
						return err
					}
				}
			}
			return nil
		}
		// Worker w parses the batches w, w+workers, ... and sends each
		// on its channel; the caller takes them round-robin, in order.
		type batch struct {
			items []ast.Node
			ok    bool
		}
		done := make(chan struct{})
		defer close(done)
		chans := make([]chan batch, workers)
		for w := range chans {
			chans[w] = make(chan batch, 2)
			go func(w int) {
				defer func() {
					if recover() != nil {
						select {
						case chans[w] <- batch{}:
						case <-done:
						}
					}
				}()
				for b := w * leanBatch; b < n; b += workers * leanBatch {
					out := batch{items: make([]ast.Node, 0, leanBatch), ok: true}
					hi := min(b+leanBatch, n)
					buf, off, ok := sp.batchBytes(src, b, hi)
					out.ok = ok
					for i := b; ok && i < hi; i++ {
						item, ok := sp.parsePiece(buf, off, i)
						if !ok {
							out.ok = false
							break
						}
						out.items = append(out.items, item)
					}
					select {
					case chans[w] <- out:
					case <-done:
						return
					}
					if !out.ok {
						return
					}
				}
			}(w)
		}
		for b, k := 0, 0; b < n; b, k = b+leanBatch, k+1 {
			out := <-chans[k%workers]
			if !out.ok {
				return errNotLean
			}
			for _, item := range out.items {
				if err := yield(item); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

// leanWorkers bounds the goroutines that parse pieces; leanBatch is the
// number of case items one hands over at a time.
const (
	leanWorkers = 4
	leanBatch   = 64
)

// parsePiece parses case item i, whose text is in buf, which starts at
// offset off of the file, and returns its node.
func (sp *leanSplit) parsePiece(buf []byte, off, i int) (ast.Node, bool) {
	pc := sp.pieces[i]
	pc.start, pc.end = pc.start-off, pc.end-off
	if leanFast {
		if n := sp.fastPiece(buf, pc); n != nil {
			return n, true
		}
	}
	var text string
	dLine, dCol := int(pc.line)-1, int(pc.col)-1
	sentinel := sp.lastSentinel
	if i+1 < len(sp.pieces) {
		sentinel = strings.Repeat(" ", sp.indent) + "-\n"
	}
	if sp.json {
		text = string(buf[pc.start:pc.end])
	} else {
		// "c:" above the item makes it a block sequence entry, as it is
		// under "cases:" in the file.
		text = "c:\n" + string(buf[pc.start:pc.end]) + sentinel
		dLine--
	}
	tks := lexer.Tokenize(text)
	for _, tk := range tks {
		if !leanToken(tk) {
			return nil, false
		}
		if tk.Position.Line == 1 {
			tk.Position.Column += dCol
		}
		tk.Position.Line += dLine
	}
	body, ok := parseOneBody(tks)
	if !ok {
		return nil, false
	}
	if sp.json {
		if m, ok := body.(*ast.MappingNode); ok && m.IsFlowStyle {
			return m, true
		}
		return nil, false
	}
	var mv *ast.MappingValueNode
	switch m := body.(type) {
	case *ast.MappingValueNode:
		mv = m
	case *ast.MappingNode:
		if m.IsFlowStyle || len(m.Values) == 0 {
			return nil, false
		}
		mv = m.Values[0]
	default:
		return nil, false
	}
	seq, ok := mv.Value.(*ast.SequenceNode)
	if !ok || seq.IsFlowStyle {
		return nil, false
	}
	want := 1
	if strings.HasSuffix(sentinel, "-\n") {
		want = 2
	}
	if len(seq.Values) != want {
		return nil, false
	}
	return seq.Values[0], true
}

// leanToken reports whether a token may appear in a split file: anchors,
// aliases and merge keys reach across pieces, document markers and
// directives across documents.
func leanToken(tk *token.Token) bool {
	switch tk.Type {
	case token.AnchorType, token.AliasType, token.MergeKeyType,
		token.DocumentHeaderType, token.DocumentEndType, token.DirectiveType, token.InvalidType:
		return false
	}
	return tk.Position != nil
}

// parseOneBody parses tokens that must hold exactly one document.
func parseOneBody(tks token.Tokens) (ast.Node, bool) {
	f, err := parser.Parse(tks, 0)
	if err != nil || len(f.Docs) != 1 || f.Docs[0] == nil || f.Docs[0].Body == nil {
		return nil, false
	}
	body := f.Docs[0].Body
	if _, ok := body.(*ast.CommentGroupNode); ok {
		return nil, false
	}
	return body, true
}

// splitBlock splits a block-style suite whose top-level "cases:" holds a
// block sequence of items.
func splitBlock(src []byte) (*leanSplit, bool) {
	if bytes.IndexByte(src, '\t') >= 0 || bytes.IndexByte(src, '\r') >= 0 {
		return nil, false
	}
	const (
		before = iota // before "cases:"
		first         // after "cases:", before the first item
		items         // in the items
		after         // after the items
	)
	sp := &leanSplit{}
	state := before
	regionStart, regionEnd := -1, len(src)
	regionStartLine, regionEndLine := 0, 0
	indent := 0
	line := 0
	for off := 0; off < len(src); {
		line++
		end := bytes.IndexByte(src[off:], '\n')
		next := len(src)
		if end < 0 {
			end = len(src)
		} else {
			end += off
			next = end + 1
		}
		l := src[off:end]
		content := bytes.TrimLeft(l, " ")
		ind := len(l) - len(content)
		blank := len(content) == 0 || content[0] == '#'
		isItem := len(content) > 0 && content[0] == '-' && (len(content) == 1 || content[1] == ' ')
		if !blank && ind == 0 {
			// document markers, directives, and "cases" spelled in ways
			// the split does not read.
			if bytes.HasPrefix(l, []byte("---")) || bytes.HasPrefix(l, []byte("...")) || l[0] == '%' ||
				bytes.HasPrefix(l, []byte("? ")) || l[0] == '?' ||
				bytes.HasPrefix(l, []byte(`"cases"`)) || bytes.HasPrefix(l, []byte(`'cases'`)) {
				return nil, false
			}
		}
		switch state {
		case before, after:
			if !blank && ind == 0 && isCasesLine(l) {
				if state == after {
					return nil, false
				}
				state = first
				sp.casesLine = line
				regionStart, regionStartLine = next, line+1
			}
		case first:
			if blank {
				break
			}
			if !isItem {
				return nil, false
			}
			indent = ind
			sp.pieces = append(sp.pieces, leanPiece{start: regionStart, line: int32(regionStartLine), col: 1})
			state = items
		case items:
			switch {
			case blank || ind > indent:
			case ind == indent && isItem:
				sp.pieces[len(sp.pieces)-1].end = off
				sp.pieces = append(sp.pieces, leanPiece{start: off, line: int32(line), col: 1})
			case ind == 0:
				if content[0] == '-' {
					return nil, false
				}
				regionEnd, regionEndLine = off, line
				state = after
			default:
				return nil, false
			}
		}
		off = next
	}
	if len(sp.pieces) == 0 {
		return nil, false
	}
	sentinel := ""
	if regionEnd < len(src) {
		sentinel = "z:\n"
	} else {
		regionEndLine = regionStartLine // nothing of the header follows the cut
	}
	sp.pieces[len(sp.pieces)-1].end = regionEnd
	sp.lastSentinel = sentinel
	sp.header = make([]byte, 0, regionStart+len(src)-regionEnd)
	sp.header = append(append(sp.header, src[:regionStart]...), src[regionEnd:]...)
	sp.cutLine, sp.cutCol, sp.endCol = regionStartLine, 1, 1
	sp.dLine = regionEndLine - regionStartLine
	sp.indent = indent
	return sp, true
}

// isCasesLine reports whether l is `cases:` with nothing after but spaces
// and a comment.
func isCasesLine(l []byte) bool {
	rest, ok := bytes.CutPrefix(l, []byte("cases"))
	if !ok {
		return false
	}
	rest = bytes.TrimLeft(rest, " ")
	rest, ok = bytes.CutPrefix(rest, []byte(":"))
	if !ok {
		return false
	}
	if len(rest) == 0 {
		return true
	}
	if rest[0] != ' ' {
		return false
	}
	rest = bytes.TrimLeft(rest, " ")
	return len(rest) == 0 || rest[0] == '#'
}

// splitJSON splits a JSON suite: one object whose "cases" is an array of
// objects.
func splitJSON(src []byte) (*leanSplit, bool) {
	sp := &leanSplit{json: true}
	var stack []byte
	line, col := 1, 1 // of src[i]
	lineStart := 0
	lastKey := false // the last token at depth 1 was the string "cases"
	colonAfterCases := false
	casesDepth := -1 // len(stack) inside the cases array
	done := false    // the cases array was read
	inElem := false
	var elemEndLine, elemEndCol int
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\n':
			line, col, lineStart = line+1, 1, i+1
			continue
		case c == ' ':
		case c == '"':
			j := i + 1
			for ; j < len(src) && src[j] != '"'; j++ {
				switch {
				case src[j] == '\\':
					j++
				case src[j] < 0x20:
					return nil, false
				}
			}
			if j >= len(src) {
				return nil, false
			}
			if len(stack) == 1 {
				lastKey = string(src[i:j+1]) == `"cases"`
			}
			if casesDepth >= 0 && len(stack) == casesDepth && !inElem {
				return nil, false // a case that is not an object
			}
			for k := i + 1; k <= j; k++ {
				if src[k]&0xC0 != 0x80 {
					col++
				}
			}
			i = j
		case c == ':':
			if len(stack) == 1 {
				colonAfterCases = lastKey
			}
			lastKey = false
		case c == ',':
			if len(stack) == 1 {
				lastKey, colonAfterCases = false, false
			}
		case c == '{' || c == '[':
			if casesDepth >= 0 && len(stack) == casesDepth {
				if c != '{' || inElem {
					return nil, false
				}
				inElem = true
				pc := leanPiece{start: i, line: int32(line), col: int32(col)}
				if len(bytes.TrimLeft(src[lineStart:i], " ")) == 0 {
					pc.start, pc.col = lineStart, 1
				}
				sp.pieces = append(sp.pieces, pc)
			}
			if c == '[' && len(stack) == 1 && colonAfterCases {
				if done {
					return nil, false
				}
				casesDepth = len(stack) + 1
				sp.casesLine = line // corrected below to the key's line
			}
			stack = append(stack, c)
			lastKey = false
		case c == '}' || c == ']':
			if len(stack) == 0 || stack[len(stack)-1] != c-2 {
				return nil, false
			}
			stack = stack[:len(stack)-1]
			if casesDepth >= 0 && len(stack) == casesDepth && c == '}' {
				inElem = false
				sp.pieces[len(sp.pieces)-1].end = i + 1
				elemEndLine, elemEndCol = line, col+1
			}
			if casesDepth >= 0 && len(stack) == casesDepth-1 {
				casesDepth, done = -1, true
			}
			if len(stack) == 0 {
				// only spaces and newlines may follow the object
				if len(bytes.Trim(src[i+1:], " \n")) != 0 {
					return nil, false
				}
			}
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.':
			if casesDepth >= 0 && len(stack) == casesDepth && !inElem {
				return nil, false
			}
		default:
			return nil, false
		}
		if c&0xC0 != 0x80 {
			col++
		}
	}
	if len(stack) != 0 || !done || len(sp.pieces) == 0 {
		return nil, false
	}
	// the "cases" key's line: the split checks it against the header's.
	first, last := sp.pieces[0], sp.pieces[len(sp.pieces)-1]
	sp.casesLine = keyLineBefore(src, first.start, int(first.line))
	if sp.casesLine == 0 {
		return nil, false
	}
	cs, ce := first.start, last.end
	sp.header = make([]byte, 0, cs+len(src)-ce)
	sp.header = append(append(sp.header, src[:cs]...), src[ce:]...)
	sp.cutLine, sp.cutCol = int(first.line), int(first.col)
	sp.dLine = elemEndLine - sp.cutLine
	sp.endCol = elemEndCol
	return sp, true
}

// keyLineBefore is the line of the last `"cases"` before off, which is on
// line line; 0 when there is none.
func keyLineBefore(src []byte, off, line int) int {
	k := bytes.LastIndex(src[:off], []byte(`"cases"`))
	if k < 0 {
		return 0
	}
	return line - bytes.Count(src[k:off], []byte("\n"))
}
