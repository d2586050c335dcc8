package target

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/assay-eval/assay/internal/diag"
	"github.com/assay-eval/assay/internal/nesting"
	"github.com/assay-eval/assay/internal/yamltree"
)

// node is one value of a target file with where it was written. Target
// files are decoded by hand from this tree (rather than into tagged structs)
// so every message can name file:line:col and the valid choices.
type node struct {
	file      string
	line, col int
	kind      nodeKind
	keys      []string        // mapping keys, in file order
	keyNodes  []*node         // positions of the keys
	vals      []*node         // mapping values, parallel to keys
	items     []*node         // sequence items
	value     any             // scalar: string, int64, uint64, float64, bool or nil
	env       bool            // the string was expanded from ${VAR}
	written   string          // the string as written, before ${VAR} expansion
	keySet    map[string]bool // the keys, of a large mapping while it is read
}

type nodeKind int

const (
	scalarNode nodeKind = iota
	mapNode
	seqNode
)

func (n *node) errorf(format string, args ...any) error {
	return &diag.PosError{File: n.file, Line: n.line, Col: n.col, Msg: fmt.Sprintf(format, args...)}
}

// parseTree reads YAML (or JSON, a subset of it) into a node tree, from
// the positioned tree package yamltree builds (the one the suite reader
// decodes too).
//
// Text nested deeper than nesting.MaxDepth or holding a string longer than
// nesting.MaxScalar is refused before the parser sees it: its costs on
// such text grow far faster than the text.
func parseTree(file string, src []byte) (*node, error) {
	if e := nesting.YAML(src); e != nil {
		return nil, &diag.PosError{File: file, Line: e.Line, Col: e.Col, Msg: e.Msg}
	}
	docs, err := yamltree.Parse(string(src))
	if err != nil {
		var se *yamltree.SyntaxError
		if errors.As(err, &se) {
			return nil, &diag.PosError{File: file, Line: se.Line, Col: se.Col, Msg: strings.ToLower(firstLine(se.Msg))}
		}
		return nil, &diag.PosError{File: file, Msg: firstLine(err.Error())}
	}
	if len(docs) == 0 || docs[0].Body == nil {
		return nil, &diag.PosError{File: file, Msg: "empty target file"}
	}
	if len(docs) > 1 {
		return nil, &diag.PosError{File: file, Msg: "a target file holds one YAML document"}
	}
	return convertNode(file, docs[0].Body, 0)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimPrefix(s, "[")
}

// convertNode is the node of the positioned tree n: a mapping is at its
// first key; an alias is refused.
func convertNode(file string, n *yamltree.Node, depth int) (*node, error) {
	if depth > 64 {
		return nil, &diag.PosError{File: file, Msg: "target file nests too deeply"}
	}
	out := &node{file: file, line: n.Line, col: n.Col}
	switch n.Kind {
	case yamltree.Map:
		out.kind = mapNode
		for i, k := range n.Keys {
			if err := out.addPair(file, k, n.Vals[i], depth); err != nil {
				return nil, err
			}
		}
		if len(n.Keys) > 0 {
			out.line, out.col = out.keyNodes[0].line, out.keyNodes[0].col
		}
	case yamltree.Seq:
		out.kind = seqNode
		for _, it := range n.Items {
			c, err := convertNode(file, it, depth+1)
			if err != nil {
				return nil, err
			}
			out.items = append(out.items, c)
		}
	case yamltree.Alias:
		return nil, out.errorf("aliases are not supported in target files")
	case yamltree.String, yamltree.Block:
		out.value = n.Text
	case yamltree.Merge:
		out.value = "<<"
	case yamltree.Null:
		out.value = nil
	case yamltree.Int, yamltree.Float, yamltree.Inf, yamltree.NaN, yamltree.Bool:
		out.value = n.Value
	default:
		return nil, out.errorf("unsupported YAML node %s", n.Text)
	}
	return out, nil
}

func (out *node) addPair(file string, key, value *yamltree.Node, depth int) error {
	k, err := convertNode(file, key, depth+1)
	if err != nil {
		return err
	}
	if k.kind != scalarNode {
		return k.errorf("mapping keys must be scalars")
	}
	name := scalarString(k.value)
	if out.dup(name) {
		return k.errorf("duplicate key %q", name)
	}
	val, err := convertNode(file, value, depth+1)
	if err != nil {
		return err
	}
	if val.line == 0 {
		val.line, val.col = k.line, k.col
	}
	out.keys = append(out.keys, name)
	out.keyNodes = append(out.keyNodes, k)
	out.vals = append(out.vals, val)
	return nil
}

