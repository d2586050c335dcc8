package suite

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/nesting"
	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

type kebabQuery struct {
	ID               string   `yaml:"id"`
	Query            string   `yaml:"query"`
	Lang             string   `yaml:"lang"`
	ExpectedDocIDs   []string `yaml:"expected_doc_ids"`
	ExpectedChunkIDs []string `yaml:"expected_chunk_ids"`
	MustContain      []string `yaml:"must_contain"`
	Forbidden        []string `yaml:"forbidden"`
	Difficulty       string   `yaml:"difficulty"`
	Group            string   `yaml:"group"`
}

var kebabFields = []string{"id", "query", "lang", "expected_doc_ids", "expected_chunk_ids", "must_contain", "forbidden", "difficulty", "group"}

// kebabItems parses a YAML document whose top level is a list and returns
// its items; ok is false when the top level is not a list.
func kebabItems(data []byte) (items []ast.Node, ok bool, err error) {
	defer func() {
		// Bad input never panics, even if the YAML parser does.
		if r := recover(); r != nil {
			items, ok, err = nil, false, fmt.Errorf("cannot parse YAML: %v", r)
		}
	}()
	if e := nesting.YAML(data); e != nil {
		return nil, false, e
	}
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, false, err
	}
	if len(f.Docs) == 0 || f.Docs[0] == nil || f.Docs[0].Body == nil {
		return nil, false, nil
	}
	seq, isSeq := f.Docs[0].Body.(*ast.SequenceNode)
	if !isSeq {
		return nil, false, nil
	}
	return seq.Values, true, nil
}

// looksLikeKebab reports whether data is a YAML list of mappings with an
// `id` and a `query`.
func looksLikeKebab(data []byte) bool {
	// Cheap first: a top-level list starts with "-", a native suite with a
	// key, so a native file is not parsed twice.
	if !strings.HasPrefix(firstYAMLLine(data), "-") {
		return false
	}
	items, ok, err := kebabItems(data)
	if err != nil || !ok || len(items) == 0 {
		return false
	}
	m, isMap := kebabMapping(items[0])
	if !isMap {
		return false
	}
	keys := map[string]bool{}
	for _, kv := range m.Values {
		keys[kv.Key.String()] = true
	}
	return keys["id"] && keys["query"]
}

// firstYAMLLine returns the first line that is not blank, a comment, a
// directive or a document marker.
func firstYAMLLine(data []byte) string {
	for len(data) > 0 {
		var l []byte
		l, data, _ = bytes.Cut(data, []byte{'\n'})
		s := strings.TrimSpace(string(l))
		if s == "" || s == "---" || strings.HasPrefix(s, "#") || strings.HasPrefix(s, "%") {
			continue
		}
		return s
	}
	return ""
}

func kebabMapping(n ast.Node) (*ast.MappingNode, bool) {
	switch v := n.(type) {
	case *ast.MappingNode:
		return v, true
	case *ast.MappingValueNode:
		return &ast.MappingNode{Values: []*ast.MappingValueNode{v}}, true
	}
	return nil, false
}

// kebabYAMLErr turns a go-yaml error into one line "file:line:col: msg".
func kebabYAMLErr(file string, err error) error {
	var ne *nesting.Error
	if errors.As(err, &ne) {
		return Errorf(file, ne.Line, ne.Col, "%s", ne.Msg)
	}
	var ye yaml.Error
	if errors.As(err, &ye) && ye.GetToken() != nil {
		p := ye.GetToken().Position
		msg := ye.GetMessage()
		if msg != "" {
			msg = strings.ToLower(msg[:1]) + msg[1:]
		}
		return Errorf(file, p.Line, p.Column, "%s", msg)
	}
	first, _, _ := strings.Cut(err.Error(), "\n")
	return Errorf(file, 0, 0, "%s", first)
}

// kebabScalar returns the text of a scalar node; ok is false for a list,
// a mapping or anything else that is not one value.
func kebabScalar(n ast.Node) (string, bool) {
	switch v := n.(type) {
	case nil, *ast.NullNode:
		return "", true
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		return v.Value.Value, true
	case *ast.TagNode:
		return kebabScalar(v.Value)
	case ast.ScalarNode:
		return v.GetToken().Value, true
	}
	return "", false
}

func kebabNodeErr(path, field string, n ast.Node, want string) error {
	p := n.GetToken().Position
	got := "a list"
	if _, isMap := kebabMapping(n); isMap {
		got = "a mapping"
	} else if _, isSeq := n.(*ast.SequenceNode); !isSeq {
		got = strings.ToLower(n.Type().String())
	}
	return Errorf(path, p.Line, p.Column, "%s: want %s, got %s", field, want, got)
}

