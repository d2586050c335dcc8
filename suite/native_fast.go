package suite

import (
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// The fast front end of the lean parse. Most case items of a large suite
// are a few keys with short plain or quoted scalars and small flow lists;
// for those, building the goccy/go-yaml nodes directly, with the tokens
// that goccy's own token.New, token.DoubleQuote and token.SingleQuote make
// and the positions its scanner gives, costs a small part of goccy's lexer
// and parser. fastPiece reads only a narrow subset and returns nil on
// anything else (comments, nulls, block scalars, escapes, multi-line
// values, empty collections, duplicate keys, unusual characters), and the
// piece is then parsed by goccy as before. The nodes are decoded by the
// same nativeDecoder, so the field rules stay in one place.

// leanFast, when false, makes the lean parse use goccy for every piece
// (the tests compare the two).
var leanFast = true

type fastParser struct {
	src       []byte
	i, end    int
	line, col int // of src[i]
	json      bool
	ok        bool
}

// fastPiece returns the node of piece pc, or nil when it is not simple.
func (sp *leanSplit) fastPiece(src []byte, pc leanPiece) ast.Node {
	p := &fastParser{src: src, i: pc.start, end: pc.end, line: int(pc.line), col: int(pc.col), json: sp.json, ok: true}
	var n ast.Node
	if sp.json {
		p.skipSpace(true)
		if p.peek() != '{' {
			return nil
		}
		n = p.flowMap()
		p.skipSpace(true)
	} else {
		p.skipBlankLines()
		if !p.ok || p.indent() != sp.indent {
			return nil
		}
		p.advance(sp.indent)
		if p.peek() != '-' || p.peekAt(1) != ' ' {
			return nil
		}
		p.advance(1)
		p.skipSpace(false)
		if p.peek() == '{' {
			n = p.flowMap()
			p.endOfLine()
		} else {
			n = p.blockMap(p.col)
		}
		p.skipBlankLines()
	}
	if !p.ok || n == nil || p.i != p.end {
		return nil
	}
	return n
}

func (p *fastParser) peek() byte {
	if p.i < p.end {
		return p.src[p.i]
	}
	return 0
}

func (p *fastParser) peekAt(k int) byte {
	if p.i+k < p.end {
		return p.src[p.i+k]
	}
	return 0
}

// advance moves n bytes on, keeping line and column (in runes).
func (p *fastParser) advance(n int) {
	for ; n > 0 && p.i < p.end; n-- {
		c := p.src[p.i]
		switch {
		case c == '\n':
			p.line, p.col = p.line+1, 1
		case c&0xC0 != 0x80:
			p.col++
		}
		p.i++
	}
}

func (p *fastParser) pos() *token.Position {
	return &token.Position{Line: p.line, Column: p.col}
}

func (p *fastParser) fail() ast.Node {
	p.ok = false
	return nil
}

// skipSpace skips spaces, and newlines too when nl.
func (p *fastParser) skipSpace(nl bool) {
	for p.i < p.end && (p.src[p.i] == ' ' || nl && p.src[p.i] == '\n') {
		p.advance(1)
	}
}

// indent is the number of spaces at p (at the start of a line).
func (p *fastParser) indent() int {
	k := p.i
	for k < p.end && p.src[k] == ' ' {
		k++
	}
	return k - p.i
}

// skipBlankLines skips lines holding only spaces or a comment. (The fast
// parser reads no block scalar nor multi-line flow value, in which such a
// line could be text.)
func (p *fastParser) skipBlankLines() {
	for p.i < p.end {
		k := p.i + p.indent()
		if k < p.end && p.src[k] == '#' {
			for k < p.end && p.src[k] != '\n' {
				k++
			}
		}
		if k < p.end && p.src[k] != '\n' {
			return
		}
		p.advance(k - p.i + 1)
	}
}

// endOfLine expects only spaces, and a comment after a space, up to the
// end of the line, and moves past it.
func (p *fastParser) endOfLine() {
	p.skipSpace(false)
	if p.peek() == '#' && p.i > 0 && p.src[p.i-1] == ' ' {
		for p.i < p.end && p.src[p.i] != '\n' {
			p.advance(1)
		}
	}
	switch {
	case p.i == p.end:
	case p.src[p.i] == '\n':
		p.advance(1)
	default:
		p.ok = false
	}
}

// scalarNode makes the node goccy's parser makes of tk.
func scalarNode(tk *token.Token) ast.Node {
	switch tk.Type {
	case token.NullType:
		return ast.Null(tk)
	case token.BoolType:
		return ast.Bool(tk)
	case token.IntegerType, token.BinaryIntegerType, token.OctetIntegerType, token.HexIntegerType:
		return ast.Integer(tk)
	case token.FloatType:
		return ast.Float(tk)
	case token.InfinityType:
		return ast.Infinity(tk)
	case token.NanType:
		return ast.Nan(tk)
	case token.StringType, token.SingleQuoteType, token.DoubleQuoteType:
		return ast.String(tk)
	}
	return nil
}

// plainToken is token.New(v, v, pos), without its number parse (whose
// errors allocate) where v cannot be a number or a keyword: it holds a
// space, or starts with a letter and is not null, true or false.
func plainToken(v string, pos *token.Position) *token.Token {
	if strings.IndexByte(v, ' ') >= 0 {
		return token.String(v, v, pos)
	}
	if c := v[0] | 0x20; c >= 'a' && c <= 'z' {
		switch v {
		case "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE":
		default:
			return token.String(v, v, pos)
		}
	}
	return token.New(v, v, pos)
}

// plainByte reports whether c may be inside a plain scalar the fast parser
// reads (bytes of non-ASCII runes are checked apart).
func plainByte(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	switch c {
	case ' ', '_', '.', '/', '?', '(', ')', '+', '-', '=', ';', '$', '^', '~', '<', '>', '@':
		return true
	}
	return false
}

// plain reads a plain scalar: in JSON a number or literal, in YAML a
// single-line scalar of plain bytes that starts with a letter, digit or
// '_' (or '-' and a digit); in block context (block) it may also hold
// commas and quotes.
func (p *fastParser) plain(block bool) ast.Node {
	start, pos := p.i, p.pos()
	c := p.peek()
	if p.json {
		for p.i < p.end {
			c := p.src[p.i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.') {
				break
			}
			p.advance(1)
		}
	} else {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' && p.peekAt(1) >= '0' && p.peekAt(1) <= '9') {
			return p.fail()
		}
		for p.i < p.end {
			c := p.src[p.i]
			if c < utf8.RuneSelf {
				if !plainByte(c) && !(block && (c == ',' || c == '\'' || c == '"')) {
					break
				}
				p.advance(1)
				continue
			}
			r, size := utf8.DecodeRune(p.src[p.i:p.end])
			if r == utf8.RuneError || r < 0xA0 || r == 0x2028 || r == 0x2029 || r == 0xFEFF {
				return p.fail()
			}
			p.advance(size)
		}
	}
	end := p.i
	for end > start && p.src[end-1] == ' ' {
		end--
	}
	if end == start {
		return p.fail()
	}
	v := string(p.src[start:end])
	n := scalarNode(plainToken(v, pos))
	if n == nil {
		return p.fail()
	}
	return n
}

