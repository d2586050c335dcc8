package suite

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/nesting"
	"github.com/assay-eval/assay/internal/yamltokens"
)

// The lean parse. goccy/go-yaml's AST costs about 10 KB per case, so the
// whole-document parse of a 100,000-case suite peaks near 1 GB. parseLean
// instead finds the case items in the text (native_split.go, reading it
// through a bounded buffer), parses the file without them (the header),
// then splits the text again and parses and decodes one case item at a time (simple
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

// leanParse, when false, makes parseNative, load and Stream parse the whole
// document always (the tests compare the two paths).
var leanParse = true

// errNotLean stops the lean parse: the whole document is parsed instead.
var errNotLean = errors.New("not lean")

// leanScan splits the text afresh, calling emit with each case item.
type leanScan func(emit leanEmit) (*leanSplit, bool)

// parseLean parses src in pieces; ok is false when it cannot be sure to
// match parseWhole, or met any fault.
func parseLean(file string, src []byte) (p *parsed, ok bool) {
	sp, ok := scanLean(bytes.NewReader(src), false, true, nil)
	if !ok {
		return nil, false
	}
	return sp.decode(file, func(emit leanEmit) (*leanSplit, bool) {
		return scanLean(bytes.NewReader(src), false, false, emit)
	})
}

// leanFile is a suite file open for the lean parse: split once (its shape
// and header known), it can be split again to read its case items, as long
// as it does not change.
type leanFile struct {
	f  *os.File
	fi os.FileInfo
	sp *leanSplit
}

