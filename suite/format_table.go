package suite

// Tabular golden sets: CSV and JSONL files whose columns a mapping names
// (`assay import csv|jsonl --map query=question,...`), and the Ragas and
// DeepEval datasets, which are the same reader with their documented
// column names as the mapping.
//
// A record is one CSV row (the first row is the header) or one JSON object
// (a JSONL line, or an item of a top-level JSON array). LoadOptions.Map
// maps a case field (the target) to a column (the source). Targets:
//
//	id                          the case id (default: the column "id" when there is one, else the record's number, 1-based)
//	query                       what the target is asked (default: the column "query"); required on every record
//	lang                        tags.lang (default: the column "lang" when there is one)
//	tags.NAME                   the tag NAME
//	guards                      the case's guards text
//	relevant                    document ids, each judged grade 1
//	contexts                    passages the answer should be drawn from: each distinct text becomes a document of an inline corpus (id "ctx-" and the first 12 hex digits of its SHA-256) judged grade 1 for the case
//	reference                   a reference answer: a vital nugget whose text it is (nugget metrics; it does not decide pass)
//	expect.answer_includes      and answer_includes_any, answer_excludes, retrieves, cites, cites_any, calls_tool: lists
//	expect.answer_matches       a Go RE2 regexp
//	expect.refuse               true/false (also yes/no, 1/0; empty states nothing): expect.refusal
//	expect.case_sensitive       true/false
//
// A list target takes a JSON array of strings; a string (a CSV cell, or a
// JSON string) is split on LoadOptions.ListSep (default ";" for CSV; JSON
// strings are not split unless ListSep is set), and a CSV cell holding a
// JSON array of strings ("[\"a\", \"b\"]") is that list. Blank items are
// dropped. A mapped column missing from the CSV header, or from every JSON
// record, is an error at the header (line 1); a record without a query is
// an error at its line. Numbers and booleans are read as their text. In
// JSON a column may be a dotted path into nested objects ("answers.text",
// as SQuAD-style Hugging Face datasets nest their answers).

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/diag"
	"github.com/assay-eval/assay/internal/nesting"
)

// Format names of the tabular formats.
const (
	FormatCSV      = "csv"
	FormatJSONL    = "jsonl"
	FormatRagas    = "ragas"
	FormatDeepEval = "deepeval"
)

// MapTargets are the case fields a mapping may name (besides tags.NAME).
var MapTargets = []string{
	"id", "query", "lang", "tags.NAME", "guards", "relevant", "contexts", "reference",
	"expect.answer_includes", "expect.answer_includes_any", "expect.answer_excludes",
	"expect.answer_matches", "expect.retrieves", "expect.cites", "expect.cites_any",
	"expect.calls_tool", "expect.refuse", "expect.case_sensitive",
}

// ParseMap reads a mapping written "target=column,target=column" (the
// --map syntax) into LoadOptions.Map. A target may be given once; an
// unknown target is an error that lists the known ones.
func ParseMap(s string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		t, col, ok := strings.Cut(kv, "=")
		t, col = strings.TrimSpace(t), strings.TrimSpace(col)
		if !ok || t == "" || col == "" {
			return nil, fmt.Errorf("%q: want target=column", kv)
		}
		if err := checkMapTarget(t); err != nil {
			return nil, err
		}
		if _, dup := m[t]; dup {
			return nil, fmt.Errorf("target %q mapped twice", t)
		}
		m[t] = col
	}
	return m, nil
}

// checkMapTarget refuses a target that is not one of MapTargets.
func checkMapTarget(t string) error {
	if name, ok := strings.CutPrefix(t, "tags."); ok && name != "" {
		return nil
	}
	if t == "expect.refusal" || (slices.Contains(MapTargets, t) && t != "tags.NAME") {
		return nil
	}
	msg := fmt.Sprintf("unknown target %q (targets: %s)", t, strings.Join(MapTargets, ", "))
	if near := diag.Nearest(t, MapTargets); near != "" {
		msg += fmt.Sprintf("; did you mean %s?", near)
	}
	return errors.New(msg)
}

