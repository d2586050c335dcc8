package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/cputime"
	"github.com/assay-eval/assay/internal/nesting"
)

// jsonlCase is a generated JSONL suite and whether Stream streams it.
type jsonlCase struct {
	name   string
	src    string
	stream bool
}

const jsonlHeader = `{"assay": 1, "name": "j"}` + "\n"

// jsonlCases are JSONL suites of every shape and fault.
func jsonlCases() []jsonlCase {
	return []jsonlCase{
		{"simple", jsonlHeader + `{"id": "a", "query": "q1"}` + "\n" + `{"id": "b", "query": "q2", "expect": {"answer_includes": ["x"]}}` + "\n", true},
		{"no-final-newline", jsonlHeader + `{"id": "a", "query": "q1"}`, true},
		{"blank-lines", jsonlHeader + "\n  \n" + `{"id": "a", "query": "q1"}` + "\n\n", true},
		{"crlf", strings.ReplaceAll(jsonlHeader+`{"id": "a", "query": "q1"}`+"\n", "\n", "\r\n"), true},
		{"bom", "\ufeff" + jsonlHeader + `{"id": "a", "query": "q1"}` + "\n", true},
		{"rich", `{"assay": 1, "defaults": {"k": 5}, "metrics": ["nDCG@10", "mrr"], "gates": ["pass_rate >= 0.5"], "tools": ["search"]}` + "\n" +
			`{"id": "a", "query": "q", "tags": {"lang": "en", "n": 4}, "k": 3, "relevant": ["d1", 4983], "judgments": {"d2": 2, "d3": 0}, "vars": {"x": "y"}, "expect": {"answer_matches": "(?i)x", "calls_tool": "search", "refusal": false, "max_latency_ms": 5.5}}` + "\n", true},
		{"header-only", jsonlHeader, false},
		{"empty", "", false},
		{"no-assay", `{"name": "x"}` + "\n" + `{"id": "a", "query": "q"}` + "\n", false},
		{"header-with-cases", `{"assay": 1, "cases": []}` + "\n" + `{"id": "a", "query": "q"}` + "\n", false},
		{"unknown-field", jsonlHeader + `{"id": "a", "query": "q"}` + "\n" + `{"id": "b", "query": "q", "answer_include": ["x"]}` + "\n", false},
		{"wrong-type", jsonlHeader + `{"id": "a", "query": "q", "k": "ten"}` + "\n", false},
		{"not-an-object", jsonlHeader + `["a", "q"]` + "\n", false},
		{"yaml-line", jsonlHeader + `id: a` + "\n", false},
		{"two-objects", jsonlHeader + `{"id": "a", "query": "q"} {"id": "b", "query": "q"}` + "\n", false},
		{"syntax", jsonlHeader + `{"id": "a", "query": "q"` + "\n", false},
		{"duplicate-id", jsonlHeader + `{"id": "a", "query": "q"}` + "\n" + `{"id": "a", "query": "r"}` + "\n", false},
		{"missing-id", jsonlHeader + `{"query": "q"}` + "\n", false},
		{"missing-query", jsonlHeader + `{"id": "a"}` + "\n", false},
		{"bad-regexp", jsonlHeader + `{"id": "a", "query": "q", "expect": {"answer_matches": "("}}` + "\n", false},
		{"anchor-per-line", jsonlHeader + `{"id": "a", "query": &q "q", "tags": {"t": *q}}` + "\n" + `{"id": "b", "query": *q}` + "\n", false},
		{"deep", jsonlHeader + `{"id": "a", "query": "q", "tags": ` + strings.Repeat("[", 2000) + "\n", false},
	}
}