// quoted reads a one-line quoted scalar with no escapes.
func (p *fastParser) quoted() ast.Node {
	q := p.peek()
	pos := p.pos()
	k := p.i + 1
	for k < p.end && p.src[k] != q {
		c := p.src[k]
		if c < 0x20 || c == '\\' || c == 0x7f {
			return p.fail()
		}
		k++
	}
	if k >= p.end {
		return p.fail()
	}
	raw := p.src[p.i+1 : k]
	if !utf8.Valid(raw) {
		return p.fail()
	}
	v := string(raw)
	p.advance(k + 1 - p.i)
	if q == '"' {
		return ast.String(token.DoubleQuote(v, v, pos))
	}
	if p.json {
		return p.fail()
	}
	return ast.String(token.SingleQuote(v, v, pos))
}

// flowValue reads a value inside a flow collection (or a JSON document).
func (p *fastParser) flowValue() ast.Node {
	switch p.peek() {
	case '{':
		return p.flowMap()
	case '[':
		return p.flowSeq()
	case '"', '\'':
		return p.quoted()
	}
	return p.plain(false)
}

func (p *fastParser) flowMap() ast.Node {
	start := &token.Token{Type: token.MappingStartType, CharacterType: token.CharacterTypeIndicator, Indicator: token.FlowCollectionIndicator, Value: "{", Origin: "{", Position: p.pos()}
	p.advance(1)
	p.skipSpace(p.json)
	if p.peek() == '}' {
		return p.fail()
	}
	var values []*ast.MappingValueNode
	var keys keySet
	for p.ok {
		var key ast.Node
		if p.json {
			if p.peek() != '"' {
				return p.fail()
			}
			key = p.quoted()
		} else {
			key = p.plainKey()
		}
		if !p.ok || p.peek() != ':' {
			return p.fail()
		}
		colon := p.colonToken()
		if !p.json && p.peek() != ' ' {
			return p.fail()
		}
		p.skipSpace(p.json)
		val := p.flowValue()
		if !p.ok {
			return nil
		}
		mk, ok := key.(ast.MapKeyNode)
		if !ok || !keys.add(values, key) {
			return p.fail()
		}
		values = append(values, ast.MappingValue(colon, mk, val))
		p.skipSpace(p.json)
		switch p.peek() {
		case ',':
			p.advance(1)
			p.skipSpace(p.json)
			if p.peek() == '}' {
				return p.fail()
			}
		case '}':
			end := &token.Token{Type: token.MappingEndType, CharacterType: token.CharacterTypeIndicator, Indicator: token.FlowCollectionIndicator, Value: "}", Origin: "}", Position: p.pos()}
			p.advance(1)
			m := ast.Mapping(start, true, values...)
			m.End = end
			return m
		default:
			return p.fail()
		}
	}
	return nil
}

