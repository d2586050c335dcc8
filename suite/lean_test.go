package suite

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The lean parse (native_lean.go) must read every file exactly as the
// whole-document parse does: the same suite, problems, warnings and lines,
// the same lint findings, and the same error when there is one.

// sameParse checks parseNative against parseWhole on src and returns
// whether the lean path was taken.
func sameParse(t *testing.T, name string, src []byte) bool {
	t.Helper()
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	whole, werr := parseWhole("f.yaml", src)
	lean, ok := parseLean("f.yaml", src)
	if ok {
		if werr != nil {
			t.Errorf("%s: the lean parse reads a file the whole parse refuses (%v)", name, werr)
			return ok
		}
		if !reflect.DeepEqual(whole, lean) {
			t.Errorf("%s: lean and whole parses differ:\nwhole: %s\nlean:  %s", name, dumpParsed(whole), dumpParsed(lean))
		}
		leanFast = false
		slow, sok := parseLean("f.yaml", src)
		leanFast = true
		if !sok || !reflect.DeepEqual(whole, slow) {
			t.Errorf("%s: lean parse without the fast front end differs (ok %v)", name, sok)
		}
	}
	got, gerr := parseNative("f.yaml", src)
	if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, whole) {
		t.Errorf("%s: parseNative differs from parseWhole: %v / %v", name, gerr, werr)
	}
	return ok
}

func dumpParsed(p *parsed) string {
	if p == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%+v\nprobs %+v\nwarns %+v\nlines %+v\ntop %+v", *p.suite, p.probs, p.warns, p.caseLines, p.topLines)
}

// sameLint lints path with and without the lean parse.
func sameLint(t *testing.T, path string) {
	t.Helper()
	defer func() { leanParse = true }()
	leanParse = false
	wf, werr := Lint(path, LoadOptions{})
	leanParse = true
	lf, lerr := Lint(path, LoadOptions{})
	if fmt.Sprint(werr) != fmt.Sprint(lerr) || !reflect.DeepEqual(wf, lf) {
		t.Errorf("%s: lint differs:\nwhole: %v %v\nlean:  %v %v", path, wf, werr, lf, lerr)
	}
	leanParse = false
	ws, werr := Load(path)
	leanParse = true
	ls, lerr := Load(path)
	if fmt.Sprint(werr) != fmt.Sprint(lerr) || !reflect.DeepEqual(ws, ls) {
		t.Errorf("%s: load differs: %v / %v", path, werr, lerr)
	}
}

func looksNative(b []byte) bool {
	return bytes.Contains(b, []byte("assay:")) || bytes.Contains(b, []byte(`"assay"`))
}

// TestLeanFixtures compares the two parses on every suite in the repository:
// the testscripts' archives, suite/testdata and the examples.
func TestLeanFixtures(t *testing.T) {
	n, lean := 0, 0
	scripts, _ := filepath.Glob("../testdata/script/*.txtar")
	if len(scripts) == 0 {
		t.Fatal("no testscripts found")
	}
	for _, script := range scripts {
		files := readTxtar(t, script)
		dir := t.TempDir()
		var suites []string
		for name, data := range files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if (strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".json")) && looksNative(data) {
				suites = append(suites, p)
				n++
				if sameParse(t, filepath.Base(script)+"/"+name, data) {
					lean++
				}
			}
		}
		for _, p := range suites {
			sameLint(t, p)
		}
	}
	var local []string
	for _, pat := range []string{"testdata/*/*.yaml", "testdata/*/*.json", "testdata/*/*/*.yaml", "testdata/*/*/*.json", "../examples/*/*.yaml", "testdata/fuzz/FuzzParseNative/*"} {
		m, _ := filepath.Glob(pat)
		local = append(local, m...)
	}
	for _, p := range local {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(p, "fuzz") {
			data = fuzzSeed(t, data)
		}
		if !looksNative(data) {
			continue
		}
		n++
		if sameParse(t, p, data) {
			lean++
		}
		if !strings.Contains(p, "fuzz") {
			sameLint(t, p)
		}
	}
	t.Logf("%d suites, %d read by the lean parse", n, lean)
	if lean < n/3 {
		t.Errorf("only %d of %d suites took the lean path", lean, n)
	}
}