// dup reports whether key is among out's keys. A large mapping keeps a
// set of them, so that reading one stays linear in its size.
func (out *node) dup(key string) bool {
	if out.keySet == nil && len(out.keys) < 16 {
		return slices.Contains(out.keys, key)
	}
	if out.keySet == nil {
		out.keySet = make(map[string]bool, 2*len(out.keys))
		for _, k := range out.keys {
			out.keySet[k] = true
		}
	}
	if out.keySet[key] {
		return true
	}
	out.keySet[key] = true
	return false
}

func scalarString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	default:
		return fmt.Sprint(x)
	}
}

// expandEnv replaces ${VAR} in every string value (not keys) of the tree.
func (n *node) expandEnv(sc *secrets, getenv func(string) string) error {
	switch n.kind {
	case mapNode:
		for _, v := range n.vals {
			if err := v.expandEnv(sc, getenv); err != nil {
				return err
			}
		}
	case seqNode:
		for _, v := range n.items {
			if err := v.expandEnv(sc, getenv); err != nil {
				return err
			}
		}
	default:
		s, ok := n.value.(string)
		if !ok {
			return nil
		}
		out, used, err := sc.expand(s, getenv)
		if err != nil {
			return n.errorf("%s", err.Error())
		}
		n.value, n.env, n.written = out, used, s
	}
	return nil
}

// get returns the value under key, or nil.
func (n *node) get(key string) *node {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// checkKeys rejects keys outside known, naming the nearest known one.
func (n *node) checkKeys(where string, known ...string) error {
	for i, k := range n.keys {
		ok := false
		for _, kk := range known {
			if k == kk {
				ok = true
				break
			}
		}
		if !ok {
			msg := fmt.Sprintf("unknown field %q in %s", k, where)
			if s := diag.Nearest(k, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			} else {
				sorted := append([]string(nil), known...)
				sort.Strings(sorted)
				msg += fmt.Sprintf(" (known: %s)", strings.Join(sorted, ", "))
			}
			return n.keyNodes[i].errorf("%s", msg)
		}
	}
	return nil
}

// str returns a scalar's text; numbers and booleans are accepted as text.
func (n *node) str(what string) (string, error) {
	if n.kind != scalarNode {
		return "", n.errorf("%s: want a string", what)
	}
	if n.value == nil {
		return "", nil
	}
	return scalarString(n.value), nil
}

func (n *node) strList(what string) ([]string, error) {
	if n.kind == scalarNode && n.value == nil {
		return nil, nil
	}
	if n.kind != seqNode {
		return nil, n.errorf("%s: want a list of strings", what)
	}
	out := make([]string, 0, len(n.items))
	for _, it := range n.items {
		s, err := it.str(what)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (n *node) integer(what string) (int, error) {
	switch v := n.value.(type) {
	case int64:
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			return int(v), nil
		}
		return 0, n.errorf("%s: %d is out of range", what, v)
	case uint64:
		if v <= math.MaxInt32 {
			return int(v), nil
		}
		return 0, n.errorf("%s: %d is out of range", what, v)
	case string:
		if i, err := strconv.ParseInt(v, 10, 32); err == nil {
			return int(i), nil
		} else if errors.Is(err, strconv.ErrRange) {
			return 0, n.errorf("%s: %s is out of range", what, v)
		}
	}
	return 0, n.errorf("%s: want a whole number, got %s", what, describeValue(n))
}

func describeValue(n *node) string {
	switch n.kind {
	case mapNode:
		return "a mapping"
	case seqNode:
		return "a list"
	}
	if n.value == nil {
		return "nothing"
	}
	return strconv.Quote(scalarString(n.value))
}

// plain converts the tree to plain Go values (map[string]any, []any,
// scalars), for redacted descriptions.
func (n *node) plain() any {
	switch n.kind {
	case mapNode:
		m := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			m[k] = n.vals[i].plain()
		}
		return m
	case seqNode:
		l := make([]any, len(n.items))
		for i, it := range n.items {
			l[i] = it.plain()
		}
		return l
	}
	return n.value
}
