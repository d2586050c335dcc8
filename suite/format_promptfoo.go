package suite

// promptfoo test files (`assay import promptfoo FILE`).
//
// FILE is one of: a YAML (or JSON) list of tests; a promptfooconfig whose
// `tests:` is such a list, a `file://` path, or a list of `file://` paths
// (globs allowed), with `defaultTest` (its vars and assertions apply to
// every test); or a CSV test file (`.csv`: one column per var, `__expected`
// / `__expectedN` holding an assertion such as `icontains: paris`, and
// `__description`, `__metadata:NAME`). A test is {description, vars,
// assert, metadata}.
//
// Each test is a case: id its number (1-based, across the files in order),
// or metadata.id; the query is the var named by LoadOptions.Map["query"]
// ("query" when unset), and every scalar var is kept in the case's vars
// (a target file's templates read .Vars), a var `file://NAME.txt` with the
// text of that file (relative to the test file; a script or data file is
// an error); description → guards; scalar metadata → tags.
//
// The deterministic assertions assay grades are imported; `not-` negates:
//
//	contains, contains-all            answer_includes (case_sensitive: true)
//	icontains, icontains-all          answer_includes
//	contains-any / icontains-any      answer_includes_any (value a list, or a comma-separated string)
//	not-contains, not-contains-any    answer_excludes (case_sensitive: true); not-icontains[-any] too, case-insensitive
//	regex                             answer_matches
//	equals (a string)                 answer_matches ^QUOTED$ (exact equality)
//	starts-with                       answer_matches ^QUOTED
//	is-json (no schema)               json_schema: a schema accepting any JSON value, written beside the suite by import
//
// A case has one case_sensitive flag, one answer_matches and one
// answer_includes_any: in a test that mixes case-sensitive and
// case-insensitive substring assertions the case-sensitive ones are not
// imported, and a second regex-form assertion (regex, equals,
// starts-with) or a second contains-any is not imported either. Every
// assertion not imported is counted by its type in one warning.

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/nesting"
	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// FormatPromptfoo is promptfoo's test files.
const FormatPromptfoo = "promptfoo"

// AnyJSONSchema is the schema file an import of promptfoo's is-json
// refers to (written beside the suite): it accepts any JSON value, so the
// check holds when the answer is one JSON value.
const AnyJSONSchema = "any-json.schema.json"

type pfAssert struct {
	Type  string `yaml:"type"`
	Value any    `yaml:"value"`
}

type pfTest struct {
	Description string         `yaml:"description"`
	Vars        map[string]any `yaml:"vars"`
	Assert      []pfAssert     `yaml:"assert"`
	Metadata    map[string]any `yaml:"metadata"`
	line        int
	file        string
}

// promptfooReader gathers tests and the count of what was not imported.
type promptfooReader struct {
	tests       []pfTest
	defaultTest pfTest
	skipped     map[string]int
	warnings    []string
}

func loadPromptfoo(path string, data []byte, o LoadOptions) (*assay.Suite, error) {
	r := &promptfooReader{skipped: map[string]int{}}
	if strings.EqualFold(filepath.Ext(path), ".csv") {
		if err := r.readCSV(path, data); err != nil {
			return nil, err
		}
	} else if err := r.readYAML(path, data, true); err != nil {
		return nil, err
	}
	if len(r.tests) == 0 {
		return nil, Errorf(path, 0, 0, "no tests")
	}
	queryVar := "query"
	for t, v := range o.Map {
		if t != "query" {
			return nil, Errorf(path, 0, 0, "mapping: promptfoo takes only query=VAR, got %s=%s", t, v)
		}
		queryVar = v
	}
	s := newSuite(path, FormatPromptfoo)
	seen := map[string]int{}
	ungraded := 0
	for i, t := range r.tests {
		c, err := r.buildCase(i+1, t, queryVar)
		if err != nil {
			return nil, err
		}
		if first, dup := seen[c.ID]; dup {
			return nil, Errorf(t.file, t.line, 0, "duplicate case id %q (first at line %d)", c.ID, first)
		}
		seen[c.ID] = t.line
		if c.Expect.Empty() {
			ungraded++
		}
		s.Cases = append(s.Cases, c)
	}
	s.Warnings = append(s.Warnings, r.warnings...)
	if len(r.skipped) > 0 {
		var parts []string
		total := 0
		for _, k := range keysSorted(r.skipped) {
			parts = append(parts, fmt.Sprintf("%d %s", r.skipped[k], k))
			total += r.skipped[k]
		}
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d promptfoo assertion(s) not imported: %s", total, strings.Join(parts, ", ")))
	}
	if ungraded > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d test(s) have no assertion assay grades: their cases are not graded", ungraded))
	}
	return s, nil
}

