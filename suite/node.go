package suite

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/assay-eval/assay/internal/diag"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// A nodeReader reads values out of a goccy/go-yaml AST, turning every
// mismatch into a *PosError in file. It resolves tags, anchors and aliases.
type nodeReader struct {
	file    string
	anchors map[string]ast.Node
}

// resolve strips tags and anchors and follows aliases.
func (r *nodeReader) resolve(n ast.Node) (ast.Node, error) {
	for depth := 0; n != nil; depth++ {
		if depth > 100 {
			return nil, r.errAt(n, "aliases nest too deeply")
		}
		switch v := n.(type) {
		case *ast.TagNode:
			n = v.Value
		case *ast.AnchorNode:
			if v.Name != nil {
				if r.anchors == nil {
					r.anchors = map[string]ast.Node{}
				}
				r.anchors[v.Name.String()] = v.Value
			}
			n = v.Value
		case *ast.AliasNode:
			name := ""
			if v.Value != nil {
				name = v.Value.String()
			}
			target, ok := r.anchors[name]
			if !ok {
				return nil, r.errAt(n, "unknown alias *%s", name)
			}
			n = target
		default:
			return n, nil
		}
	}
	return nil, nil
}

// pos is the line and column where n starts. A block mapping starts at its
// first key.
func nodePos(n ast.Node) (line, col int) {
	if m, ok := n.(*ast.MappingNode); ok && !m.IsFlowStyle && len(m.Values) > 0 {
		return nodePos(m.Values[0].Key)
	}
	if mv, ok := n.(*ast.MappingValueNode); ok {
		return nodePos(mv.Key)
	}
	var t *token.Token
	if n != nil {
		t = n.GetToken()
	}
	if t == nil || t.Position == nil {
		return 1, 1
	}
	return t.Position.Line, t.Position.Column
}

func (r *nodeReader) errAt(n ast.Node, format string, args ...any) error {
	line, col := nodePos(n)
	return Errorf(r.file, line, col, format, args...)
}

func probAt(n ast.Node, format string, args ...any) problem {
	line, col := nodePos(n)
	return problem{line: line, col: col, msg: fmt.Sprintf(format, args...)}
}

// kindOf names a node's kind for messages: "a string", "a mapping", ...
func nodeKind(n ast.Node) string {
	switch v := n.(type) {
	case nil, *ast.NullNode:
		return "null"
	case *ast.StringNode, *ast.LiteralNode:
		return "a string"
	case *ast.IntegerNode:
		return "an integer"
	case *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a number"
	case *ast.BoolNode:
		return "a boolean"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a sequence"
	default:
		return strings.ToLower(v.Type().String())
	}
}

// got describes a node for "want X, got Y" messages, quoting short scalars.
func nodeDesc(n ast.Node) string {
	switch v := n.(type) {
	case *ast.StringNode:
		if len(v.Value) <= 40 {
			return fmt.Sprintf("a string %q", v.Value)
		}
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		return nodeKind(n) + " " + v.GetToken().Value
	}
	return nodeKind(n)
}

func nodeIsNull(n ast.Node) bool {
	if n == nil {
		return true
	}
	_, ok := n.(*ast.NullNode)
	return ok
}

// yfield is one key/value of a mapping.
type yfield struct {
	key      string
	keyNode  ast.Node
	val      ast.Node // resolved; nil or *ast.NullNode when the value is null
	line     int
	col      int
	keyIndex int
}

// fields reads a mapping whose keys must all be among known. An unknown key
// is an error naming the nearest known key; hint, when set, may explain a
// key that belongs elsewhere.
func (r *nodeReader) fields(n ast.Node, what string, known []string, hint func(key string) string) ([]yfield, error) {
	n, err := r.resolve(n)
	if err != nil {
		return nil, err
	}
	var values []*ast.MappingValueNode
	switch m := n.(type) {
	case *ast.MappingNode:
		values = m.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{m}
	default:
		return nil, r.errAt(n, "%s: want a mapping, got %s", what, nodeDesc(n))
	}
	return r.mappingFields(values, what, known, hint, 0)
}