// openLean opens the file at path and splits it (a UTF-8 byte order mark
// left out), holding only its header; ok is false when the lean parse does
// not read it.
func openLean(path string) (*leanFile, bool) {
	if fi, err := boundedfile.Check(path, boundedfile.Suite); err != nil || !fi.Mode().IsRegular() {
		return nil, false // a pipe is read whole, and a fault is the whole load's to report
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() >= math.MaxInt32 {
		f.Close()
		return nil, false
	}
	sp, ok := scanLean(f, true, true, nil)
	if !ok {
		f.Close()
		return nil, false
	}
	return &leanFile{f: f, fi: fi, sp: sp}, true
}

// rescan is the leanScan of the file, from its start.
func (lf *leanFile) rescan(emit leanEmit) (*leanSplit, bool) {
	if _, err := lf.f.Seek(0, io.SeekStart); err != nil {
		return nil, false
	}
	return scanLean(lf.f, true, false, emit)
}

// unchanged reports whether the file still has the size and time it had
// when it was opened.
func (lf *leanFile) unchanged() bool {
	fi, err := lf.f.Stat()
	return err == nil && sameStat(fi, lf.fi)
}

func sameStat(a, b os.FileInfo) bool {
	return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// parseLeanFile is parseLean of the file at path (a UTF-8 byte order mark
// left out) that never holds the file's text: it reads the file once to
// split it and once more to decode its case items. A file that changes
// meanwhile is not read.
func parseLeanFile(path string) (*parsed, bool) {
	lf, ok := openLean(path)
	if !ok {
		return nil, false
	}
	defer lf.f.Close()
	p, ok := lf.sp.decode(path, lf.rescan)
	if !ok || !lf.unchanged() {
		return nil, false
	}
	return p, true
}

// decode parses the header and decodes the case items scan yields.
func (sp *leanSplit) decode(file string, scan leanScan) (p *parsed, ok bool) {
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
	p, err := decodeNative(r, body, sp.parsePieces(scan), sp.n)
	if err != nil {
		return nil, false
	}
	return p, true
}

// parseHeader parses the header and checks that it is a block mapping
// with one "cases" key, on casesLine, holding nothing (block) or [] (JSON).
func (sp *leanSplit) parseHeader() (ast.Node, bool) {
	if nesting.YAML(sp.header) != nil {
		return nil, false // the whole-document parse says where
	}
	tks := lexer.Tokenize(string(sp.header))
	fixPlainColumns(tks, string(sp.header))
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

// parsePieces yields the parsed case items in order, splitting the text
// again with scan; an item that does not parse, or a split that differs
// from sp's, is errNotLean. goccy/go-yaml's parse is most of the time of a
// load, so workers (one per CPU, at most leanWorkers) parse batches of
// items ahead while the caller decodes them; the split runs in its own
// goroutine then.
func (sp *leanSplit) parsePieces(scan leanScan) caseSource {
	return func(yield func(ast.Node) error) error {
		workers := min(runtime.GOMAXPROCS(0), leanWorkers, sp.n/leanBatch)
		if workers < 2 {
			var yerr error
			got, ok := scan(func(text []byte, pc leanPiece) bool {
				item, ok := sp.parsePiece(text, pc)
				if !ok {
					yerr = errNotLean
					return false
				}
				if err := yield(item); err != nil {
					yerr = err
					return false
				}
				return true
			})
			if yerr != nil {
				return yerr
			}
			if !ok || !sp.sameShape(got) {
				return errNotLean
			}
			return nil
		}
		// The split sends batch k to worker k%workers, which parses its
		// batches in order; the caller takes them round-robin, in order.
		type batch struct {
			text   []byte
			pieces []leanPiece
		}
		type parsedBatch struct {
			items []ast.Node
			ok    bool
		}
		done := make(chan struct{})
		var wg sync.WaitGroup
		defer func() {
			close(done)
			wg.Wait()
		}()
		in := make([]chan batch, workers)
		out := make([]chan parsedBatch, workers)
		for w := range workers {
			in[w] = make(chan batch, 1)
			out[w] = make(chan parsedBatch, 2)
		}
		var scanned *leanSplit // set before the in channels close
		scanOK := false
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				for _, c := range in {
					close(c)
				}
			}()
			k := 0
			var cur batch
			send := func() bool {
				select {
				case in[k%workers] <- cur:
					k++
					cur = batch{}
					return true
				case <-done:
					return false
				}
			}
			got, ok := scan(func(text []byte, pc leanPiece) bool {
				if cur.pieces == nil {
					cur.text = make([]byte, 0, len(text)*leanBatch)
					cur.pieces = make([]leanPiece, 0, leanBatch)
				}
				pc.start, pc.end = pc.start+len(cur.text), pc.end+len(cur.text)
				cur.text = append(cur.text, text...)
				cur.pieces = append(cur.pieces, pc)
				return len(cur.pieces) < leanBatch || send()
			})
			if ok && len(cur.pieces) > 0 {
				ok = send()
			}
			scanned, scanOK = got, ok
		}()
		for w := range workers {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				defer close(out[w])
				for b := range in[w] {
					res := parsedBatch{items: make([]ast.Node, 0, len(b.pieces)), ok: true}
					func() {
						defer func() {
							if recover() != nil {
								res.ok = false
							}
						}()
						for _, pc := range b.pieces {
							item, ok := sp.parsePiece(b.text, pc)
							if !ok {
								res.ok = false
								return
							}
							res.items = append(res.items, item)
						}
					}()
					select {
					case out[w] <- res:
					case <-done:
						return
					}
					if !res.ok {
						return
					}
				}
			}(w)
		}
		for k := 0; ; k++ {
			res, more := <-out[k%workers]
			if !more {
				break
			}
			if !res.ok {
				return errNotLean
			}
			for _, item := range res.items {
				if err := yield(item); err != nil {
					return err
				}
			}
		}
		if !scanOK || !sp.sameShape(scanned) {
			return errNotLean
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

// parsePiece parses the case item pc of text and returns its node.
func (sp *leanSplit) parsePiece(text []byte, pc leanPiece) (ast.Node, bool) {
	// An item sits two levels deep in the file (the suite mapping, the
	// cases list): one the pre-scan refuses with two levels to spare is
	// left to the whole-document parse, which says where it is too deep.
	if nesting.YAMLBelow(text[pc.start:pc.end], 2) != nil {
		return nil, false
	}
	if leanFast {
		if n := sp.fastPiece(text, pc); n != nil {
			return n, true
		}
	}
	var src string
	dLine, dCol := int(pc.line)-1, int(pc.col)-1
	sentinel := pc.sentinel
	if sp.json {
		src = string(text[pc.start:pc.end])
	} else {
		// "c:" above the item makes it a block sequence entry, as it is
		// under "cases:" in the file.
		src = "c:\n" + string(text[pc.start:pc.end]) + sentinel
		dLine--
	}
	tks := lexer.Tokenize(src)
	fixPlainColumns(tks, src)
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
	f, err := parser.Parse(yamltokens.FlowLargeMappings(tks), 0)
	if err != nil || len(f.Docs) != 1 || f.Docs[0] == nil || f.Docs[0].Body == nil {
		return nil, false
	}
	body := f.Docs[0].Body
	if _, ok := body.(*ast.CommentGroupNode); ok {
		return nil, false
	}
	return body, true
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