// readYAML reads a list of tests, or (top) a promptfooconfig.
func (r *promptfooReader) readYAML(path string, data []byte, top bool) error {
	data = trimBOM(data)
	f, err := parsePromptfooYAML(data)
	if err != nil {
		return kebabYAMLErr(path, err)
	}
	if len(f.Docs) == 0 || f.Docs[0] == nil || f.Docs[0].Body == nil {
		return Errorf(path, 1, 1, "empty file: want a list of tests or a promptfooconfig with tests")
	}
	body := f.Docs[0].Body
	if seq, ok := body.(*ast.SequenceNode); ok {
		return r.readTests(path, seq)
	}
	m, ok := kebabMapping(body)
	if !ok || !top {
		return Errorf(path, 1, 1, "want a list of tests (promptfoo's vars and assert)")
	}
	var tests ast.Node
	for _, kv := range m.Values {
		switch kv.Key.String() {
		case "tests":
			tests = kv.Value
		case "defaultTest":
			var d pfTest
			if err := nodeToValue(kv.Value, &d); err != nil {
				return kebabYAMLErr(path, err)
			}
			r.defaultTest = d
		}
	}
	if tests == nil {
		return Errorf(path, 1, 1, "no tests: a promptfooconfig lists its tests under tests:")
	}
	switch v := tests.(type) {
	case *ast.SequenceNode:
		var refs []string
		for _, it := range v.Values {
			if s, ok := kebabScalar(it); ok && strings.HasPrefix(s, "file://") {
				refs = append(refs, s)
			}
		}
		if len(refs) == 0 {
			return r.readTests(path, v)
		}
		if len(refs) != len(v.Values) {
			p := v.GetToken().Position
			return Errorf(path, p.Line, p.Column, "tests: want a list of tests or a list of file:// paths, not both")
		}
		for _, ref := range refs {
			if err := r.readRef(path, ref); err != nil {
				return err
			}
		}
		return nil
	default:
		s, ok := kebabScalar(tests)
		if !ok || !strings.HasPrefix(s, "file://") {
			p := tests.GetToken().Position
			return Errorf(path, p.Line, p.Column, "tests: want a list of tests or a file:// path")
		}
		return r.readRef(path, s)
	}
}

func parsePromptfooYAML(data []byte) (f *ast.File, err error) {
	defer func() {
		// Bad input never panics, even if the YAML parser does.
		if rec := recover(); rec != nil {
			f, err = nil, fmt.Errorf("cannot parse YAML: %v", rec)
		}
	}()
	if e := nesting.YAML(data); e != nil {
		return nil, e
	}
	return parser.ParseBytes(data, 0)
}

// nodeToValue decodes a YAML node; a panic of the decoder on bad input is
// an error (bad input never panics).
func nodeToValue(n ast.Node, v any) (err error) {
	defer func() {
		if rec := recover(); rec != nil {
			err = fmt.Errorf("cannot decode YAML: %v", rec)
		}
	}()
	return yaml.NodeToValue(n, v)
}