// readTxtar returns the files of a txtar archive.
func readTxtar(t *testing.T, path string) map[string][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	var name string
	var cur []byte
	for _, l := range strings.SplitAfter(string(data), "\n") {
		trimmed := strings.TrimRight(l, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			if name != "" {
				files[name] = cur
			}
			name, cur = strings.TrimSpace(trimmed[3:len(trimmed)-3]), []byte{}
			continue
		}
		if name != "" {
			cur = append(cur, l...)
		}
	}
	if name != "" {
		files[name] = cur
	}
	return files
}

// fuzzSeed decodes a "go test fuzz v1" file holding one []byte.
func fuzzSeed(t *testing.T, data []byte) []byte {
	t.Helper()
	_, rest, ok := strings.Cut(string(data), "\n")
	if !ok {
		return nil
	}
	rest = strings.TrimSpace(rest)
	rest = strings.TrimSuffix(strings.TrimPrefix(rest, "[]byte("), ")")
	var s string
	if _, err := fmt.Sscanf(rest, "%q", &s); err != nil {
		return nil
	}
	return []byte(s)
}

// leanCase is a generated suite and whether the lean parse must take it.
type leanCase struct {
	name string
	src  string
	lean bool
}

func leanCases() []leanCase {
	item := func(i int) string {
		return fmt.Sprintf("  - id: c%d\n    query: what is %d?\n    tags: {lang: en}\n    expect:\n      answer_includes: [x%d]\n      retrieves:\n        - d%d\n", i, i, i, i)
	}
	var items, flowItems, jsonItems strings.Builder
	for i := range 30 {
		items.WriteString(item(i))
		fmt.Fprintf(&flowItems, "  - {id: c%d, query: how often %d, expect: {answer_includes: [month]}}\n", i, i)
		if i > 0 {
			jsonItems.WriteString(",\n")
		}
		fmt.Fprintf(&jsonItems, "    {\n      \"id\": \"c%d\",\n      \"query\": \"what is %d? é\",\n      \"k\": %d,\n      \"expect\": {\"answer_includes\": [\"x\"], \"max_latency_ms\": 1.5}\n    }", i, i, i%5+1)
	}
	var big, bigJSON strings.Builder
	for i := range 1000 {
		big.WriteString(item(i % 700))
		if i > 0 {
			bigJSON.WriteString(",")
		}
		fmt.Fprintf(&bigJSON, "{\"id\": \"c%d\", \"query\": \"q %d\"}\n", i, i)
	}
	head := "assay: 1\nname: gen\nmetrics: [ndcg@10, recall@5]\n"
	tail := "gates:\n  - pass_rate >= 0.5\ncorpus:\n  - {id: d1, text: hello}\n"
	minified := `{"assay":1,"name":"m","cases":[{"id":"a","query":"q é ü","expect":{"answer_includes":["x"]}},{"id":"b","query":"r","judgments":{"d1":2}},{"id":"a","query":""}],"gates":["pass_rate >= 1"],"corpus":[{"id":"d1","text":"t"}]}`
	return []leanCase{
		{"block", head + "cases:\n" + items.String(), true},
		{"block-then-fields", head + "cases:\n" + items.String() + tail, true},
		{"flow-items", "assay: 1\nname: stub\ncases:\n" + flowItems.String(), true},
		{"flow-items-no-final-newline", "assay: 1\ncases:\n" + strings.TrimSuffix(flowItems.String(), "\n"), true},
		{"indent-0", "assay: 1\ncases:\n- id: a\n  query: q\n  expect: {answer_includes: x}\n- id: b\n  query: r\nname: after\n", true},
		{"indent-4", "assay: 1\ncases:\n    - id: a\n      query: q\n    - id: b\n      query: r\n", true},
		{"comments-and-blanks", "# head\nassay: 1\ncases:   # the cases\n\n  # first\n  - id: a # trailing\n    query: q\n# col 0 comment\n\n  - id: b\n    query: |\n      line one\n      # not a comment\n\n  - id: c\n    query: |+\n      kept\n\n\n# end\nname: x\n", true},
		{"null-at-item-end", "assay: 1\ncases:\n  - id: a\n    query:\n  - id:\n    query: q\n  - query: q2\n    id:\n  - query: q3\n    id:\n", true},
		{"hash-in-plain", "assay: 1\ncases:\n  - id: c\n    query: a#b\n    expect: {answer_includes: [x#y]}\n  - id: d\n    query: \"a\" #c\n", true},
		{"null-id-at-end-before-key", "assay: 1\ncases:\n  - query: q2\n    id:\nname: n\n", true},
		{"null-at-item-end-before-key", "assay: 1\ncases:\n  - id: a\n    query:\nname: n\n", true},
		{"problems", "assay: 1\ngain: weird\ncases:\n  - id: a\n    query: q\n    k: 0\n    expect: {answer_matches: '(', max_latency_ms: -1}\n  - id: a\n    query: q\n    relevant: [d1, '']\n    judgments: {d1: 0}\n  - query: none\n", true},
		{"json-pretty", "{\n  \"assay\": 1,\n  \"name\": \"j\",\n  \"cases\": [\n" + jsonItems.String() + "\n  ],\n  \"gates\": [\"pass_rate >= 0.5\"]\n}\n", true},
		{"json-minified", minified, true},
		{"json-cases-last", "{\"assay\": 1, \"cases\": [{\"id\": \"a\", \"query\": \"q\"}, {\"id\": \"b\", \"query\": \"r\"}]}", true},
		{"json-bom-nested", "\ufeff{\"assay\": 1, \"cases\": [\n  {\"id\": \"a\", \"query\": \"q\", \"tags\": {\"x\": \"y\"}, \"expect\": {\"retrieves\": [\"d\"]}},\n  {\"id\": \"b\", \"query\": \"r\"}\n]}\n", true},
		{"json-escapes", "{\"assay\": 1, \"cases\": [{\"id\": \"a\\\"b\", \"query\": \"q\\u00e9\\n\"}]}", true},
		{"big-block-dup-ids", "assay: 1\ncases:\n" + big.String(), true},
		{"big-json", "{\"assay\": 1, \"cases\": [" + bigJSON.String() + "]}", true},
		// fallback triggers
		{"big-block-error-late", "assay: 1\ncases:\n" + big.String() + "  - id: x\n    k: ten\n" + big.String(), false},
		{"anchor-alias", "assay: 1\ncases:\n  - &c {id: a, query: q}\n  - *c\n", false},
		{"merge-key", "assay: 1\ndefaults: {k: 3}\nbase: &b {query: q}\ncases:\n  - <<: *b\n    id: a\n", false},
		{"anchor-in-header", "assay: 1\nname: &n x\ncases:\n  - id: *n\n    query: q\n", false},
		{"tabs", "assay: 1\ncases:\n  - id: a\n    query:\tq\n", false},
		{"crlf", "assay: 1\r\ncases:\r\n  - id: a\r\n    query: q\r\n", false},
		{"flow-cases", "assay: 1\ncases: [{id: a, query: q}, {id: b, query: r}]\n", false},
		{"multi-doc", "---\nassay: 1\ncases:\n  - id: a\n    query: q\n", false},
		{"two-docs", "assay: 1\ncases:\n  - id: a\n    query: q\n---\nassay: 1\n", false},
		{"odd-indent", "assay: 1\ncases:\n    - id: a\n      query: q\n  - id: b\n    query: r\n", false},
		{"item-field-at-dash-indent", "assay: 1\ncases:\n  - id: a\n  query: q\n", false},
		{"syntax-error-in-piece", "assay: 1\ncases:\n  - id: a\n    query: [q\n  - id: b\n    query: r\n", false},
		{"unknown-field-in-piece", "assay: 1\ncases:\n  - id: a\n    qurey: q\n", false},
		{"wrong-type-in-piece", "assay: 1\ncases:\n  - id: a\n    query: q\n    k: ten\n", false},
		{"quoted-across-items", "assay: 1\ncases:\n  - id: a\n    query: \"q\n  - id: b\"\n", false},
		{"quoted-col0-continuation", "assay: 1\ncases:\n  - id: a\n    query: \"q\nr\"\n", false},
		{"duplicate-key-in-item", "assay: 1\ncases:\n  - id: a\n    id: b\n    query: q\n", false},
		{"duplicate-cases", "assay: 1\ncases:\n  - id: a\n    query: q\ncases:\n  - id: b\n    query: q\n", false},
		{"quoted-cases-key", "assay: 1\n\"cases\":\n  - id: a\n    query: q\n", false},
		{"no-version", "name: x\ncases:\n  - id: a\n    query: q\n", false},
		{"empty-cases", "assay: 1\ncases:\nname: x\n", false},
		{"dash-col0-after-indented", "assay: 1\ncases:\n  - id: a\n    query: q\n- id: b\n", false},
		{"json-tab", "{\"assay\": 1, \"cases\": [\n\t{\"id\": \"a\", \"query\": \"q\"}\n]}", false},
		{"json-single-quotes", "{'assay': 1, \"cases\": [{\"id\": \"a\", \"query\": \"q\"}]}", false},
		{"json-trailing-garbage", "{\"assay\": 1, \"cases\": [{\"id\": \"a\", \"query\": \"q\"}]} x", false},
		{"json-scalar-case", "{\"assay\": 1, \"cases\": [{\"id\": \"a\", \"query\": \"q\"}, 3]}", false},
		{"json-unknown-field", "{\"assay\": 1, \"cases\": [{\"id\": \"a\", \"qery\": \"q\"}]}", false},
		{"json-unterminated", "{\"assay\": 1, \"cases\": [{\"id\": \"a\", \"query\": \"q\"}]", false},
		{"json-cases-twice", "{\"assay\": 1, \"cases\": [{\"id\": \"a\", \"query\": \"q\"}], \"cases\": [{\"id\": \"b\", \"query\": \"q\"}]}", false},
	}
}