// record is one row of a tabular file: its fields by column name and the
// line it starts on.
type record struct {
	line   int
	fields map[string]any // string, json.Number, bool, nil, []any, map[string]any
}

// table is a file's records and the columns it has (a CSV header; for
// JSON, every key some record has).
type table struct {
	csv     bool
	columns map[string]bool
	order   []string // the columns in the header's (or first seen) order
	records []record
}

// readTable reads data as CSV (asCSV) or as JSON: a top-level array of
// objects, or JSONL (one object a line).
func readTable(path string, data []byte, asCSV bool) (*table, error) {
	data = trimBOM(data)
	if !utf8.Valid(data) {
		return nil, Errorf(path, 0, 0, "not valid UTF-8")
	}
	if asCSV {
		return readCSVTable(path, data)
	}
	if t := strings.TrimLeft(string(data[:min(len(data), 64)]), " \t\r\n"); strings.HasPrefix(t, "[") {
		return readJSONArrayTable(path, data)
	}
	return readJSONLTable(path, data)
}

func readCSVTable(path string, data []byte) (*table, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = 0
	header, err := r.Read()
	if err == io.EOF {
		return nil, Errorf(path, 1, 1, "empty file: want a header row naming the columns")
	}
	if err != nil {
		return nil, csvError(path, err)
	}
	t := &table{csv: true, columns: map[string]bool{}}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if t.columns[h] {
			return nil, Errorf(path, 1, i+1, "column %q appears twice in the header", h)
		}
		t.columns[h] = true
		t.order = append(t.order, h)
	}
	for {
		row, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(path, err)
		}
		line, _ := r.FieldPos(0)
		rec := record{line: line, fields: make(map[string]any, len(header))}
		blank := true
		for i, v := range row {
			if h := strings.TrimSpace(header[i]); h != "" {
				rec.fields[h] = v
			}
			blank = blank && strings.TrimSpace(v) == ""
		}
		if !blank {
			t.records = append(t.records, rec)
		}
	}
	return t, nil
}

// csvError positions an encoding/csv error.
func csvError(path string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return Errorf(path, pe.Line, pe.Column, "%v", pe.Err)
	}
	return Errorf(path, 0, 0, "%v", err)
}

func readJSONLTable(path string, data []byte) (*table, error) {
	t := &table{columns: map[string]bool{}}
	br := bufio.NewReader(bytes.NewReader(data))
	for ln := 1; ; ln++ {
		line, err := boundedfile.ReadLine(br, maxJSONLLine)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, Errorf(path, ln, 0, "%s", boundedfile.Reason(err))
		}
		eof := errors.Is(err, io.EOF)
		if line = bytes.TrimSpace(line); len(line) > 0 {
			obj, col, msg := decodeObject(line)
			if msg != "" {
				return nil, Errorf(path, ln, col, "%s", msg)
			}
			t.add(record{line: ln, fields: obj})
		}
		if eof {
			break
		}
	}
	return t, nil
}

// decodeObject decodes one JSON object; on failure it returns the column
// (1-based, within b) and the reason.
func decodeObject(b []byte) (map[string]any, int, string) {
	if e := nesting.JSON(b); e != nil {
		return nil, e.Col, e.Msg
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		col, msg := diag.JSON(err)
		return nil, col, msg
	}
	if dec.More() {
		return nil, int(dec.InputOffset()) + 1, "more than one JSON value on the line: want one object a line"
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, 1, fmt.Sprintf("want a JSON object, got %s", jsonKindOf(v))
	}
	return obj, 0, ""
}