// readRef reads the tests of a file:// reference relative to the config.
func (r *promptfooReader) readRef(config, ref string) error {
	rel := strings.TrimPrefix(ref, "file://")
	p := rel
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(config), rel)
	}
	files := []string{p}
	if strings.ContainsAny(rel, "*?[") {
		m, err := filepath.Glob(p)
		if err != nil || len(m) == 0 {
			return Errorf(config, 0, 0, "tests: %s matches no file", ref)
		}
		files = m
	}
	for _, f := range files {
		data, err := boundedfile.ReadFile(f, boundedfile.SuitePart)
		if err != nil {
			return Errorf(f, 0, 0, "%v", boundedfile.Reason(err))
		}
		if strings.EqualFold(filepath.Ext(f), ".csv") {
			err = r.readCSV(f, data)
		} else {
			err = r.readYAML(f, data, false)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *promptfooReader) readTests(path string, seq *ast.SequenceNode) error {
	for _, n := range seq.Values {
		p := n.GetToken().Position
		if m, ok := kebabMapping(n); ok && len(m.Values) > 0 {
			p = m.Values[0].Key.GetToken().Position
		}
		var t pfTest
		if err := nodeToValue(n, &t); err != nil {
			return kebabYAMLErr(path, err)
		}
		t.line, t.file = p.Line, path
		r.tests = append(r.tests, t)
	}
	return nil
}

// readCSV reads promptfoo's CSV test format.
func (r *promptfooReader) readCSV(path string, data []byte) error {
	tb, err := readTable(path, data, true)
	if err != nil {
		return err
	}
	for _, rec := range tb.records {
		t := pfTest{line: rec.line, file: path, Vars: map[string]any{}}
		for _, col := range tb.order {
			v, _ := rec.fields[col].(string)
			switch {
			case col == "__expected" || (strings.HasPrefix(col, "__expected") && isDigits(col[len("__expected"):])):
				if strings.TrimSpace(v) != "" {
					t.Assert = append(t.Assert, csvAssertion(v))
				}
			case col == "__description":
				t.Description = v
			case strings.HasPrefix(col, "__metadata:"):
				if t.Metadata == nil {
					t.Metadata = map[string]any{}
				}
				t.Metadata[strings.TrimPrefix(col, "__metadata:")] = v
			case strings.HasPrefix(col, "__"):
				// __prefix, __suffix, __threshold, ...: prompt options
			default:
				t.Vars[col] = v
			}
		}
		r.tests = append(r.tests, t)
	}
	return nil
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// csvAssertion reads an __expected cell: "type: value", "type" alone
// (is-json), or a plain value, which promptfoo reads as equals.
func csvAssertion(cell string) pfAssert {
	cell = strings.TrimSpace(cell)
	if typ, val, ok := strings.Cut(cell, ":"); ok {
		typ = strings.TrimSpace(typ)
		if typ != "" && !strings.ContainsAny(typ, " \t") && strings.Trim(strings.ToLower(typ), "abcdefghijklmnopqrstuvwxyz-_") == "" {
			return pfAssert{Type: typ, Value: strings.TrimSpace(val)}
		}
	}
	switch cell {
	case "is-json", "not-is-json", "is-html", "is-xml", "is-sql":
		return pfAssert{Type: cell}
	}
	return pfAssert{Type: "equals", Value: cell}
}

// buildCase maps one test.
func (r *promptfooReader) buildCase(n int, t pfTest, queryVar string) (assay.Case, error) {
	c := assay.Case{ID: strconv.Itoa(n), Source: fmt.Sprintf("%s:%d", t.file, t.line), Guards: strings.TrimSpace(t.Description)}
	vars := map[string]any{}
	for k, v := range r.defaultTest.Vars {
		vars[k] = v
	}
	for k, v := range t.Vars {
		vars[k] = v
	}
	for _, k := range keysSorted(vars) {
		s, ok := pfScalar(vars[k])
		if !ok {
			if k == queryVar {
				return c, Errorf(t.file, t.line, 0, "test %d: var %s: want one string (promptfoo runs a list of values as one test each; write one test per value)", n, k)
			}
			r.warnings = append(r.warnings, fmt.Sprintf("%s:%d: var %s is not a string: not imported", t.file, t.line, k))
			continue
		}
		if ref, isFile := strings.CutPrefix(s, "file://"); isFile {
			text, err := pfVarFile(t.file, ref)
			if err != nil {
				return c, Errorf(t.file, t.line, 0, "test %d: var %s: %v", n, k, err)
			}
			s = text
		}
		if c.Vars == nil {
			c.Vars = map[string]string{}
		}
		c.Vars[k] = s
	}
	c.Query = strings.TrimSpace(c.Vars[queryVar])
	if c.Query == "" {
		return c, Errorf(t.file, t.line, 0, "test %d has no var %q for the query (vars: %s): name it with --map query=VAR", n, queryVar, strings.Join(keysSorted(vars), ", "))
	}
	for _, k := range keysSorted(t.Metadata) {
		s, ok := pfScalar(t.Metadata[k])
		if !ok || s == "" {
			continue
		}
		if k == "id" {
			c.ID = s
			continue
		}
		if c.Tags == nil {
			c.Tags = map[string]string{}
		}
		c.Tags[k] = s
	}
	asserts := append(slices.Clone(r.defaultTest.Assert), t.Assert...)
	r.applyAsserts(&c, asserts)
	return c, nil
}

// pfVarFile reads a var's file:// value, relative to the test file, as
// promptfoo does for a text file; a script (.js, .py, ...) is refused, as
// assay does not run it.
func pfVarFile(testFile, ref string) (string, error) {
	switch strings.ToLower(filepath.Ext(ref)) {
	case ".js", ".cjs", ".mjs", ".ts", ".py", ".json", ".yaml", ".yml", ".pdf", ".png", ".jpg", ".jpeg":
		return "", fmt.Errorf("file://%s: only a text file is read (promptfoo runs or parses this kind)", ref)
	}
	p := ref
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(testFile), ref)
	}
	b, err := boundedfile.ReadFile(p, boundedfile.SuitePart)
	if err != nil {
		return "", fmt.Errorf("file://%s: %v", ref, boundedfile.Reason(err))
	}
	return strings.TrimSpace(string(b)), nil
}

// pfScalar is the text of a scalar YAML value.
func pfScalar(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case int, int64, uint64, float64:
		return fmt.Sprint(x), true
	}
	return "", false
}