func (p *fastParser) flowSeq() ast.Node {
	start := &token.Token{Type: token.SequenceStartType, CharacterType: token.CharacterTypeIndicator, Indicator: token.FlowCollectionIndicator, Value: "[", Origin: "[", Position: p.pos()}
	p.advance(1)
	p.skipSpace(p.json)
	if p.peek() == ']' {
		return p.fail()
	}
	seq := ast.Sequence(start, true)
	for p.ok {
		v := p.flowValue()
		if !p.ok {
			return nil
		}
		seq.Values = append(seq.Values, v)
		p.skipSpace(p.json)
		switch p.peek() {
		case ',':
			p.advance(1)
			p.skipSpace(p.json)
			if p.peek() == ']' {
				return p.fail()
			}
		case ']':
			seq.End = &token.Token{Type: token.SequenceEndType, CharacterType: token.CharacterTypeIndicator, Indicator: token.FlowCollectionIndicator, Value: "]", Origin: "]", Position: p.pos()}
			p.advance(1)
			return seq
		default:
			return p.fail()
		}
	}
	return nil
}

// plainKey reads a YAML key of letters, digits, '_', and after the first
// byte '-', '.' and '/'.
func (p *fastParser) plainKey() ast.Node {
	start, pos := p.i, p.pos()
	for p.i < p.end {
		c := p.src[p.i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' ||
			p.i > start && (c == '-' || c == '.' || c == '/')) {
			break
		}
		p.advance(1)
	}
	if p.i == start {
		return p.fail()
	}
	v := string(p.src[start:p.i])
	n := scalarNode(plainToken(v, pos))
	if n == nil {
		return p.fail()
	}
	return n
}

func (p *fastParser) colonToken() *token.Token {
	tk := &token.Token{Type: token.MappingValueType, CharacterType: token.CharacterTypeIndicator, Indicator: token.BlockStructureIndicator, Value: ":", Origin: ":", Position: p.pos()}
	p.advance(1)
	return tk
}

// keySet finds a repeated key of one mapping. Small mappings, nearly all
// of them, are scanned; from keySetMap keys on, a map keeps the lookups
// linear in the mapping's size (a 40,000-key judgments mapping took 4 s
// of scans).
type keySet struct {
	m map[string]struct{}
}

const keySetMap = 16

