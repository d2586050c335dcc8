package schema_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/assay-eval/assay/suite"
	"github.com/assay-eval/assay/suite/schema"
)

// compiled is the embedded suite schema, compiled as a draft 2020-12
// validator.
func compiled(t *testing.T) *jsonschema.Schema { return compiledAt(t, "") }

// compiledAt compiles the definition at fragment ("#/$defs/case") of the
// embedded suite schema; "" is the whole schema.
func compiledAt(t *testing.T, fragment string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema.Suite()))
	if err != nil {
		t.Fatalf("suite.schema.json is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("suite.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("suite.schema.json" + fragment)
	if err != nil {
		t.Fatalf("suite.schema.json does not compile: %v", err)
	}
	return s
}

// validate reads a YAML suite as JSON and checks it against s.
func validate(s *jsonschema.Schema, src []byte) error {
	// Through a Go value, not yaml.YAMLToJSON: that one writes YAML's
	// "\x1b" escapes into the JSON as they are.
	var doc any
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return err
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// suiteFile is a native suite file of the repository, and whether the
// loader reads it; err is the loader's error, if any.
type suiteFile struct {
	name string
	src  []byte // a YAML or JSON suite, or a JSONL suite's header line
	// cases are JSONL case lines: a JSONL suite's, or those of the cases
	// file a suite names (cases: FILE).
	cases [][]byte
	err   error
}

// repoSuites gathers the native suites of the repository: the examples
// (examples/**/suite*.yaml), suite/testdata, and the YAML files of the
// testscripts (each archive unpacked to a directory, so corpus files and
// JSONL cases next to the suite resolve). Files that are not native suites
// (no "assay:" key, another format) are left out.
func repoSuites(t *testing.T) []suiteFile {
	t.Helper()
	var out []suiteFile
	add := func(name, path string) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var cases [][]byte
		if strings.HasSuffix(path, ".jsonl") {
			lines := jsonlLines(src)
			if len(lines) == 0 {
				return
			}
			src, cases = lines[0], lines[1:]
		}
		if !isNative(src) {
			return
		}
		st, lerr := suite.Load(path)
		if lerr == nil && st.Format != "native" {
			return
		}
		var m map[string]any
		if yaml.Unmarshal(src, &m) == nil {
			if f, ok := m["cases"].(string); ok && !filepath.IsAbs(f) {
				if b, err := os.ReadFile(filepath.Join(filepath.Dir(path), filepath.FromSlash(f))); err == nil {
					cases = jsonlLines(b)
				}
			}
		}
		out = append(out, suiteFile{name: name, src: src, cases: cases, err: lerr})
	}
	walk := func(root string, keep func(string) bool) {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && keep(p) {
				add(p, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	yamlFile := func(p string) bool {
		return strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".jsonl")
	}
	walk("../../examples", func(p string) bool {
		return yamlFile(p) && strings.HasPrefix(filepath.Base(p), "suite")
	})
	walk("../testdata", yamlFile)
	for _, ar := range scriptArchives(t) {
		for _, n := range ar.names {
			if yamlFile(n) {
				add(ar.script+":"+n, filepath.Join(ar.dir, filepath.FromSlash(n)))
			}
		}
	}
	return out
}

// jsonlLines are the non-blank lines of a JSONL file.
func jsonlLines(b []byte) [][]byte {
	var out [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// isNative reports whether src is a YAML mapping with an "assay" key: a
// native suite, or meant as one.
func isNative(src []byte) bool {
	var m map[string]any
	if yaml.Unmarshal(src, &m) != nil {
		return false
	}
	_, ok := m["assay"]
	return ok
}

// TestRepositorySuitesValidate checks every native suite of the
// repository the loader reads without error against the schema, and that
// every one it rejects for an unknown field the schema rejects too.
func TestRepositorySuitesValidate(t *testing.T) {
	s, cs := compiled(t), compiledAt(t, "#/$defs/case")
	files := repoSuites(t)
	valid, unknown, lines := 0, 0, 0
	for _, f := range files {
		switch {
		case f.err == nil:
			valid++
			if err := validate(s, f.src); err != nil {
				t.Errorf("%s: the loader reads it but the schema rejects it:\n%v", f.name, err)
			}
			for i, c := range f.cases {
				lines++
				if err := validate(cs, c); err != nil {
					t.Errorf("%s: case line %d: the loader reads it but #/$defs/case rejects it:\n%v", f.name, i+1, err)
				}
			}
		case strings.Contains(f.err.Error(), "unknown field"):
			unknown++
			rejected := validate(s, f.src) != nil
			for _, c := range f.cases {
				rejected = rejected || validate(cs, c) != nil
			}
			if !rejected {
				t.Errorf("%s: the loader rejects it (%v) but the schema accepts it", f.name, f.err)
			}
		}
	}
	if valid < 20 || unknown < 1 || lines < 5 {
		t.Errorf("found %d valid and %d unknown-field suites, %d JSONL case lines; the walk is broken", valid, unknown, lines)
	}
	t.Logf("%d suites: %d valid (%d JSONL case lines), %d with an unknown field", len(files), valid, lines, unknown)
}

// TestSchemaFields pins what the schema says of each kind of field: the
// expectation kinds (cited and cited_any included), refusal_markers as a
// list or a set name, cases as a list or a JSONL file, and unknown fields
// rejected at every level.
func TestSchemaFields(t *testing.T) {
	s := compiled(t)
	const head = "assay: 1\nname: s\n"
	for _, tc := range []struct {
		name, src string
		ok        bool
	}{
		{"minimal", head + "cases:\n  - {id: c1, query: q}\n", true},
		{"every expectation", head + `cases:
  - id: c1
    query: q
    k: 5
    relevant: [d1]
    judgments: {d2: 2, d3: 0}
    tags: {lang: de, hard: true}
    expect:
      answer_includes: [a]
      answer_includes_any: a
      answer_excludes: [b]
      answer_matches: "^x"
      case_sensitive: true
      retrieves: [d1]
      cites: [d1]
      cites_any: [d1, d2]
      cited: [d1]
      cited_any: [d1, d2]
      cites_only_surfaced: true
      no_citations: false
      refusal: false
      calls_tool: [search]
      calls_any_tool: true
      never_calls: [delete]
      stops_at_approval: false
      outcome: ok
      json_schema: answer.schema.json
      max_latency_ms: 1500
`, true},
		{"refusal markers list", head + "refusal_markers: [\"I don't know\"]\ncases: [{id: c1, query: q}]\n", true},
		{"refusal markers set", head + "refusal_markers: de\ncases: [{id: c1, query: q}]\n", true},
		{"cases file", head + "cases: cases.jsonl\n", true},
		{"inline corpus", head + "corpus:\n  - {id: d1, title: t, text: x, metadata: {a: b}}\ncases: [{id: c1, query: q}]\n", true},
		{"corpus path", head + "corpus: docs/\ndefaults: {k: 10, case_sensitive: false}\ngain: exponential\ngates: |\n  pass_rate >= 0.8\ncases: [{id: c1, query: q}]\n", true},
		{"gain in capitals", head + "gain: Exponential\ncases: [{id: c1, query: q}]\n", true},
		{"unknown gain", head + "gain: log\ncases: [{id: c1, query: q}]\n", false},
		{"no version", "name: s\ncases: [{id: c1, query: q}]\n", false},
		{"version 2", "assay: 2\ncases: [{id: c1, query: q}]\n", false},
		{"unknown top-level field", head + "casess: []\n", false},
		{"unknown case field", head + "cases: [{id: c1, query: q, relevent: [d1]}]\n", false},
		{"expectation outside expect", head + "cases: [{id: c1, query: q, cites: [d1]}]\n", false},
		{"unknown expectation", head + "cases: [{id: c1, query: q, expect: {cite: [d1]}}]\n", false},
		{"unknown defaults field", head + "defaults: {top_k: 3}\ncases: [{id: c1, query: q}]\n", false},
		{"unknown document field", head + "corpus: [{id: d1, body: x}]\ncases: [{id: c1, query: q}]\n", false},
		{"empty expectation list", head + "cases: [{id: c1, query: q, expect: {cited_any: []}}]\n", false},
		{"case without query", head + "cases: [{id: c1}]\n", false},
		{"k zero", head + "cases: [{id: c1, query: q, k: 0}]\n", false},
		{"grade not integer", head + "cases: [{id: c1, query: q, judgments: {d1: high}}]\n", false},
		{"judge", head + "defaults: {judge: {groundedness: 0.8}}\njudge:\n  url: http://127.0.0.1:8/v1\n  model: m\n  api_key: ${KEY}\n  seed: 1\n  rubric: [{name: faith, description: d, scale: [1, 5]}]\n  budget: {max_calls: 3, max_cost: 1, prompt_price: 0.000001}\ncases: [{id: c1, query: q, expect: {judge: {faith: 4}}}]\n", true},
		{"judge without model", head + "judge: {url: http://x/v1}\ncases: [{id: c1, query: q}]\n", false},
		{"judge literal key", head + "judge: {url: http://x/v1, model: m, api_key: sk-123}\ncases: [{id: c1, query: q}]\n", false},
		{"judge unknown field", head + "judge: {url: http://x/v1, model: m, temprature: 0}\ncases: [{id: c1, query: q}]\n", false},
		{"judge bound not number", head + "cases: [{id: c1, query: q, expect: {judge: {groundedness: high}}}]\n", false},
		{"nuggets", head + "nugget_no_vital: zero\ncases: [{id: c1, query: q, expect: {nuggets: [sha-256, {text: salted, importance: okay, match: [salt], regex: x, parts: [a, [b, c]], assign: judge}, {text: t, assignment: partial_support}]}}]\n", true},
		{"one nugget", head + "cases: [{id: c1, query: q, expect: {nuggets: sha-256}}]\n", true},
		{"nugget without text", head + "cases: [{id: c1, query: q, expect: {nuggets: [{importance: vital}]}}]\n", false},
		{"nugget importance", head + "cases: [{id: c1, query: q, expect: {nuggets: [{text: t, importance: high}]}}]\n", false},
		{"nugget assignment", head + "cases: [{id: c1, query: q, expect: {nuggets: [{text: t, assignment: yes}]}}]\n", false},
		{"nugget_no_vital", head + "nugget_no_vital: nan\ncases: [{id: c1, query: q}]\n", false},
		{"refusal not bool", head + "cases: [{id: c1, query: q, expect: {refusal: yes please}}]\n", false},
		{"conversation", head + "cases:\n  - id: c1\n    turns:\n      - hello\n      - {query: q, relevant: [d1], expect: {answer_includes: [a], tools: [search]}}\n    expect:\n      max_turns: 2\n      tools: {mode: superset, args: subset, calls: [{name: search, args: {q: x, k: 3}, args_match: exact, args_regex: {q: ^x}}]}\n", true},
		{"conversation and query", head + "cases: [{id: c1, query: q, turns: [hello]}]\n", false},
		{"conversation without turns", head + "cases: [{id: c1, turns: []}]\n", false},
		{"turn expectation outside expect", head + "cases: [{id: c1, turns: [{query: q, cites: [d1]}]}]\n", false},
		{"unknown trajectory mode", head + "cases: [{id: c1, query: q, expect: {tools: {mode: loose, calls: [search]}}}]\n", false},
		{"unknown args mode", head + "cases: [{id: c1, query: q, expect: {tools: {calls: [{name: s, args_match: fuzzy}]}}}]\n", false},
		{"max_turns zero", head + "cases: [{id: c1, turns: [hi], expect: {max_turns: 0}}]\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := validate(s, []byte(tc.src))
			if tc.ok && err != nil {
				t.Errorf("schema rejects it:\n%v", err)
			}
			if !tc.ok && err == nil {
				t.Error("schema accepts it")
			}
		})
	}
}

// TestGet pins the lookup `assay schema NAME` uses.
func TestGet(t *testing.T) {
	b, err := schema.Get("suite")
	if err != nil || !bytes.Contains(b, []byte(`"$schema": "https://json-schema.org/draft/2020-12/schema"`)) {
		t.Fatalf("Get(suite) = %.60q, %v", b, err)
	}
	// Editors evaluate "pattern" as ECMA-262, which has no (?i) flags.
	if bytes.Contains(b, []byte("(?")) {
		t.Error("the schema has a Go-only (?...) group in a pattern")
	}
	if _, err := schema.Get("run"); err == nil || err.Error() != `unknown schema "run" (want one of: floors, observation, suite, target)` {
		t.Errorf("Get(run) error = %v", err)
	}
}

// TestKZeroSaysMinimum: k: 0 is reported as below the minimum of 1, not
// as "expected null" (the first branch of a oneOf).
func TestKZeroSaysMinimum(t *testing.T) {
	err := validate(compiled(t), []byte("assay: 1\nname: s\ncases: [{id: c1, query: q, k: 0}]\n"))
	if err == nil {
		t.Fatal("k: 0 accepted")
	}
	msg := err.Error()
	if !strings.Contains(msg, "at '/cases/0/k': minimum: got 0, want 1") || strings.Contains(msg, "'/cases/0/k': got number, want null") {
		t.Errorf("k: 0 reads:\n%s\nwant a message about the minimum, not null", msg)
	}
}
