package suite

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/nesting"
)

// The direct decoding of a JSONL case line. Most case lines of a JSONL
// suite are plain: an id, a query, a few tags, judgments and
// expectations, each written with its usual JSON type. Such a line is
// read with gjson straight into the case, without the positioned tree
// (package yamltree) the decoder of a native suite reads. Every other
// line, and every line the tree's decoder would say anything about (an
// error, a problem, a lint warning), goes through the tree as before, so
// that every message, position and warning comes from one decoder; the
// direct decoding is only a faster way to the same case and the same
// field lines (FuzzDirectCaseSameAsTree holds the two to that).

// A caseItem is one case for nativeDecoder.caseItems: a node of a parsed
// document, or line n of a JSONL file (node nil).
type caseItem struct {
	node *ynode
	line []byte
	n    int
	// validated: the line has the bytes of a line the validating pass
	// accepted (the run's pass checked its lineSum), so its syntax and
	// limits are not checked again and a fault in it is a change of the
	// file (the caller says so).
	validated bool
}

// itemCase decodes item, the case at index i: a JSONL line directly when
// it is plain, else through its positioned tree.
func (d *nativeDecoder) itemCase(item caseItem, i int) (assay.Case, fieldLines, error) {
	node := item.node
	if node == nil {
		if c, lines, ok := d.directCase(item.line, item.n, item.validated); ok {
			return c, lines, nil
		}
		var err error
		if node, err = d.lineTree(item); err != nil {
			return assay.Case{}, nil, err
		}
	}
	node, err := d.r.resolve(node)
	if err != nil {
		return assay.Case{}, nil, err
	}
	return d.oneCase(node, i)
}

// lineTree is the positioned tree of the JSONL line of item.
func (d *nativeDecoder) lineTree(item caseItem) (*ynode, error) {
	if item.validated {
		return parseValidatedLine(d.r.file, item.n, item.line)
	}
	return parseJSONLLine(d.r.file, item.n, item.line)
}

// directCase decodes line n of a JSONL file, one case, straight into the
// case and its field lines, as oneCase would decode its tree. It reports
// false, and decodes nothing, unless the line is plain:
//
//   - valid UTF-8 with no backslash (every string is its bytes as
//     written), valid JSON (json.Valid) and within the limits of a case
//     line (nesting.YAMLBelow); validated skips the last two checks;
//   - an object of case fields, each at most once and among id, query,
//     tags, guards, k, relevant, judgments, expect, surface, vars, review
//     and provenance, and within expect the answer, retrieval, citation,
//     tool-name, refusal, outcome, json_schema and max_latency_ms
//     expectations;
//   - each value of the JSON type the field's usual form has (a string, a
//     list of strings or one string for a list, an object of strings, an
//     integer, true or false, a number), never null;
//   - nothing the tree's decoder reports: an id, a query, no empty list or
//     item, k and max_latency_ms in range, a regular expression that
//     compiles, review: pending, no relevant document judged 0 or less.
func (d *nativeDecoder) directCase(line []byte, n int, validated bool) (assay.Case, fieldLines, bool) {
	if bytes.IndexByte(line, '\\') >= 0 || !utf8.Valid(line) {
		return assay.Case{}, nil, false
	}
	if !validated {
		start := bytes.IndexFunc(line, func(r rune) bool { return r != ' ' && r != '\t' })
		if start < 0 || line[start] != '{' || !json.Valid(line) {
			return assay.Case{}, nil, false
		}
		// The limits of a case line: a line the direct decoding takes
		// nests three levels (the case, expect, a list), far within the
		// depth limit, and holds no string longer than itself, so only a
		// line longer than the longest string allowed is scanned.
		if len(line) > nesting.MaxScalar && nesting.YAMLBelow(line, 2) != nil {
			return assay.Case{}, nil, false
		}
	}
	v := gjson.ParseBytes(line)
	if !v.IsObject() {
		return assay.Case{}, nil, false
	}
	dc := directDecoder{line: line, n: n}
	c, ok := dc.decode(v, d.p.suite.RecallOver == assay.RecallOverRelevant)
	if !ok {
		return assay.Case{}, nil, false
	}
	c.Source = d.r.file + ":" + strconv.Itoa(n)
	return c, dc.lines, true
}

