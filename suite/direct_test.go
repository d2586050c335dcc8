package suite

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/nesting"
)

// lineDecoder is a decoder of the case lines of s.jsonl in a suite with
// recall_over recallOver.
func lineDecoder(recallOver string) *nativeDecoder {
	return &nativeDecoder{r: &nodeReader{file: "s.jsonl"}, p: &parsed{suite: &assay.Suite{RecallOver: recallOver}}}
}

// treeLineCase decodes line n through its positioned tree, as every line
// was decoded before the direct decoding: the case, its field lines, and
// the problems and warnings the decoder noted.
func treeLineCase(recallOver string, line []byte, n int) (assay.Case, fieldLines, []problem, []problem, error) {
	d := lineDecoder(recallOver)
	node, err := parseJSONLLine(d.r.file, n, line)
	if err != nil {
		return assay.Case{}, nil, nil, nil, err
	}
	node, err = d.r.resolve(node)
	if err != nil {
		return assay.Case{}, nil, nil, nil, err
	}
	c, lines, err := d.oneCase(node, 0)
	return c, lines, d.p.probs, d.p.warns, err
}

// checkDirectSameAsTree fails when the direct decoding of line takes it
// and the tree's decoding says anything about it or decodes another case
// or other field lines. It reports whether the direct decoding took it.
func checkDirectSameAsTree(t *testing.T, recallOver string, line []byte) bool {
	t.Helper()
	const n = 7
	c, lines, ok := lineDecoder(recallOver).directCase(line, n, false)
	tc, tlines, probs, warns, err := treeLineCase(recallOver, line, n)
	if err == nil && len(probs) == 0 && len(warns) == 0 {
		// What the validating pass accepted, the run's pass reads again
		// without the checks: the same case either way.
		if vc, vlines, vok := lineDecoder(recallOver).directCase(line, n, true); vok && (!reflect.DeepEqual(vc, tc) || !reflect.DeepEqual(vlines, tlines)) {
			t.Fatalf("validated line %q: direct case\n%#v %v\ntree case\n%#v %v", line, vc, vlines, tc, tlines)
		}
	}
	if !ok {
		return false
	}
	switch {
	case err != nil:
		t.Fatalf("line %q: taken directly, but the tree says %v", line, err)
	case len(probs) > 0 || len(warns) > 0:
		t.Fatalf("line %q: taken directly, but the tree notes %v %v", line, probs, warns)
	case !reflect.DeepEqual(c, tc):
		t.Fatalf("line %q (recall_over %q): direct case\n%#v\ntree case\n%#v", line, recallOver, c, tc)
	case !reflect.DeepEqual(lines, tlines):
		t.Fatalf("line %q: direct field lines %v, tree's %v", line, lines, tlines)
	}
	return true
}

// plainLines are case lines the direct decoding takes.
var plainLines = []string{
	`{"id": "c000001", "query": "how often is the kettle descaled 1", "expect": {"answer_includes": ["month"]}}`,
	`{"id":"a","query":""}`,
	"\t {\"query\": \"é\", \"id\": \"ü\", \"expect\": {\"json_schema\": \"s.json\"}}",
	`  {"query": "q", "id": "a", "k": 3, "relevant": ["d1", "d2", "d1"], "judgments": {"d2": 2, "d3": 0}}`,
	`{"id": "a", "query": "q", "relevant": "d1", "tags": {"lang": "en", "doc": "x"}, "vars": {}, "provenance": {"trace_id": "t"}, "guards": "g", "surface": "chat", "review": "pending"}`,
	`{"id": "a", "query": "q", "relevant": [], "judgments": {}}`,
	`{"id": "ü-1", "query": "wie oft wird der Kessel entkalkt? ✓", "expect": {"answer_includes": "Monat", "answer_excludes": ["Jahr"], "json_schema": "s/ä.json"}}`,
	`{"id": "a", "query": "q", "expect": {"answer_includes_any": ["x", "y"], "answer_matches": "^m(o|a)nth$", "case_sensitive": true, "retrieves": ["d"], "cites": ["d"], "cites_any": ["d"], "cited": ["d"], "cited_any": ["d"], "cites_only_surfaced": false, "no_citations": false, "refusal": false, "calls_tool": ["search"], "calls_any_tool": true, "never_calls": ["rm"], "stops_at_approval": false, "outcome": "answered", "max_latency_ms": 250.5}}`,
	`{"id": "a", "query": "q", "expect": {"max_latency_ms": 9223372036854775807, "answer_matches": ""}, "k": 2147483647, "judgments": {"d": -2147483648}}`,
}

