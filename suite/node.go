package suite

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/assay-eval/assay/internal/diag"
	"github.com/assay-eval/assay/internal/yamltree"
)

// ynode is one value of a suite file, positioned (package yamltree).
type ynode = yamltree.Node

// A nodeReader reads values out of a positioned tree, turning every
// mismatch into a *PosError in file. It follows aliases.
type nodeReader struct {
	file string
}

// resolve follows aliases.
func (r *nodeReader) resolve(n *ynode) (*ynode, error) {
	for depth := 0; n != nil; depth++ {
		if depth > 100 {
			return nil, r.errAt(n, "aliases nest too deeply")
		}
		if n.Kind != yamltree.Alias {
			return n, nil
		}
		if n.Target == nil {
			return nil, r.errAt(n, "unknown alias *%s", n.Text)
		}
		n = n.Target
	}
	return nil, nil
}

// nodePos is the line and column where n starts (1:1 when not known). A
// block mapping starts at its first key.
func nodePos(n *ynode) (line, col int) {
	if n == nil || n.Line == 0 {
		return 1, 1
	}
	return n.Line, n.Col
}

func (r *nodeReader) errAt(n *ynode, format string, args ...any) error {
	line, col := nodePos(n)
	return Errorf(r.file, line, col, format, args...)
}

func probAt(n *ynode, format string, args ...any) problem {
	line, col := nodePos(n)
	return problem{line: line, col: col, msg: fmt.Sprintf(format, args...)}
}

// nodeDesc describes a node for "want X, got Y" messages, quoting short
// scalars.
func nodeDesc(n *ynode) string {
	if n == nil {
		return "null"
	}
	return n.Describe()
}

func nodeIsNull(n *ynode) bool { return n.IsNull() }

// yfield is one key/value of a mapping.
type yfield struct {
	key      string
	keyNode  *ynode
	val      *ynode // resolved; null when the value is null
	line     int
	col      int
	keyIndex int
}

// fields reads a mapping whose keys must all be among known. An unknown key
// is an error naming the nearest known key; hint, when set, may explain a
// key that belongs elsewhere.
func (r *nodeReader) fields(n *ynode, what string, known []string, hint func(key string) string) ([]yfield, error) {
	n, err := r.resolve(n)
	if err != nil {
		return nil, err
	}
	if n == nil || n.Kind != yamltree.Map {
		return nil, r.errAt(n, "%s: want a mapping, got %s", what, nodeDesc(n))
	}
	return r.mappingFields(n, what, known, hint, 0)
}