// TestJSONLSuites: Stream and LoadWith agree on every generated JSONL
// suite, and stream exactly the valid ones.
func TestJSONLSuites(t *testing.T) {
	dir := t.TempDir()
	for _, c := range jsonlCases() {
		p := filepath.Join(dir, c.name+".jsonl")
		if err := os.WriteFile(p, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := sameStream(t, p); got != c.stream {
			t.Errorf("%s: streamed %v, want %v", c.name, got, c.stream)
		}
		sameCheck(t, p, LoadOptions{})
	}
}

// TestJSONLErrors: the error of each faulty JSONL suite, positioned at the
// line of the file and the column in it.
func TestJSONLErrors(t *testing.T) {
	dir := t.TempDir()
	want := map[string]string{
		"header-only":       "header-only.jsonl:1:1: the suite has no cases: a JSONL suite has one case object on each line after its header",
		"empty":             `empty.jsonl:1:1: empty suite file: the native format starts with "assay: 1"`,
		"no-assay":          `no-assay.jsonl:1:1: missing "assay: 1": the native suite format needs it (is this a file of another format?)`,
		"header-with-cases": `header-with-cases.jsonl:1:14: cases: a JSONL suite has no "cases" field: its cases are the lines after this header`,
		"unknown-field":     `unknown-field.jsonl:3:27: unknown field "answer_include"`,
		"wrong-type":        `wrong-type.jsonl:2:32: k: want an integer, got a string "ten"`,
		"not-an-object":     `not-an-object.jsonl:2:1: want a JSON object on each line of a JSONL suite, got "[\"a\", \"q\"]"`,
		"yaml-line":         `yaml-line.jsonl:2:1: want a JSON object on each line of a JSONL suite, got "id: a"`,
		"duplicate-id":      `duplicate-id.jsonl:3:8: duplicate case id "a" (first at line 2)`,
		"missing-id":        `missing-id.jsonl:2:1: case 1 has no "id"`,
		"missing-query":     `missing-query.jsonl:2:1: case "a" has no "query"`,
		"deep":              `deep.jsonl:2:1032: nested more than 1000 levels deep (the limit)`,
	}
	for _, c := range jsonlCases() {
		w, ok := want[c.name]
		if !ok {
			continue
		}
		p := filepath.Join(dir, c.name+".jsonl")
		os.WriteFile(p, []byte(c.src), 0o644)
		_, err := Load(p)
		if err == nil || err.Error() != filepath.Join(dir, w) {
			t.Errorf("%s: error\n  %v\nwant\n  %s", c.name, err, filepath.Join(dir, w))
		}
	}
}

// TestJSONLSameAsYAML: every native suite of the repository written as a
// JSONL suite, and as a suite whose cases are in a JSONL file, loads to
// the same suite (but for where each case is), and Stream, LoadWith and
// Check agree on each form.
func TestJSONLSameAsYAML(t *testing.T) {
	n := 0
	for i, p := range fixtureSuites(t) {
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Load(p)
		if err != nil || want.Format != "native" || len(want.Cases) == 0 {
			continue
		}
		// The forms are written beside links to the files beside p, so
		// that the corpus and json_schema files resolve as for p.
		dir := t.TempDir()
		linkTree(t, filepath.Dir(p), dir)
		jp, cp, ok := jsonlForms(t, dir, fmt.Sprintf("jsonl-form-%d", i), src)
		if !ok {
			continue
		}
		n++
		for _, q := range []string{jp, cp} {
			got, err := Load(q)
			if err != nil {
				t.Errorf("%s as %s: %v", p, filepath.Base(q), err)
				continue
			}
			if len(got.Cases) != len(want.Cases) || Fingerprint(got) != Fingerprint(want) {
				t.Errorf("%s as %s: %d cases, fingerprint differs: %v", p, filepath.Base(q), len(got.Cases), Fingerprint(got) != Fingerprint(want))
			}
			// A suite with a judgments_file is loaded whole, by design.
			if streamed := sameStream(t, q); !streamed && want.JudgmentsFile == "" {
				t.Errorf("%s as %s: not streamed", p, filepath.Base(q))
			}
			sameCheck(t, q, LoadOptions{})
		}
	}
	if n < 30 {
		t.Errorf("only %d suites written as JSONL", n)
	}
}

// linkTree recreates the directories under from in to, each file a
// symbolic link to the one in from.
func linkTree(t *testing.T, from, to string) {
	t.Helper()
	abs, err := filepath.Abs(from)
	if err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(abs, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(abs, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		return os.Symlink(p, filepath.Join(to, rel))
	})
}

// TestCasesFile: a native suite whose cases: names a JSONL file: errors
// in the cases are positioned in that file, lint findings name it, and a
// missing or empty file is an error at the cases: field.
func TestCasesFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"s.yaml":      "assay: 1\nname: cf\ncases: cases.jsonl\n",
		"cases.jsonl": `{"id": "a", "query": "q", "expect": {"answer_includes": ["q"]}}` + "\n" + `{"id": "b", "query": "r", "expect": {"answer_includes": ["x"]}}` + "\n",
		"bad.yaml":    "assay: 1\ncases: bad.jsonl\n",
		"bad.jsonl":   `{"id": "a", "query": "q"}` + "\n\n" + `{"id": "b", "qurey": "r"}` + "\n",
		"none.yaml":   "assay: 1\ncases: nowhere.jsonl\n",
		"empty.yaml":  "assay: 1\ncases: empty.jsonl\n",
		"empty.jsonl": "\n",
		"text.yaml":   "assay: 1\ncases: cases.txt\n",
		"head.yaml":   "assay: 1\ncases: head.jsonl\n",
		"head.jsonl":  `{"assay": 1, "name": "x"}` + "\n" + `{"id": "a", "query": "q"}` + "\n",
	})
	p := filepath.Join(dir, "s.yaml")
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cases) != 2 || s.Cases[1].Source != filepath.Join(dir, "cases.jsonl")+":2" || s.Name != "cf" {
		t.Errorf("cases %+v", s.Cases)
	}
	if !sameStream(t, p) {
		t.Error("not streamed")
	}
	_, fs, err := Check(p, LoadOptions{})
	if err != nil || len(fs) != 1 || fs[0].String() != filepath.Join(dir, "cases.jsonl")+`:1: warning: case "a": leakage: the expected answer "q" is in the query` && !strings.HasPrefix(fs[0].Source, filepath.Join(dir, "cases.jsonl")+":1") {
		t.Errorf("findings %v, %v", fs, err)
	}
	for name, want := range map[string]string{
		"bad.yaml":   filepath.Join(dir, "bad.jsonl") + `:3:13: unknown field "qurey" (did you mean "query"?)`,
		"none.yaml":  filepath.Join(dir, "none.yaml") + ":2:1: cases: cannot read nowhere.jsonl: no such file or directory",
		"empty.yaml": filepath.Join(dir, "empty.yaml") + ":2:1: the suite has no cases: empty.jsonl has no case line",
		"text.yaml":  filepath.Join(dir, "text.yaml") + `:2:8: cases: want a list of cases, got a string "cases.txt"`,
		"head.yaml":  filepath.Join(dir, "head.jsonl") + `:1:2: unknown field "assay" (every line of a cases file is a case: the suite's fields belong in the suite file)`,
	} {
		_, err := Load(filepath.Join(dir, name))
		if err == nil || err.Error() != want {
			t.Errorf("%s: error\n  %v\nwant\n  %s", name, err, want)
		}
		if _, err2 := Stream(filepath.Join(dir, name), LoadOptions{}); fmt.Sprint(err2) != fmt.Sprint(err) {
			t.Errorf("%s: Stream error %v, Load %v", name, err2, err)
		}
	}
}