// mappingFields reads the key/values of one mapping. A merge key ("<<: *x"
// or "<<: [*x, *y]") splices in the fields of the mappings it names; keys
// written explicitly win over merged ones, and earlier merges over later.
func (r *nodeReader) mappingFields(values []*ast.MappingValueNode, what string, known []string, hint func(key string) string, depth int) ([]yfield, error) {
	if depth > 20 {
		return nil, Errorf(r.file, 1, 1, "%s: merge keys nest too deeply", what)
	}
	out := make([]yfield, 0, len(values))
	seen := map[string]int{}
	var merges []ast.Node
	for i, mv := range values {
		if _, ok := mv.Key.(*ast.MergeKeyNode); ok {
			merges = append(merges, mv.Value)
			continue
		}
		kn, err := r.resolve(mv.Key)
		if err != nil {
			return nil, err
		}
		key, ok := nodeScalar(kn)
		if !ok {
			return nil, r.errAt(mv.Key, "%s: a field name must be a string, got %s", what, nodeDesc(kn))
		}
		line, col := nodePos(mv.Key)
		if known != nil && !slices.Contains(known, key) {
			msg := fmt.Sprintf("unknown field %q", key)
			if h := hintFor(hint, key); h != "" {
				msg += " (" + h + ")"
			} else if near := diag.Nearest(key, known); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			}
			return nil, Errorf(r.file, line, col, "%s", msg)
		}
		if first, dup := seen[key]; dup {
			return nil, Errorf(r.file, line, col, "duplicate field %q (first at line %d)", key, first)
		}
		seen[key] = line
		val, err := r.resolve(mv.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, yfield{key: key, keyNode: mv.Key, val: val, line: line, col: col, keyIndex: i})
	}
	for _, m := range merges {
		m, err := r.resolve(m)
		if err != nil {
			return nil, err
		}
		var sources []ast.Node
		if seq, ok := m.(*ast.SequenceNode); ok {
			sources = seq.Values
		} else {
			sources = []ast.Node{m}
		}
		for _, src := range sources {
			src, err := r.resolve(src)
			if err != nil {
				return nil, err
			}
			var mvs []*ast.MappingValueNode
			switch v := src.(type) {
			case *ast.MappingNode:
				mvs = v.Values
			case *ast.MappingValueNode:
				mvs = []*ast.MappingValueNode{v}
			default:
				return nil, r.errAt(src, "%s: a merge key (<<) takes a mapping or a list of mappings, got %s", what, nodeDesc(src))
			}
			merged, err := r.mappingFields(mvs, what, known, hint, depth+1)
			if err != nil {
				return nil, err
			}
			for _, f := range merged {
				if _, dup := seen[f.key]; !dup {
					seen[f.key] = f.line
					out = append(out, f)
				}
			}
		}
	}
	return out, nil
}

func hintFor(hint func(string) string, key string) string {
	if hint == nil {
		return ""
	}
	return hint(key)
}

// scalarText is the text of a string or number scalar as written.
func nodeScalar(n ast.Node) (string, bool) {
	switch v := n.(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		if v.Value == nil {
			return "", true
		}
		return v.Value.Value, true
	case *ast.IntegerNode, *ast.FloatNode:
		return v.GetToken().Value, true
	}
	return "", false
}

// str reads a string. Numbers are accepted as written ("42").
func (r *nodeReader) str(f yfield) (string, error) {
	if s, ok := nodeScalar(f.val); ok {
		return s, nil
	}
	if nodeIsNull(f.val) {
		return "", nil
	}
	return "", r.errAt(f.val, "%s: want a string, got %s", f.key, nodeDesc(f.val))
}

// text reads a free-text value: any scalar, booleans included.
func (r *nodeReader) text(what string, n ast.Node) (string, error) {
	if s, ok := nodeScalar(n); ok {
		return s, nil
	}
	switch v := n.(type) {
	case *ast.BoolNode:
		return v.GetToken().Value, nil
	case nil, *ast.NullNode:
		return "", nil
	}
	return "", r.errAt(n, "%s: want a string, got %s", what, nodeDesc(n))
}