// pfList is an assertion's value as a list: a list of scalars, or a
// comma-separated string.
func pfList(v any) ([]string, bool) {
	var out []string
	switch x := v.(type) {
	case []any:
		for _, it := range x {
			s, ok := pfScalar(it)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
	default:
		s, ok := pfScalar(x)
		if !ok {
			return nil, false
		}
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out, len(out) > 0
}

// pfSubstring is one substring assertion of a test, before the case's one
// case_sensitive flag is chosen.
type pfSubstring struct {
	typ       string
	sensitive bool
	kind      string // includes, any, excludes
	values    []string
}

func (r *promptfooReader) applyAsserts(c *assay.Case, asserts []pfAssert) {
	var subs []pfSubstring
	skip := func(typ, why string) {
		if why != "" {
			typ += " (" + why + ")"
		}
		r.skipped[typ]++
	}
	for _, a := range asserts {
		typ := strings.TrimSpace(a.Type)
		base, negated := strings.CutPrefix(typ, "not-")
		sensitive := !strings.HasPrefix(base, "i")
		switch base {
		case "contains", "icontains", "contains-all", "icontains-all":
			var vals []string
			ok := false
			if strings.HasSuffix(base, "-all") {
				vals, ok = pfList(a.Value)
			} else if s, isScalar := pfScalar(a.Value); isScalar && s != "" {
				vals, ok = []string{s}, true
			}
			switch {
			case !ok:
				skip(typ, "value not a string")
			case negated && strings.HasSuffix(base, "-all"):
				skip(typ, "")
			case negated:
				subs = append(subs, pfSubstring{typ, sensitive, "excludes", vals})
			default:
				subs = append(subs, pfSubstring{typ, sensitive, "includes", vals})
			}
		case "contains-any", "icontains-any":
			vals, ok := pfList(a.Value)
			switch {
			case !ok:
				skip(typ, "value not a list of strings")
			case negated:
				subs = append(subs, pfSubstring{typ, sensitive, "excludes", vals})
			default:
				subs = append(subs, pfSubstring{typ, sensitive, "any", vals})
			}
		case "regex", "equals", "starts-with":
			s, ok := pfScalar(a.Value)
			if !ok || negated || (base != "equals" && s == "") {
				skip(typ, "")
				continue
			}
			pattern := s
			switch base {
			case "equals":
				pattern = "^" + regexp.QuoteMeta(s) + "$"
			case "starts-with":
				pattern = "^" + regexp.QuoteMeta(s)
			}
			if _, err := regexp.Compile(pattern); err != nil {
				skip(typ, "not a Go RE2 regexp")
				continue
			}
			if c.Expect.AnswerMatches != "" {
				skip(typ, "a second regex, equals or starts-with in one test")
				continue
			}
			c.Expect.AnswerMatches = pattern
		case "is-json":
			if negated || a.Value != nil {
				skip(typ, "")
				continue
			}
			c.Expect.JSONSchema = AnyJSONSchema
		default:
			skip(typ, "")
		}
	}
	if len(subs) == 0 {
		return
	}
	sensitive := subs[0].sensitive
	mixed := slices.ContainsFunc(subs, func(s pfSubstring) bool { return s.sensitive != sensitive })
	if mixed {
		sensitive = false
	}
	for _, s := range subs {
		if s.sensitive != sensitive {
			skip(s.typ, "case-sensitive beside case-insensitive in one test")
			continue
		}
		switch s.kind {
		case "includes":
			c.Expect.AnswerIncludes = append(c.Expect.AnswerIncludes, s.values...)
		case "excludes":
			c.Expect.AnswerExcludes = append(c.Expect.AnswerExcludes, s.values...)
		case "any":
			if c.Expect.AnswerIncludesAny != nil {
				skip(s.typ, "a second contains-any in one test")
				continue
			}
			c.Expect.AnswerIncludesAny = s.values
		}
	}
	if sensitive && (c.Expect.AnswerIncludes != nil || c.Expect.AnswerExcludes != nil || c.Expect.AnswerIncludesAny != nil) {
		t := true
		c.Expect.CaseSensitive = &t
	}
}

// WriteAnyJSONSchema writes the schema AnyJSONSchema names into dir when a
// case of s refers to it and the file is not there; it returns the path
// written ("" when none was needed).
func WriteAnyJSONSchema(s *assay.Suite, dir string) (string, error) {
	if !slices.ContainsFunc(s.Cases, func(c assay.Case) bool { return c.Expect.JSONSchema == AnyJSONSchema }) {
		return "", nil
	}
	p := filepath.Join(dir, AnyJSONSchema)
	if fileExists(p) {
		return "", nil
	}
	b, _ := json.MarshalIndent(map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"description": "any JSON value (promptfoo's is-json)",
	}, "", "  ")
	return p, replaceWith(p, append(b, '\n'))
}