func readJSONArrayTable(path string, data []byte) (*table, error) {
	if e := nesting.JSON(data); e != nil {
		return nil, Errorf(path, e.Line, e.Col, "%s", e.Msg)
	}
	t := &table{columns: map[string]bool{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	lc := newLineCounter(data)
	if _, err := dec.Token(); err != nil {
		return nil, jsonAt(path, lc, dec.InputOffset(), err)
	}
	for dec.More() {
		before := dec.InputOffset()
		start := skipSpace(data, before)
		var v any
		if err := dec.Decode(&v); err != nil {
			// A syntax error's offset counts from before, but the bytes
			// between before and the value are not counted in it.
			var se *json.SyntaxError
			if errors.As(err, &se) {
				return nil, jsonAt(path, lc, start+se.Offset-before, err)
			}
			return nil, jsonAt(path, lc, start, err)
		}
		line, col := lc.pos(start)
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, Errorf(path, line, col, "want an object for each item, got %s", jsonKindOf(v))
		}
		t.add(record{line: line, fields: obj})
	}
	if _, err := dec.Token(); err != nil {
		return nil, jsonAt(path, lc, dec.InputOffset(), err)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return nil, jsonAt(path, lc, skipSpace(data, end), errors.New("more after the closing ]"))
	}
	return t, nil
}

// has reports whether col is a column of t: a CSV header's, or for JSON a
// key of some record, or a dotted path into its objects ("answers.text").
func (t *table) has(col string) bool {
	if t.columns[col] {
		return true
	}
	if t.csv || !strings.Contains(col, ".") {
		return false
	}
	for _, r := range t.records {
		if _, ok := r.lookup(col); ok {
			return true
		}
	}
	return false
}

// field is the value of col in r (nil when r lacks it).
func (r record) field(col string) any {
	v, _ := r.lookup(col)
	return v
}

// lookup finds col in r: a key, else a dotted path through objects.
func (r record) lookup(col string) (any, bool) {
	if v, ok := r.fields[col]; ok {
		return v, true
	}
	var cur any = r.fields
	for _, k := range strings.Split(col, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func (t *table) add(r record) {
	keys := make([]string, 0, len(r.fields))
	for k := range r.fields {
		if !t.columns[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.columns[k] = true
		t.order = append(t.order, k)
	}
	t.records = append(t.records, r)
}

// jsonAt positions a JSON error at the byte offset off of the data.
func jsonAt(path string, lc lineCounter, off int64, err error) error {
	line, col := lc.pos(max(off, 0))
	_, msg := diag.JSON(err)
	return Errorf(path, line, col, "%s", msg)
}

// lineCounter turns byte offsets into line and column.
type lineCounter struct{ starts []int64 }

func newLineCounter(data []byte) lineCounter {
	starts := []int64{0}
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, int64(i+1))
		}
	}
	return lineCounter{starts}
}

func (lc lineCounter) pos(off int64) (line, col int) {
	i := sort.Search(len(lc.starts), func(i int) bool { return lc.starts[i] > off }) - 1
	return i + 1, int(off-lc.starts[max(i, 0)]) + 1
}

func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',':
			off++
			continue
		}
		break
	}
	return off
}

func jsonKindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "true or false"
	case []any:
		return "a list"
	}
	return "an object"
}

// tableMapping is a resolved mapping: target → column.
type tableMapping struct {
	m   map[string]string
	sep string
}

// tableOptions configure loadTable for one format.
type tableOptions struct {
	format string
	// defaults are target → candidate columns used when the mapping does
	// not name the target: the first the file has wins.
	defaults map[string][]string
	// ignored are columns the format documents and assay does not use
	// (outputs of a past run); a warning names those present.
	ignored []string
}

