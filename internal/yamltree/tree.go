// Package yamltree is the one positioned tree the hand-written readers of
// YAML files (suites, target files) decode: every value with the line and
// column it was written at, so that each message can name file:line:col.
//
// Parse builds it from YAML text with goccy/go-yaml; ParseJSONLine builds
// the same tree from one line of JSON (checked by encoding/json, walked
// with gjson when it is plain ASCII without escapes, else decoded by
// encoding/json), so that a JSONL file is never read by the YAML parser.
// A reader written against the tree reads both alike.
//
// Tags are dropped (the value stays), anchors are kept by name and an
// alias points to the value it names (Target), resolved in document order
// while the tree is built; a merge key (<<) is a key of kind Merge. What a
// reader accepts of these is its own choice.
package yamltree

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/assay-eval/assay/internal/yamltokens"
)

// Kind is what a Node holds.
type Kind uint8

// The kinds of node.
const (
	Null   Kind = iota // null, ~, or nothing written
	String             // Text; Quoted when written in quotes
	Block              // a block scalar (| or >): Text
	Int                // Value int64 or uint64; Text as written
	Float              // Value float64; Text as written
	Inf                // .inf, -.inf: Text as written
	NaN                // .nan: Text as written
	Bool               // Value bool; Text as written
	Map                // Keys and Vals, in the order written
	Seq                // Items
	Alias              // Text is the anchor's name; Target the value it names (nil: no such anchor before it)
	Merge              // the merge key <<
	Other              // anything else; Text names its kind
)

// A Node is one value and where it was written. Line is 0 for a value
// written nowhere (a key with nothing after it); a mapping written in
// block style is at its first key, any other node at its first token.
type Node struct {
	Kind      Kind
	Line, Col int // 1-based; columns count characters
	Text      string
	Value     any
	Quoted    bool // a String written in quotes
	Flow      bool // a Map or Seq written in flow style ({...}, [...])
	Keys      []*Node
	Vals      []*Node // parallel to Keys
	Items     []*Node
	Target    *Node // of an Alias
}