// mappingFields reads the key/values of mapping m. A merge key ("<<: *x"
// or "<<: [*x, *y]") splices in the fields of the mappings it names; keys
// written explicitly win over merged ones, and earlier merges over later.
func (r *nodeReader) mappingFields(m *ynode, what string, known []string, hint func(key string) string, depth int) ([]yfield, error) {
	if depth > 20 {
		return nil, Errorf(r.file, 1, 1, "%s: merge keys nest too deeply", what)
	}
	out := make([]yfield, 0, len(m.Keys))
	seen := make(map[string]int, len(m.Keys))
	var merges []*ynode
	for i, k := range m.Keys {
		if k.Kind == yamltree.Merge {
			merges = append(merges, m.Vals[i])
			continue
		}
		kn, err := r.resolve(k)
		if err != nil {
			return nil, err
		}
		key, ok := nodeScalar(kn)
		if !ok {
			return nil, r.errAt(k, "%s: a field name must be a string, got %s", what, nodeDesc(kn))
		}
		line, col := nodePos(k)
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
		val, err := r.resolve(m.Vals[i])
		if err != nil {
			return nil, err
		}
		out = append(out, yfield{key: key, keyNode: k, val: val, line: line, col: col, keyIndex: i})
	}
	for _, mg := range merges {
		mg, err := r.resolve(mg)
		if err != nil {
			return nil, err
		}
		sources := []*ynode{mg}
		if mg != nil && mg.Kind == yamltree.Seq {
			sources = mg.Items
		}
		for _, src := range sources {
			src, err := r.resolve(src)
			if err != nil {
				return nil, err
			}
			if src == nil || src.Kind != yamltree.Map {
				return nil, r.errAt(src, "%s: a merge key (<<) takes a mapping or a list of mappings, got %s", what, nodeDesc(src))
			}
			merged, err := r.mappingFields(src, what, known, hint, depth+1)
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

// nodeScalar is the text of a string or number scalar as written.
func nodeScalar(n *ynode) (string, bool) {
	if n == nil {
		return "", false
	}
	return n.Scalar()
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
func (r *nodeReader) text(what string, n *ynode) (string, error) {
	if s, ok := nodeScalar(n); ok {
		return s, nil
	}
	switch {
	case n.IsNull():
		return "", nil
	case n.Kind == yamltree.Bool:
		return n.Text, nil
	}
	return "", r.errAt(n, "%s: want a string, got %s", what, nodeDesc(n))
}

// strList reads a sequence of strings; a single string is a list of one.
func (r *nodeReader) strList(f yfield) ([]string, []*ynode, error) {
	if nodeIsNull(f.val) {
		return nil, nil, nil
	}
	if s, ok := nodeScalar(f.val); ok {
		return []string{s}, []*ynode{f.val}, nil
	}
	if f.val.Kind != yamltree.Seq {
		return nil, nil, r.errAt(f.val, "%s: want a list of strings, got %s", f.key, nodeDesc(f.val))
	}
	out := make([]string, 0, len(f.val.Items))
	nodes := make([]*ynode, 0, len(f.val.Items))
	for _, item := range f.val.Items {
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
func (r *nodeReader) integer(what string, n *ynode) (int, error) {
	switch {
	case n == nil:
	case n.Kind == yamltree.Int:
		switch x := n.Value.(type) {
		case int64:
			if x >= math.MinInt32 && x <= math.MaxInt32 {
				return int(x), nil
			}
		case uint64:
			if x <= math.MaxInt32 {
				return int(x), nil
			}
		}
		return 0, r.errAt(n, "%s: %s is out of range", what, n.Text)
	case n.Kind == yamltree.Float:
		if v, _ := n.Value.(float64); v == math.Trunc(v) && math.Abs(v) <= math.MaxInt32 {
			return int(v), nil
		}
	case n.Kind == yamltree.String:
		// The readers keep a plain number too large for 64 bits as a
		// string; it is a number out of range, not a string.
		if !n.Quoted && bigInteger.MatchString(n.Text) {
			return 0, r.errAt(n, "%s: %s is out of range", what, n.Text)
		}
	}
	return 0, r.errAt(n, "%s: want an integer, got %s", what, nodeDesc(n))
}

// bigInteger is a plain decimal integer (of any size).
var bigInteger = regexp.MustCompile(`^[-+]?[0-9]+$`)

// number reads a finite number.
func (r *nodeReader) number(what string, n *ynode) (float64, error) {
	switch {
	case n == nil:
	case n.Kind == yamltree.Int:
		if f, err := strconv.ParseFloat(strings.ReplaceAll(n.Text, "_", ""), 64); err == nil {
			return f, nil
		}
		switch x := n.Value.(type) {
		case int64:
			return float64(x), nil
		case uint64:
			return float64(x), nil
		}
	case n.Kind == yamltree.Float:
		v, _ := n.Value.(float64)
		return v, nil
	case n.Kind == yamltree.Inf || n.Kind == yamltree.NaN:
		return 0, r.errAt(n, "%s: want a finite number, got %s", what, n.Text)
	}
	return 0, r.errAt(n, "%s: want a number, got %s", what, nodeDesc(n))
}

// boolean reads true or false.
func (r *nodeReader) boolean(what string, n *ynode) (bool, error) {
	if n != nil && n.Kind == yamltree.Bool {
		v, _ := n.Value.(bool)
		return v, nil
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

// asSeq is n when it is a sequence.
func asSeq(n *ynode) (*ynode, bool) {
	return n, n != nil && n.Kind == yamltree.Seq
}

// isSeq reports whether n is a sequence.
func isSeq(n *ynode) bool { return n != nil && n.Kind == yamltree.Seq }