// fastCases are suites every case item of which the fast front end reads.
func fastCases() []leanCase {
	return []leanCase{
		{"fast-block", "assay: 1\ncases:\n" +
			"  - id: a1\n    query: what's \"this\", and that? é ü <x> @y (z) a-b a/b 1+1=2; $5 ^ ~\n    k: 3\n    tags:\n      lang: en\n      n: 12\n    judgments:\n      4983: 1\n      d-2: 0\n      0x1F: 2\n    relevant:\n      - d-2\n      - 'd 3'\n      - \"d4\"\n    expect:\n      answer_includes: [month, 'a b', \"c\", 42, 1.5]\n      case_sensitive: true\n      refusal: false\n      max_latency_ms: 1.5e3\n      no_citations: False\n      answer_matches: \"^a.b$\"\n" +
			"  - id: 012\n    query: -5\n    expect: {answer_includes: x, retrieves: [d1, d2], max_latency_ms: -1}\n    vars: {a: b c, n: 1.0}\n" +
			"  - id: a1\n    query: NULL\n    guards: true\n    surface: web\n    expect:\n      json_schema: s.json\n      answer_excludes:\n        - 'x'\n" +
			"  -   id: spaced\n      query: x   \n\n    \n", true},
		{"fast-comments", "assay: 1\ncases:\n  # first\n  - id: a # the id\n    # a comment\n    query: \"how often: is it? # not a comment\"   # a comment\n# col 0\n    expect:   # c\n      # c\n      answer_includes:\n        # c\n        - month # c\n        - 'x' # c\n      retrieves: [d1, d2] # c\n\n  # second\n  - {id: b, query: q}  # c\n  - id: c\n    query: 'a' # c\n", true},
		{"fast-flow", "assay: 1\ncases:\n  - {id: c1, query: how often is the kettle descaled 0, expect: {answer_includes: [month]}}\n  - {id: c2, query: 'q', k: 0, expect: {answer_includes: [\"m\"], refusal: true}}   \n  - {id: 3, query: xé, judgments: {d1: 2, d2: 1}}\n", true},
		{"fast-json", "{\n  \"assay\": 1,\n  \"cases\": [\n    {\n      \"id\": \"c1\",\n      \"query\": \"é ü, 'x' #y: z\",\n      \"k\": 1.0, \"guards\": \"1e1\",\n      \"expect\": {\"answer_includes\": [\"x\", 5], \"refusal\": null, \"case_sensitive\": false, \"max_latency_ms\": -0.5}\n    },\n    {\"id\": 7, \"query\": \"q\", \"judgments\": {\"d1\": 2}, \"k\": -1},\n    {\"id\": \"c1\", \"query\": \"\"}\n  ]\n}\n", true},
		{"fast-json-minified", `{"assay":1,"cases":[{"id":"é","query":"ü"},{"id":"b","query":"r","expect":{"max_latency_ms":0}},{"id":"b","query":"s"}],"name":"n"}`, true},
	}
}