// directDecoder decodes one plain case line (directCase).
type directDecoder struct {
	line  []byte
	n     int
	lines fieldLines
	ok    bool
}

// col is the column, in characters, of v, a value of the line.
func (dd *directDecoder) col(v gjson.Result) int {
	if v.Index < 0 || v.Index > len(dd.line) {
		return 0
	}
	return utf8.RuneCount(dd.line[:v.Index]) + 1
}

// fieldIndex is the index of key in fields, -1 when it is not one.
func fieldIndex(fields []string, key string) int {
	for i, f := range fields {
		if f == key {
			return i
		}
	}
	return -1
}

func (dd *directDecoder) decode(v gjson.Result, apart bool) (assay.Case, bool) {
	var c assay.Case
	var relevant []string
	hasID, hasQuery := false, false
	dd.ok = true
	dd.lines = make(fieldLines, 0, 8)
	dd.lines.set("", dd.n)
	var seen uint32
	v.ForEach(func(k, val gjson.Result) bool {
		key := k.Str
		i := fieldIndex(caseFields, key)
		if i < 0 || seen&(1<<i) != 0 || val.Type == gjson.Null {
			dd.ok = false
			return false
		}
		seen |= 1 << i
		dd.lines.set(key, dd.n)
		switch key {
		case "id":
			c.ID = dd.str(val)
			hasID = true
			dd.lines.set("id:col", dd.col(val))
		case "query":
			c.Query = dd.str(val)
			hasQuery = true
		case "tags":
			c.Tags = dd.strMap(val)
		case "guards":
			c.Guards = dd.str(val)
		case "k":
			c.K = dd.integer(val)
			if c.K < 1 {
				dd.ok = false
			}
		case "relevant":
			relevant = dd.strList(val)
			if relevant == nil {
				dd.ok = false
			}
		case "judgments":
			c.Judgments = dd.judgments(val)
		case "expect":
			dd.expect(val, &c.Expect)
		case "surface":
			c.Surface = dd.str(val)
		case "vars":
			c.Vars = dd.strMap(val)
		case "review":
			if c.Review = dd.str(val); c.Review != assay.ReviewPending {
				dd.ok = false
			}
		case "provenance":
			c.Provenance = dd.strMap(val)
		default:
			dd.ok = false // turns: through the tree
		}
		return dd.ok
	})
	if !dd.ok || !hasID || c.ID == "" || !hasQuery {
		return c, false
	}
	// relevant merges into the judgments as oneCase merges it; an empty id
	// (a problem) or a conflicting judgment (a warning) goes through the
	// tree.
	stop := func(int) bool { return false }
	ok := mergeRelevant(&c, relevant, apart, stop, func(int, int) bool { return false })
	return c, ok
}

// str is the string v; anything else stops the direct decoding.
func (dd *directDecoder) str(v gjson.Result) string {
	if v.Type != gjson.String {
		dd.ok = false
		return ""
	}
	return v.Str
}

// strList is a list of strings, or one string as a list of one (a
// non-nil slice); anything else stops the direct decoding.
func (dd *directDecoder) strList(v gjson.Result) []string {
	switch {
	case v.Type == gjson.String:
		return []string{v.Str}
	case !v.IsArray():
		dd.ok = false
		return nil
	}
	out := make([]string, 0, 4)
	v.ForEach(func(_, it gjson.Result) bool {
		if it.Type != gjson.String {
			dd.ok = false
			return false
		}
		out = append(out, it.Str)
		return true
	})
	if !dd.ok {
		return nil
	}
	return out
}

// list is strList for a list of expectations: an empty list, or an empty
// item, stops the direct decoding (the tree's decoder reports both).
func (dd *directDecoder) list(v gjson.Result) []string {
	out := dd.strList(v)
	if len(out) == 0 {
		dd.ok = false
		return nil
	}
	for _, s := range out {
		if s == "" {
			dd.ok = false
			return nil
		}
	}
	return out
}

// strMap is an object of strings, each key once.
func (dd *directDecoder) strMap(v gjson.Result) map[string]string {
	return object(dd, v, dd.str)
}