// notPlainLines are case lines the direct decoding leaves to the tree:
// each is one the tree's decoder refuses, notes a problem or a warning in,
// or reads in a form the direct decoding does not.
var notPlainLines = []string{
	`{"id": "a", "query": "q", "id": "b"}`,                                // a duplicate field
	`{"ID": "a", "query": "q"}`,                                           // not a field (encoding/json would take it for id)
	`{"id": "a", "query": "q", "tags": {"x": "1", "x": "2"}}`,             // a duplicate tag
	`{"id": "a", "query": "q", "judgments": {"d": 1, "d": 2}}`,            // a duplicate judgment
	`{"id": "a", "query": null}`,                                          // null: the case has no query
	`{"id": "a"}`,                                                         // no query
	`{"id": "", "query": "q"}`,                                            // an empty id
	`{"query": "q"}`,                                                      // no id
	`{"id": 42, "query": "q"}`,                                            // a number as a string
	`{"id": "a", "query": "q", "k": 0}`,                                   // k below 1
	`{"id": "a", "query": "q", "k": 1.0}`,                                 // k as a float
	`{"id": "a", "query": "q", "k": 99999999999}`,                         // k out of range
	`{"id": "a", "query": "q", "relevant": ["d", ""]}`,                    // an empty document id
	`{"id": "a", "query": "q", "relevant": ["d"], "judgments": {"d": 0}}`, // judged 0 and listed: a warning
	`{"id": "a", "query": "q", "expect": {"answer_includes": []}}`,        // an empty list
	`{"id": "a", "query": "q", "expect": {"answer_includes": ["x", ""]}}`,
	`{"id": "a", "query": "q", "expect": {"answer_matches": "(("}}`,
	`{"id": "a", "query": "q", "expect": {"max_latency_ms": 0}}`,
	`{"id": "a", "query": "q", "expect": {"max_latency_ms": 1e999}}`,
	`{"id": "a", "query": "q", "expect": {"max_latency_ms": 99999999999999999999999}}`,
	`{"id": "a", "query": "q", "expect": {"nuggets": ["x"]}}`, // read by the tree only
	`{"id": "a", "query": "q", "review": "done"}`,
	`{"id": "a", "turns": ["hi", "there"]}`,
	`{"id": "a\u00e9", "query": "q"}`, // an escape
	`{"id": "a", "query": "q"} x`,     // not valid JSON
	`["id", "a"]`,
	"{\"id\": \"a\", \"query\": \"q\xff\"}", // not UTF-8
}

// TestDirectCaseSameAsTree: the plain lines are taken directly, to the
// case and field lines their tree decodes to under either recall_over;
// the others are left to the tree.
func TestDirectCaseSameAsTree(t *testing.T) {
	for _, ro := range []string{"", assay.RecallOverRelevant} {
		for _, line := range plainLines {
			if !checkDirectSameAsTree(t, ro, []byte(line)) {
				t.Errorf("recall_over %q: plain line %s went through the tree", ro, line)
			}
		}
		for _, line := range notPlainLines {
			if checkDirectSameAsTree(t, ro, []byte(line)) {
				t.Errorf("recall_over %q: line %s was taken directly", ro, line)
			}
		}
	}
}

// TestDirectCaseKeepsTheLengthLimit: a query at the longest a string may
// be (nesting.MaxScalar with its quotes) is taken directly, one byte more
// is left to the tree, which refuses it.
func TestDirectCaseKeepsTheLengthLimit(t *testing.T) {
	line := func(n int) []byte { return []byte(`{"id": "a", "query": "` + strings.Repeat("x", n) + `"}`) }
	if !checkDirectSameAsTree(t, "", line(nesting.MaxScalar-2)) {
		t.Error("a query at the limit went through the tree")
	}
	if checkDirectSameAsTree(t, "", line(nesting.MaxScalar-1)) {
		t.Error("a query longer than the limit was taken directly")
	}
	if _, _, _, _, err := treeLineCase("", line(nesting.MaxScalar-1), 1); err == nil {
		t.Error("the tree took a query longer than the limit")
	}
}

// TestJSONLSuiteCasesDecodedDirectly: the case lines of a JSONL suite as
// `targetstub -suite N -jsonl` writes them are taken directly, and the
// streamed cases are those of the same suite written as YAML.
func TestJSONLSuiteCasesDecodedDirectly(t *testing.T) {
	p := largeSuite(t, 50, "jsonl")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range bytes.Split(bytes.TrimSpace(src), []byte("\n"))[1:] {
		if _, _, ok := lineDecoder("").directCase(line, i+2, false); !ok {
			t.Fatalf("line %d went through the tree: %s", i+2, line)
		}
	}
	st, err := Stream(p, LoadOptions{})
	if err != nil || st.Suite.Cases != nil {
		t.Fatalf("not streamed: %v", err)
	}
	var got []assay.Case
	if err := st.Cases(func(c assay.Case) error { got = append(got, c); return nil }); err != nil {
		t.Fatal(err)
	}
	want, err := Load(largeSuite(t, 50, "flow"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i].Source, want.Cases[i].Source = "", ""
	}
	if !reflect.DeepEqual(got, want.Cases) {
		t.Fatalf("the streamed JSONL cases differ from the YAML suite's:\n%v\n%v", got[:2], want.Cases[:2])
	}
}

// FuzzDirectCaseSameAsTree: whatever line the direct decoding takes, the
// tree's decoder accepts without a word and decodes to the same case and
// field lines (checkDirectSameAsTree); and it never panics.
func FuzzDirectCaseSameAsTree(f *testing.F) {
	for _, line := range plainLines {
		f.Add([]byte(line), false)
	}
	for _, line := range notPlainLines {
		f.Add([]byte(line), true)
	}
	f.Fuzz(func(t *testing.T, line []byte, relevant bool) {
		ro := ""
		if relevant {
			ro = assay.RecallOverRelevant
		}
		checkDirectSameAsTree(t, ro, line)
	})
}