// loadTable reads a tabular golden set and builds its suite.
func loadTable(path string, data []byte, asCSV bool, o LoadOptions, to tableOptions) (*assay.Suite, error) {
	for t := range o.Map {
		if err := checkMapTarget(t); err != nil {
			return nil, Errorf(path, 0, 0, "mapping: %v", err)
		}
	}
	t, err := readTable(path, data, asCSV)
	if err != nil {
		return nil, err
	}
	if len(t.records) == 0 {
		return nil, Errorf(path, 0, 0, "no records")
	}
	mp := tableMapping{m: map[string]string{}, sep: o.ListSep}
	if mp.sep == "" && asCSV {
		mp.sep = ";"
	}
	for target, col := range o.Map {
		if target == "expect.refusal" {
			target = "expect.refuse"
		}
		if !t.has(col) {
			return nil, Errorf(path, 1, 0, "mapping %s=%s: no column %q (columns: %s)", target, col, col, strings.Join(t.order, ", "))
		}
		mp.m[target] = col
	}
	for _, target := range keysSorted(to.defaults) {
		if _, set := mp.m[target]; set {
			continue
		}
		for _, col := range to.defaults[target] {
			if t.columns[col] {
				mp.m[target] = col
				break
			}
		}
	}
	if _, ok := mp.m["query"]; !ok {
		want := "query"
		if c := to.defaults["query"]; len(c) > 0 {
			want = strings.Join(c, " or ")
		}
		return nil, Errorf(path, 1, 0, "no column %s for the query: map one with query=COLUMN (columns: %s)", want, strings.Join(t.order, ", "))
	}
	s := newSuite(path, to.format)
	used := map[string]bool{}
	for _, col := range mp.m {
		used[col] = true
	}
	var ignored []string
	for _, col := range to.ignored {
		if t.columns[col] && !used[col] {
			ignored = append(ignored, col)
		}
	}
	if len(ignored) > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: columns %s are not imported: they hold a past run's output, and assay observes the target it runs", path, strings.Join(ignored, ", ")))
	}
	seen := map[string]int{}
	docs := map[string]string{} // id → text
	for i, r := range t.records {
		c, err := mp.buildCase(path, i+1, r, docs)
		if err != nil {
			return nil, err
		}
		if first, dup := seen[c.ID]; dup {
			return nil, Errorf(path, r.line, 0, "duplicate case id %q (first at line %d)", c.ID, first)
		}
		seen[c.ID] = r.line
		s.Cases = append(s.Cases, c)
	}
	if len(docs) > 0 {
		for _, id := range keysSorted(docs) {
			s.Corpus = append(s.Corpus, assay.Document{ID: id, Text: docs[id]})
		}
		s.CorpusSource = "inline"
	}
	return s, nil
}

// buildCase maps one record to a case; n is the record's number.
func (mp tableMapping) buildCase(path string, n int, r record, docs map[string]string) (assay.Case, error) {
	c := assay.Case{ID: strconv.Itoa(n), Source: fmt.Sprintf("%s:%d", path, r.line)}
	str := func(target string) (string, error) {
		col, ok := mp.m[target]
		if !ok {
			return "", nil
		}
		v := r.field(col)
		s, ok := scalarText(v)
		if !ok {
			return "", Errorf(path, r.line, 0, "%s (column %q): want a string, got %s", target, col, jsonKindOf(v))
		}
		return strings.TrimSpace(s), nil
	}
	list := func(target string) ([]string, error) {
		col, ok := mp.m[target]
		if !ok {
			return nil, nil
		}
		return mp.listValue(path, r.line, target, col, r.field(col))
	}
	boolean := func(target string) (*bool, error) {
		s, err := str(target)
		if err != nil || s == "" {
			return nil, err
		}
		var b bool
		switch strings.ToLower(s) {
		case "true", "yes", "1":
			b = true
		case "false", "no", "0":
		default:
			return nil, Errorf(path, r.line, 0, "%s (column %q): want true or false, got %q", target, mp.m[target], s)
		}
		return &b, nil
	}
	var err error
	if id, e := str("id"); e != nil {
		return c, e
	} else if id != "" {
		c.ID = id
	}
	if c.Query, err = str("query"); err != nil {
		return c, err
	}
	if c.Query == "" {
		return c, Errorf(path, r.line, 0, "case %q has no query (column %q)", c.ID, mp.m["query"])
	}
	if c.Guards, err = str("guards"); err != nil {
		return c, err
	}
	tags := map[string]string{}
	for target := range mp.m {
		name, ok := strings.CutPrefix(target, "tags.")
		if !ok && target == "lang" {
			name, ok = "lang", true
		}
		if !ok {
			continue
		}
		v, err := str(target)
		if err != nil {
			return c, err
		}
		if v != "" {
			tags[name] = v
		}
	}
	if len(tags) > 0 {
		c.Tags = tags
	}
	relevant, err := list("relevant")
	if err != nil {
		return c, err
	}
	contexts, err := list("contexts")
	if err != nil {
		return c, err
	}
	for _, text := range contexts {
		sum := sha256.Sum256([]byte(text))
		id := "ctx-" + hex.EncodeToString(sum[:6])
		docs[id] = text
		relevant = append(relevant, id)
	}
	c.Judgments = relevantSet(relevant)
	if ref, err := str("reference"); err != nil {
		return c, err
	} else if ref != "" {
		c.Expect.Nuggets = []assay.Nugget{{Text: ref, Importance: assay.NuggetVital}}
	}
	e := &c.Expect
	for target, dst := range map[string]*[]string{
		"expect.answer_includes": &e.AnswerIncludes, "expect.answer_includes_any": &e.AnswerIncludesAny,
		"expect.answer_excludes": &e.AnswerExcludes, "expect.retrieves": &e.Retrieves,
		"expect.cites": &e.Cites, "expect.cites_any": &e.CitesAny, "expect.calls_tool": &e.CallsTool,
	} {
		if *dst, err = list(target); err != nil {
			return c, err
		}
	}
	if e.AnswerMatches, err = str("expect.answer_matches"); err != nil {
		return c, err
	}
	if e.Refusal, err = boolean("expect.refuse"); err != nil {
		return c, err
	}
	if e.CaseSensitive, err = boolean("expect.case_sensitive"); err != nil {
		return c, err
	}
	return c, nil
}