// A SyntaxError is text the parser refused, at Line and Col (0 when not
// known).
type SyntaxError struct {
	Line, Col int
	Msg       string // the parser's own words, one line
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// A Doc is one YAML document: its body (nil for a document of comments
// only, or none) and where it starts.
type Doc struct {
	Body      *Node
	Line, Col int
}

// Parse parses src, YAML text, into its documents. The caller bounds src
// first (package nesting): the parser's cost explodes on deep or very long
// text. A large block mapping reaches the parser as a flow mapping
// (package yamltokens), and a panic of the parser is an error at 1:1.
func Parse(src string) (docs []Doc, err error) {
	defer func() {
		if r := recover(); r != nil {
			docs, err = nil, &SyntaxError{Line: 1, Col: 1, Msg: fmt.Sprintf("cannot parse: %v", r)}
		}
	}()
	tks := lexer.Tokenize(src)
	fixPlainColumns(tks, src)
	f, err := parser.Parse(yamltokens.FlowLargeMappings(tks), 0)
	if err != nil {
		return nil, syntaxError(err)
	}
	b := builder{anchors: map[string]*Node{}}
	for _, d := range f.Docs {
		if d == nil {
			continue
		}
		doc := Doc{Line: 1, Col: 1}
		if d.Body != nil {
			doc.Line, doc.Col = astPos(d.Body)
		}
		if d.Start != nil && d.Start.Position != nil {
			doc.Line, doc.Col = d.Start.Position.Line, d.Start.Position.Column
		}
		if d.Body != nil {
			if _, comments := d.Body.(*ast.CommentGroupNode); !comments {
				doc.Body = b.node(d.Body)
			}
		}
		docs = append(docs, doc)
	}
	return docs, nil
}

// syntaxError is the SyntaxError of a goccy/go-yaml error.
func syntaxError(err error) *SyntaxError {
	var ye yaml.Error
	if errors.As(err, &ye) {
		e := &SyntaxError{Line: 1, Col: 1, Msg: ye.GetMessage()}
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			e.Line, e.Col = tk.Position.Line, tk.Position.Column
		}
		return e
	}
	return &SyntaxError{Msg: firstLine(err.Error())}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// astPos is where n starts: a block mapping at its first key.
func astPos(n ast.Node) (line, col int) {
	if m, ok := n.(*ast.MappingNode); ok && !m.IsFlowStyle && len(m.Values) > 0 {
		return astPos(m.Values[0].Key)
	}
	if mv, ok := n.(*ast.MappingValueNode); ok {
		return astPos(mv.Key)
	}
	var t *token.Token
	if n != nil {
		t = n.GetToken()
	}
	if t == nil || t.Position == nil {
		return 0, 0
	}
	return t.Position.Line, t.Position.Column
}

// builder converts goccy/go-yaml nodes, keeping the anchors seen so far.
type builder struct {
	anchors map[string]*Node
}

func (b *builder) node(n ast.Node) *Node {
	if n == nil {
		return &Node{Kind: Null}
	}
	out := &Node{}
	out.Line, out.Col = astPos(n)
	switch v := n.(type) {
	case *ast.MappingNode:
		out.Kind, out.Flow = Map, v.IsFlowStyle
		out.Keys = make([]*Node, 0, len(v.Values))
		out.Vals = make([]*Node, 0, len(v.Values))
		for _, mv := range v.Values {
			b.pair(out, mv)
		}
	case *ast.MappingValueNode:
		out.Kind = Map
		b.pair(out, v)
	case *ast.SequenceNode:
		out.Kind, out.Flow = Seq, v.IsFlowStyle
		out.Items = make([]*Node, 0, len(v.Values))
		for _, it := range v.Values {
			out.Items = append(out.Items, b.node(it))
		}
	case *ast.TagNode:
		return b.node(v.Value)
	case *ast.AnchorNode:
		val := b.node(v.Value)
		if v.Name != nil {
			b.anchors[v.Name.String()] = val
		}
		return val
	case *ast.AliasNode:
		out.Kind = Alias
		if v.Value != nil {
			out.Text = v.Value.String()
		}
		out.Target = b.anchors[out.Text]
	case *ast.MergeKeyNode:
		out.Kind = Merge
	case *ast.NullNode:
		out.Kind = Null
	case *ast.StringNode:
		out.Kind, out.Text = String, v.Value
		out.Quoted = v.Token != nil && (v.Token.Type == token.DoubleQuoteType || v.Token.Type == token.SingleQuoteType)
	case *ast.LiteralNode:
		out.Kind = Block
		if v.Value != nil {
			out.Text = v.Value.Value
		}
	case *ast.IntegerNode:
		out.Kind, out.Value, out.Text = Int, v.Value, v.GetToken().Value
	case *ast.FloatNode:
		out.Kind, out.Value, out.Text = Float, v.Value, v.GetToken().Value
	case *ast.InfinityNode:
		out.Kind, out.Value, out.Text = Inf, v.Value, v.GetToken().Value
	case *ast.NanNode:
		out.Kind, out.Value, out.Text = NaN, math.NaN(), v.GetToken().Value
	case *ast.BoolNode:
		out.Kind, out.Value, out.Text = Bool, v.Value, v.GetToken().Value
	default:
		out.Kind, out.Text = Other, strings.ToLower(n.Type().String())
	}
	return out
}

func (b *builder) pair(m *Node, mv *ast.MappingValueNode) {
	m.Keys = append(m.Keys, b.node(mv.Key))
	var val *Node
	if mv.Value == nil {
		val = &Node{Kind: Null}
	} else {
		val = b.node(mv.Value)
	}
	m.Vals = append(m.Vals, val)
}

// Scalar is the text of a string, block scalar or number as written, and
// whether n is one.
func (n *Node) Scalar() (string, bool) {
	switch n.Kind {
	case String, Block, Int, Float:
		return n.Text, true
	}
	return "", false
}

// Describe names n for "want X, got Y" messages: "a string "x"" (quoted
// when short), "an integer 4", "a mapping".
func (n *Node) Describe() string {
	switch n.Kind {
	case String:
		if len(n.Text) <= 40 {
			return fmt.Sprintf("a string %q", n.Text)
		}
	case Int, Float, Bool:
		return n.KindName() + " " + n.Text
	}
	return n.KindName()
}

// KindName names n's kind: "a string", "a mapping", "null"...
func (n *Node) KindName() string {
	if n == nil {
		return "null"
	}
	switch n.Kind {
	case Null:
		return "null"
	case String, Block:
		return "a string"
	case Int:
		return "an integer"
	case Float, Inf, NaN:
		return "a number"
	case Bool:
		return "a boolean"
	case Map:
		return "a mapping"
	case Seq:
		return "a sequence"
	case Alias:
		return "alias"
	case Merge:
		return "mergekey"
	}
	return n.Text
}

// IsNull reports whether n is null or absent.
func (n *Node) IsNull() bool { return n == nil || n.Kind == Null }

// Plain is n as plain Go values: map[string]any, []any, string, int64,
// uint64, float64, bool or nil; an alias is the value it names. A mapping
// key that is not a scalar is an error, at the key.
func (n *Node) Plain() (any, error) {
	return n.plain(0)
}

func (n *Node) plain(depth int) (any, error) {
	if depth > 100 {
		return nil, &SyntaxError{Line: n.Line, Col: n.Col, Msg: "aliases nest too deeply"}
	}
	if n == nil {
		return nil, nil
	}
	switch n.Kind {
	case Map:
		m := make(map[string]any, len(n.Keys))
		for i, k := range n.Keys {
			if k.Kind == Alias && k.Target != nil {
				k = k.Target
			}
			key := "<<"
			if k.Kind != Merge {
				s, ok := k.Scalar()
				if !ok && k.Kind != Bool && k.Kind != Null {
					return nil, &SyntaxError{Line: k.Line, Col: k.Col, Msg: "a mapping key must be a scalar, got " + k.KindName()}
				}
				if ok {
					key = s
				} else {
					key = k.Text
				}
			}
			v, err := n.Vals[i].plain(depth + 1)
			if err != nil {
				return nil, err
			}
			m[key] = v
		}
		return m, nil
	case Seq:
		l := make([]any, len(n.Items))
		for i, it := range n.Items {
			v, err := it.plain(depth + 1)
			if err != nil {
				return nil, err
			}
			l[i] = v
		}
		return l, nil
	case Alias:
		if n.Target == nil {
			return nil, &SyntaxError{Line: n.Line, Col: n.Col, Msg: "unknown alias *" + n.Text}
		}
		return n.Target.plain(depth + 1)
	case String, Block:
		return n.Text, nil
	case Null:
		return nil, nil
	case Merge:
		return "<<", nil
	}
	return n.Value, nil
}