func kebabString(path, field string, n ast.Node) (string, error) {
	s, ok := kebabScalar(n)
	if !ok {
		return "", kebabNodeErr(path, field, n, "a string")
	}
	return s, nil
}

func kebabList(path, field string, n ast.Node) ([]string, error) {
	if _, isNull := n.(*ast.NullNode); isNull || n == nil {
		return nil, nil
	}
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		return nil, kebabNodeErr(path, field, n, "a list of strings")
	}
	var out []string
	for _, v := range seq.Values {
		s, ok := kebabScalar(v)
		if !ok {
			return nil, kebabNodeErr(path, field+" item", v, "a string")
		}
		out = append(out, s)
	}
	return out, nil
}

// loadKebab reads a kebab golden query YAML file. See formats.go.
func loadKebab(path string, data []byte) (*assay.Suite, error) {
	items, ok, err := kebabItems(trimBOM(data))
	if err != nil {
		return nil, kebabYAMLErr(path, err)
	}
	if !ok {
		return nil, Errorf(path, 1, 1, "want a top-level list of queries (the kebab format)")
	}
	s := newSuite(path, FormatKebab)
	seen := map[string]int{}
	chunkOnly := 0
	for _, n := range items {
		tok := n.GetToken()
		line, col := tok.Position.Line, tok.Position.Column
		m, isMap := kebabMapping(n)
		if !isMap {
			return nil, Errorf(path, line, col, "want a mapping with id and query for each entry")
		}
		if len(m.Values) > 0 {
			p := m.Values[0].Key.GetToken().Position
			line, col = p.Line, p.Column
		}
		var q kebabQuery
		for _, kv := range m.Values {
			k := kv.Key.String()
			var err error
			switch k {
			case "id":
				q.ID, err = kebabString(path, k, kv.Value)
			case "query":
				q.Query, err = kebabString(path, k, kv.Value)
			case "lang":
				q.Lang, err = kebabString(path, k, kv.Value)
			case "difficulty":
				q.Difficulty, err = kebabString(path, k, kv.Value)
			case "group":
				q.Group, err = kebabString(path, k, kv.Value)
			case "expected_doc_ids":
				q.ExpectedDocIDs, err = kebabList(path, k, kv.Value)
			case "expected_chunk_ids":
				q.ExpectedChunkIDs, err = kebabList(path, k, kv.Value)
			case "must_contain":
				q.MustContain, err = kebabList(path, k, kv.Value)
			case "forbidden":
				q.Forbidden, err = kebabList(path, k, kv.Value)
			default:
				p := kv.Key.GetToken().Position
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s:%d: unknown field %q ignored", path, p.Line, k))
			}
			if err != nil {
				return nil, err
			}
		}
		if q.ID == "" {
			return nil, Errorf(path, line, col, "entry is missing \"id\"")
		}
		if q.Query == "" {
			return nil, Errorf(path, line, col, "entry %q is missing \"query\"", q.ID)
		}
		if prev, dup := seen[q.ID]; dup {
			return nil, Errorf(path, line, col, "duplicate case id %q (first at line %d)", q.ID, prev)
		}
		seen[q.ID] = line
		c := assay.Case{ID: q.ID, Query: q.Query, Source: fmt.Sprintf("%s:%d", path, line)}
		tags := map[string]string{}
		for k, v := range map[string]string{"lang": q.Lang, "difficulty": q.Difficulty, "group": q.Group} {
			if v != "" {
				tags[k] = v
			}
		}
		if len(tags) > 0 {
			c.Tags = tags
		}
		c.Judgments = relevantSet(q.ExpectedDocIDs)
		if len(q.MustContain) > 0 {
			c.Expect.AnswerIncludes = q.MustContain
		}
		if len(q.Forbidden) > 0 {
			c.Expect.AnswerExcludes = q.Forbidden
		}
		if len(q.MustContain) > 0 || len(q.Forbidden) > 0 {
			t := true
			c.Expect.CaseSensitive = &t
		}
		if len(q.ExpectedChunkIDs) > 0 {
			chunkOnly++
		}
		s.Cases = append(s.Cases, c)
	}
	if len(s.Cases) == 0 {
		return nil, Errorf(path, 1, 1, "no queries")
	}
	if chunkOnly > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("expected_chunk_ids of %d case(s) are not evaluated: they name chunks of kebab's store, not documents", chunkOnly))
	}
	s.Warnings = append(s.Warnings, "no corpus: kebab evaluates its own ingested workspace, so document references cannot be checked")
	return s, nil
}