// TestJSONLLimits: a JSONL line is held to the limits of a YAML suite: a
// 40,000-key judgments mapping is read fast, a long scalar is refused.
func TestJSONLLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString(jsonlHeader + `{"id": "a", "query": "q", "judgments": {`)
	for i := range 40000 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"d%d": 1`, i)
	}
	b.WriteString("}}\n")
	dir := t.TempDir()
	p := filepath.Join(dir, "big.jsonl")
	os.WriteFile(p, []byte(b.String()), 0o644)
	start := cputime.Used()
	s, err := Load(p)
	if err != nil || len(s.Cases[0].Judgments) != 40000 {
		t.Fatalf("%v", err)
	}
	if d := cputime.Used() - start; d.Seconds() > 2 {
		t.Errorf("took %v of CPU", d)
	}
	long := filepath.Join(dir, "long.jsonl")
	os.WriteFile(long, []byte(jsonlHeader+`{"id": "a", "query": "`+strings.Repeat("x", nesting.MaxScalar+1)+`"}`+"\n"), 0o644)
	if _, err := Load(long); err == nil || err.Error() != long+":2:22: a string longer than 1 MiB (the limit)" {
		t.Errorf("long query: %v", err)
	}
}

// FuzzJSONL: on any input written as a JSONL suite, Stream and its Cases
// agree with LoadWith, and the streamed Check with the whole one.
func FuzzJSONL(f *testing.F) {
	for _, c := range jsonlCases() {
		f.Add([]byte(c.src))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src []byte) {
		p := filepath.Join(dir, "s.jsonl")
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
		sameStream(t, p)
		sameCheck(t, p, LoadOptions{})
	})
}

var _ = reflect.DeepEqual
var _ assay.Case

// TestCasesFileManifest: the manifest records a suite's JSONL cases file,
// and a change to it is a warning, whether the suite is streamed or not.
func TestCasesFileManifest(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"s.yaml":      "assay: 1\ncases: cases.jsonl\n",
		"cases.jsonl": `{"id": "a", "query": "q", "expect": {"answer_includes": ["x"]}}` + "\n",
	})
	p := filepath.Join(dir, "s.yaml")
	st, err := Stream(p, LoadOptions{})
	if err != nil || st.Suite.Cases != nil {
		t.Fatalf("not streamed: %v", err)
	}
	if _, err := WriteManifestStreamed(st); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ManifestName))
	if !strings.Contains(string(b), `"cases.jsonl"`) {
		t.Fatalf("the manifest does not record cases.jsonl:\n%s", b)
	}
	os.WriteFile(filepath.Join(dir, "cases.jsonl"), []byte(`{"id": "a", "query": "q", "expect": {"answer_includes": ["y"]}}`+"\n"), 0o644)
	st, _ = Stream(p, LoadOptions{})
	s, _ := Load(p)
	for name, warns := range map[string][]string{"streamed": CheckManifestStreamed(st), "whole": CheckManifest(s)} {
		if len(warns) != 1 || !strings.HasPrefix(warns[0], "cases.jsonl changed since") {
			t.Errorf("%s: manifest warnings %q, want cases.jsonl changed", name, warns)
		}
	}
}