// strList reads a sequence of strings; a single string is a list of one.
func (r *nodeReader) strList(f yfield) ([]string, []ast.Node, error) {
	if nodeIsNull(f.val) {
		return nil, nil, nil
	}
	if s, ok := nodeScalar(f.val); ok {
		return []string{s}, []ast.Node{f.val}, nil
	}
	seq, ok := f.val.(*ast.SequenceNode)
	if !ok {
		return nil, nil, r.errAt(f.val, "%s: want a list of strings, got %s", f.key, nodeDesc(f.val))
	}
	out := make([]string, 0, len(seq.Values))
	nodes := make([]ast.Node, 0, len(seq.Values))
	for _, item := range seq.Values {
		item, err := r.resolve(item)
		if err != nil {
			return nil, nil, err
		}
		s, ok := nodeScalar(item)
		if !ok {
			return nil, nil, r.errAt(item, "%s: want a string, got %s", f.key, nodeDesc(item))
		}
		out = append(out, s)
		nodes = append(nodes, item)
	}
	return out, nodes, nil
}

// integer reads an integer; a float with no fraction is accepted.
func (r *nodeReader) integer(what string, n ast.Node) (int, error) {
	switch v := n.(type) {
	case *ast.IntegerNode:
		switch x := v.Value.(type) {
		case int64:
			if x >= math.MinInt32 && x <= math.MaxInt32 {
				return int(x), nil
			}
		case uint64:
			if x <= math.MaxInt32 {
				return int(x), nil
			}
		}
		return 0, r.errAt(n, "%s: %s is out of range", what, v.Token.Value)
	case *ast.FloatNode:
		if v.Value == math.Trunc(v.Value) && math.Abs(v.Value) <= math.MaxInt32 {
			return int(v.Value), nil
		}
	case *ast.StringNode:
		// The YAML reader keeps a plain number too large for 64 bits as a
		// string; it is a number out of range, not a string.
		if v.Token != nil && v.Token.Type != token.DoubleQuoteType && v.Token.Type != token.SingleQuoteType && bigInteger.MatchString(v.Value) {
			return 0, r.errAt(n, "%s: %s is out of range", what, v.Value)
		}
	}
	return 0, r.errAt(n, "%s: want an integer, got %s", what, nodeDesc(n))
}

// bigInteger is a plain decimal integer (of any size).
var bigInteger = regexp.MustCompile(`^[-+]?[0-9]+$`)

// number reads a finite number.
func (r *nodeReader) number(what string, n ast.Node) (float64, error) {
	switch v := n.(type) {
	case *ast.IntegerNode:
		if s, ok := nodeScalar(v); ok {
			if f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64); err == nil {
				return f, nil
			}
		}
		switch x := v.Value.(type) {
		case int64:
			return float64(x), nil
		case uint64:
			return float64(x), nil
		}
	case *ast.FloatNode:
		return v.Value, nil
	case *ast.InfinityNode, *ast.NanNode:
		return 0, r.errAt(n, "%s: want a finite number, got %s", what, n.GetToken().Value)
	}
	return 0, r.errAt(n, "%s: want a number, got %s", what, nodeDesc(n))
}

// boolean reads true or false.
func (r *nodeReader) boolean(what string, n ast.Node) (bool, error) {
	if v, ok := n.(*ast.BoolNode); ok {
		return v.Value, nil
	}
	return false, r.errAt(n, "%s: want true or false, got %s", what, nodeDesc(n))
}

// strMap reads a mapping of free-text values (tags, vars).
func (r *nodeReader) strMap(f yfield) (map[string]string, error) {
	if nodeIsNull(f.val) {
		return nil, nil
	}
	fs, err := r.fields(f.val, f.key, nil, nil)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(fs))
	for _, kv := range fs {
		s, err := r.text(f.key+"."+kv.key, kv.val)
		if err != nil {
			return nil, err
		}
		out[kv.key] = s
	}
	return out, nil
}