// add reports whether key is new among values (the keys added so far),
// and records it.
func (ks *keySet) add(values []*ast.MappingValueNode, key ast.Node) bool {
	k, _ := nodeScalar(key)
	if ks.m == nil && len(values) < keySetMap {
		for _, mv := range values {
			if s, _ := nodeScalar(mv.Key); s == k {
				return false
			}
		}
		return true
	}
	if ks.m == nil {
		ks.m = make(map[string]struct{}, 2*len(values))
		for _, mv := range values {
			s, _ := nodeScalar(mv.Key)
			ks.m[s] = struct{}{}
		}
	}
	if _, dup := ks.m[k]; dup {
		return false
	}
	ks.m[k] = struct{}{}
	return true
}

// blockMap reads a block mapping whose keys are at column col; p is at its
// first key.
func (p *fastParser) blockMap(col int) ast.Node {
	var values []*ast.MappingValueNode
	var keys keySet
	var first *token.Token
	for p.ok {
		key := p.plainKey()
		if !p.ok || p.peek() != ':' {
			return p.fail()
		}
		if first == nil {
			first = key.GetToken()
		}
		colon := p.colonToken()
		var val ast.Node
		switch p.peek() {
		case ' ':
			p.skipSpace(false)
			if p.peek() == '#' {
				for p.i < p.end && p.src[p.i] != '\n' {
					p.advance(1)
				}
			}
			if p.i == p.end || p.peek() == '\n' {
				p.advance(1)
				val = p.nested(col)
			} else {
				val = p.inlineValue()
			}
		case '\n':
			p.advance(1)
			val = p.nested(col)
		default:
			return p.fail()
		}
		if !p.ok {
			return nil
		}
		mk, ok := key.(ast.MapKeyNode)
		if !ok || !keys.add(values, key) {
			return p.fail()
		}
		values = append(values, ast.MappingValue(colon, mk, val))
		// the next key, the end of this mapping, or the end of the piece
		p.skipBlankLines()
		if !p.ok {
			return nil
		}
		if p.i == p.end {
			break
		}
		ind := p.indent()
		if ind+1 < col {
			break
		}
		if ind+1 > col {
			return p.fail()
		}
		p.advance(ind)
	}
	if !p.ok || len(values) == 0 {
		return nil
	}
	return ast.Mapping(first, false, values...)
}

// inlineValue reads a value on the key's line, then the end of the line.
func (p *fastParser) inlineValue() ast.Node {
	var v ast.Node
	switch p.peek() {
	case '{':
		v = p.flowMap()
	case '[':
		v = p.flowSeq()
	case '"', '\'':
		v = p.quoted()
	default:
		v = p.plain(true)
	}
	if p.ok {
		p.endOfLine()
	}
	return v
}

// nested reads the block value below a key at column keyCol: a mapping or
// a sequence of scalars, more indented than the key.
func (p *fastParser) nested(keyCol int) ast.Node {
	p.skipBlankLines()
	if !p.ok || p.i == p.end {
		return p.fail() // null
	}
	ind := p.indent()
	if ind+1 <= keyCol {
		return p.fail() // null
	}
	p.advance(ind)
	if p.peek() == '-' {
		return p.blockSeq(ind + 1)
	}
	return p.blockMap(ind + 1)
}

// blockSeq reads a block sequence of one-line values at column col; p is
// at its first '-'.
func (p *fastParser) blockSeq(col int) ast.Node {
	var seq *ast.SequenceNode
	for p.ok {
		if p.peek() != '-' || p.peekAt(1) != ' ' {
			return p.fail()
		}
		dash := &token.Token{Type: token.SequenceEntryType, CharacterType: token.CharacterTypeIndicator, Indicator: token.BlockStructureIndicator, Value: "-", Origin: "-", Position: p.pos()}
		if seq == nil {
			seq = ast.Sequence(dash, false)
		}
		p.advance(1)
		p.skipSpace(false)
		if p.peek() == '\n' || p.i == p.end {
			return p.fail()
		}
		v := p.inlineValue()
		if !p.ok {
			return nil
		}
		seq.Values = append(seq.Values, v)
		p.skipBlankLines()
		if !p.ok {
			return nil
		}
		if p.i == p.end {
			break
		}
		ind := p.indent()
		if ind+1 < col {
			break
		}
		if ind+1 > col {
			return p.fail()
		}
		p.advance(ind)
	}
	if !p.ok {
		return nil
	}
	return seq
}