// object is an object whose values value reads (value clears dd.ok for a
// value it does not take), each key once.
func object[V any](dd *directDecoder, v gjson.Result, value func(gjson.Result) V) map[string]V {
	if !v.IsObject() {
		dd.ok = false
		return nil
	}
	out := map[string]V{}
	v.ForEach(func(k, val gjson.Result) bool {
		if _, dup := out[k.Str]; dup {
			dd.ok = false
			return false
		}
		out[k.Str] = value(val)
		return dd.ok
	})
	return out
}

// integer is an integer written without fraction or exponent, within the
// range of the tree decoder's integers.
func (dd *directDecoder) integer(v gjson.Result) int {
	if v.Type != gjson.Number || strings.ContainsAny(v.Raw, ".eE") {
		dd.ok = false
		return 0
	}
	i, err := strconv.ParseInt(v.Raw, 10, 64)
	if err != nil || i < math.MinInt32 || i > math.MaxInt32 {
		dd.ok = false
		return 0
	}
	return int(i)
}

// boolean is true or false.
func (dd *directDecoder) boolean(v gjson.Result) bool {
	switch v.Type {
	case gjson.True:
		return true
	case gjson.False:
		return false
	}
	dd.ok = false
	return false
}

// judgments is an object of document id to integer grade, each id once.
func (dd *directDecoder) judgments(v gjson.Result) map[string]int {
	return object(dd, v, dd.integer)
}

// expect reads the expectations the direct decoding knows into e.
func (dd *directDecoder) expect(v gjson.Result, e *assay.Expect) {
	if !v.IsObject() {
		dd.ok = false
		return
	}
	var seen uint32
	v.ForEach(func(k, val gjson.Result) bool {
		key := k.Str
		i := fieldIndex(expectFields, key)
		if i < 0 || seen&(1<<i) != 0 || val.Type == gjson.Null {
			dd.ok = false
			return false
		}
		seen |= 1 << i
		dd.lines.set("expect."+key, dd.n)
		switch key {
		case "answer_includes":
			e.AnswerIncludes = dd.list(val)
		case "answer_includes_any":
			e.AnswerIncludesAny = dd.list(val)
		case "answer_excludes":
			e.AnswerExcludes = dd.list(val)
		case "answer_matches":
			if e.AnswerMatches = dd.str(val); e.AnswerMatches != "" {
				if _, err := regexp.Compile(e.AnswerMatches); err != nil {
					dd.ok = false
				}
			}
		case "case_sensitive":
			b := dd.boolean(val)
			e.CaseSensitive = &b
		case "retrieves":
			e.Retrieves = dd.list(val)
		case "cites":
			e.Cites = dd.list(val)
		case "cites_any":
			e.CitesAny = dd.list(val)
		case "cited":
			e.Cited = dd.list(val)
		case "cited_any":
			e.CitedAny = dd.list(val)
		case "cites_only_surfaced":
			e.CitesOnlySurfaced = dd.boolean(val)
		case "no_citations":
			e.NoCitations = dd.boolean(val)
		case "refusal":
			b := dd.boolean(val)
			e.Refusal = &b
		case "calls_tool":
			e.CallsTool = dd.list(val)
		case "calls_any_tool":
			e.CallsAnyTool = dd.boolean(val)
		case "never_calls":
			e.NeverCalls = dd.list(val)
		case "stops_at_approval":
			e.StopsAtApproval = dd.boolean(val)
		case "outcome":
			e.Outcome = dd.str(val)
		case "json_schema":
			if e.JSONSchema = dd.str(val); e.JSONSchema != "" {
				dd.lines.set("expect.json_schema:col", dd.col(val))
				dd.lines.set("expect.json_schema:line", dd.n)
			}
		case "max_latency_ms":
			if val.Type != gjson.Number {
				dd.ok = false
				break
			}
			f, err := strconv.ParseFloat(val.Raw, 64)
			if !strings.ContainsAny(val.Raw, ".eE") {
				// the tree keeps an integer beyond 64 bits as a string
				_, err = strconv.ParseInt(val.Raw, 10, 64)
			}
			if err != nil || !(f > 0) || math.IsInf(f, 0) {
				dd.ok = false
				break
			}
			e.MaxLatencyMs = &f
		default:
			dd.ok = false // judge, nuggets, tools, max_turns: through the tree
		}
		return dd.ok
	})
}