// splitPieces splits src and returns each case item's text and piece.
func splitPieces(t *testing.T, src []byte) (*leanSplit, [][]byte, []leanPiece) {
	t.Helper()
	var texts [][]byte
	var pieces []leanPiece
	sp, ok := scanLean(bytes.NewReader(src), false, false, func(text []byte, pc leanPiece) bool {
		texts = append(texts, bytes.Clone(text))
		pieces = append(pieces, pc)
		return true
	})
	if !ok || sp.n != len(pieces) {
		t.Fatalf("not split (ok %v, %d pieces)", ok, len(pieces))
	}
	return sp, texts, pieces
}

// TestLeanFast checks that the fast front end reads every piece of simple
// suites, and that what it reads is what goccy reads.
func TestLeanFast(t *testing.T) {
	for _, c := range fastCases() {
		src := []byte(c.src)
		if !sameParse(t, c.name, src) {
			t.Errorf("%s: lean path not taken", c.name)
			continue
		}
		sp, texts, pieces := splitPieces(t, src)
		for i, pc := range pieces {
			if sp.fastPiece(texts[i], pc) == nil {
				t.Errorf("%s: case %d not read by the fast front end:\n%s", c.name, i+1, texts[i])
			}
		}
	}
}

// TestLeanGenerated compares the two parses on generated suites of every
// shape the lean parse splits, and on each of its fallback triggers.
func TestLeanGenerated(t *testing.T) {
	for _, c := range leanCases() {
		if got := sameParse(t, c.name, []byte(c.src)); got != c.lean {
			t.Errorf("%s: lean path taken = %v, want %v", c.name, got, c.lean)
		}
	}
	// and through Lint and Load, with a corpus file and a schema
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "corpus.jsonl"), []byte(`{"id": "d1", "text": "hello"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "s.json"), []byte(`{"type": "object"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"type": 3}`), 0o644)
	for i, c := range leanCases() {
		ext := ".yaml"
		if strings.HasPrefix(c.name, "json") {
			ext = ".json"
		}
		p := filepath.Join(dir, fmt.Sprintf("g%02d%s", i, ext))
		os.WriteFile(p, []byte(c.src), 0o644)
		sameLint(t, p)
	}
	withCorpus := "assay: 1\ncorpus: corpus.jsonl\ncases:\n  - id: a\n    query: hello there\n    relevant: [d1, d9]\n    expect:\n      json_schema: s.json\n  - id: b\n    query: q\n    expect:\n      json_schema: bad.json\n      retrieves: [d1, d2]\n"
	p := filepath.Join(dir, "corpus.yaml")
	os.WriteFile(p, []byte(withCorpus), 0o644)
	if !sameParse(t, "corpus", []byte(withCorpus)) {
		t.Error("corpus: lean path not taken")
	}
	sameLint(t, p)
}

// FuzzParseLean: on any input, the lean parse agrees with the whole one.
func FuzzParseLean(f *testing.F) {
	for _, c := range append(leanCases(), fastCases()...) {
		if len(c.src) < 4096 { // big inputs make goccy slow under the fuzzer
			f.Add([]byte(c.src))
		}
	}
	for _, p := range []string{"testdata/kb/suite.yaml", "testdata/kb/suite.json", "testdata/lint/findings.yaml"} {
		if b, err := os.ReadFile(filepath.FromSlash(p)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		sameParse(t, "input", src)
	})
}