// listValue reads a list target's value.
func (mp tableMapping) listValue(path string, line int, target, col string, v any) ([]string, error) {
	var items []string
	switch x := v.(type) {
	case nil:
		return nil, nil
	case []any:
		for _, it := range x {
			if m, isObj := it.(map[string]any); isObj {
				if name, ok := m["name"].(string); ok {
					it = name // a tool call object (DeepEval's expected_tools)
				}
			}
			s, ok := scalarText(it)
			if !ok {
				return nil, Errorf(path, line, 0, "%s (column %q): want a list of strings, got an item that is %s", target, col, jsonKindOf(it))
			}
			items = append(items, s)
		}
	default:
		s, ok := scalarText(x)
		if !ok {
			return nil, Errorf(path, line, 0, "%s (column %q): want a list of strings, got %s", target, col, jsonKindOf(x))
		}
		if t := strings.TrimSpace(s); strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			var arr []string
			if json.Unmarshal([]byte(t), &arr) == nil {
				items = arr
				break
			}
		}
		if mp.sep != "" {
			items = strings.Split(s, mp.sep)
		} else {
			items = []string{s}
		}
	}
	var out []string
	for _, it := range items {
		if it = strings.TrimSpace(it); it != "" {
			out = append(out, it)
		}
	}
	return out, nil
}

// scalarText is the text of a string, number or boolean; ok is false for
// a list or an object.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// isCSVData reports whether data is not JSON (its first byte is neither
// "[" nor "{"): the Ragas and DeepEval readers take CSV or JSON.
func isCSVData(data []byte) bool {
	t := strings.TrimLeft(string(trimBOM(data)[:min(len(trimBOM(data)), 64)]), " \t\r\n")
	return !strings.HasPrefix(t, "[") && !strings.HasPrefix(t, "{")
}

// ragasTable and deepevalTable are the documented columns of the two
// projects' datasets.
var (
	ragasTable = tableOptions{
		format: FormatRagas,
		defaults: map[string][]string{
			"id":        {"id"},
			"query":     {"user_input", "question"},
			"reference": {"reference", "ground_truth"},
			"contexts":  {"reference_contexts"},
		},
		ignored: []string{"response", "answer", "retrieved_contexts", "contexts", "multi_responses"},
	}
	deepevalTable = tableOptions{
		format: FormatDeepEval,
		defaults: map[string][]string{
			"id":                {"name"},
			"query":             {"input"},
			"reference":         {"expected_output"},
			"contexts":          {"context"},
			"expect.calls_tool": {"expected_tools"},
		},
		ignored: []string{"actual_output", "retrieval_context", "tools_called"},
	}
)

// tableDefaults are the columns csv and jsonl read without a mapping.
var tableDefaults = map[string][]string{"id": {"id"}, "query": {"query"}, "lang": {"lang"}}
