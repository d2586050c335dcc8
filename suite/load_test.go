package suite

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// TestLoadKB pins the fully resolved form of a suite that uses every part
// of the format (golden file: testdata/TestLoadKB.golden).
func TestLoadKB(t *testing.T) {
	wd, _ := os.Getwd()
	t.Chdir(filepath.Join("testdata", "kb"))
	s, err := Load("suite.yaml")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(wd)
	if s.Path != "suite.yaml" || s.Dir != "." || s.Format != "native" || s.CorpusSource != "docs" {
		t.Errorf("Path %q Dir %q Format %q CorpusSource %q", s.Path, s.Dir, s.Format, s.CorpusSource)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	for _, c := range s.Cases {
		b.WriteString(c.ID + " " + c.Source + " " + c.Expect.JSONSchemaPath + "\n")
	}
	b.WriteString(Fingerprint(s) + "\n")
	nativeGolden(t, "TestLoadKB", b.String())
}

// The same suite written in JSON loads to the same cases and fingerprint.
func TestLoadJSONMatchesYAML(t *testing.T) {
	t.Chdir(filepath.Join("testdata", "kb"))
	y, err := Load("suite.yaml")
	if err != nil {
		t.Fatal(err)
	}
	j, err := Load("suite.json")
	if err != nil {
		t.Fatal(err)
	}
	if Fingerprint(y) != Fingerprint(j) {
		t.Errorf("fingerprints differ: yaml %s json %s", Fingerprint(y), Fingerprint(j))
	}
	if j.Name != "kb-json" || j.Cases[1].Source != "suite.json:13" {
		t.Errorf("json name %q, second case at %q", j.Name, j.Cases[1].Source)
	}
}

func TestLoadDefaults(t *testing.T) {
	dir := writeFiles(t, map[string]string{"golden-set.yml": "assay: 1\ncases:\n  - {id: a, query: q, expect: {answer_includes: x}}\n"})
	t.Chdir(dir)
	s, err := Load("golden-set.yml")
	if err != nil {
		t.Fatal(err)
	}
	want := assay.Suite{
		Name: "golden-set", Path: "golden-set.yml", Dir: ".", Format: "native",
		Defaults: assay.Defaults{K: assay.DefaultK},
		Metrics:  assay.DefaultMetrics,
		Gain:     assay.GainLinear,
		Cases: []assay.Case{{ID: "a", Query: "q", Source: "golden-set.yml:3",
			Expect: assay.Expect{AnswerIncludes: []string{"x"}}}},
	}
	if !reflect.DeepEqual(*s, want) {
		t.Errorf("got  %+v\nwant %+v", *s, want)
	}
}

func TestLoadFeatures(t *testing.T) {
	src := `assay: 1
corpus:
  - {id: b, title: Billing, text: The free tier allows three projects.}
  - id: a
    text: Tokens are hashed.
    metadata: {year: 2024}
gates: |
  pass_rate >= 0.8

  # a comment line
  recall@10 >= 0.5
base: &base
cases:
  - id: 42
    query: "  padded  "
    relevant: [a, b]
    judgments: {b: 3}
    tags: {difficulty: 2, adversarial: true, lang: ~}
    expect:
      refusal: false
      answer_includes: sha-256
`
	dir := writeFiles(t, map[string]string{"s.yaml": src})
	t.Chdir(dir)
	_, err := Load("s.yaml")
	if err == nil || err.Error() != `s.yaml:12:1: unknown field "base" (did you mean "name"?)` {
		t.Fatalf("error %v", err)
	}
	os.WriteFile("s.yaml", []byte(strings.Replace(src, "base: &base\n", "", 1)), 0o644)
	s, err := Load("s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.CorpusSource != "inline" || len(s.Corpus) != 2 || s.Corpus[0].ID != "a" || s.Corpus[0].Meta["year"] != "2024" {
		t.Errorf("inline corpus %q %+v", s.CorpusSource, s.Corpus)
	}
	wantGates := []assay.Gate{{Expr: "pass_rate >= 0.8", Source: "s.yaml:8"}, {Expr: "recall@10 >= 0.5", Source: "s.yaml:11"}}
	if !reflect.DeepEqual(s.Gates, wantGates) {
		t.Errorf("gates %+v, want %+v", s.Gates, wantGates)
	}
	c := s.Cases[0]
	if c.ID != "42" || c.Query != "  padded  " {
		t.Errorf("id %q query %q", c.ID, c.Query)
	}
	if !reflect.DeepEqual(c.Judgments, map[string]int{"a": 1, "b": 3}) {
		t.Errorf("judgments %v: relevant merges in with grade 1 and an explicit grade wins", c.Judgments)
	}
	if !reflect.DeepEqual(c.Tags, map[string]string{"difficulty": "2", "adversarial": "true", "lang": ""}) {
		t.Errorf("tags %v", c.Tags)
	}
	if c.Expect.Refusal == nil || *c.Expect.Refusal || !reflect.DeepEqual(c.Expect.AnswerIncludes, []string{"sha-256"}) {
		t.Errorf("expect %+v", c.Expect)
	}
}

func TestLoadAnchorsAndAliases(t *testing.T) {
	dir := writeFiles(t, map[string]string{"s.yaml": `assay: 1
cases:
  - id: a
    query: q
    expect: &common
      answer_excludes: [md5]
      max_latency_ms: 1500.5
  - id: b
    query: r
    expect: *common
  - id: c
    query: s
    expect: *missing
`})
	t.Chdir(dir)
	_, err := Load("s.yaml")
	if err == nil || !strings.HasPrefix(err.Error(), "s.yaml:13:13: ") {
		t.Fatalf("error %v, want the unknown alias at 13:13", err)
	}
	os.WriteFile("s.yaml", []byte("assay: 1\ncases:\n  - id: a\n    query: q\n    expect: &common\n      answer_excludes: [md5]\n      max_latency_ms: 1500.5\n  - id: b\n    query: r\n    expect: *common\n"), 0o644)
	s, err := Load("s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Cases[0].Expect, s.Cases[1].Expect) || *s.Cases[1].Expect.MaxLatencyMs != 1500.5 {
		t.Errorf("alias not followed: %+v", s.Cases[1].Expect)
	}
}

func TestFingerprintInvariants(t *testing.T) {
	t.Parallel()
	base := "assay: 1\nname: one\ncases:\n  - {id: a, query: q, relevant: [x]}\n  - {id: b, query: r, relevant: [y]}\n"
	fp := func(src string) string {
		t.Helper()
		dir := writeFiles(t, map[string]string{"s.yaml": src})
		s, err := Load(filepath.Join(dir, "s.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		return Fingerprint(s)
	}
	ref := fp(base)
	same := map[string]string{
		"renamed":              strings.Replace(base, "name: one", "name: two", 1),
		"comment added":        "# golden set\n" + base,
		"cases reordered":      "assay: 1\nname: one\ncases:\n  - {id: b, query: r, relevant: [y]}\n  - {id: a, query: q, relevant: [x]}\n",
		"defaults spelled out": strings.Replace(base, "name: one", "name: one\ndefaults: {k: 10}\ngain: linear", 1),
	}
	for name, src := range same {
		if fp(src) != ref {
			t.Errorf("%s: fingerprint changed", name)
		}
	}
	differ := map[string]string{
		"query edited":    strings.Replace(base, "query: q", "query: q2", 1),
		"judgment graded": strings.Replace(base, "relevant: [x]", "judgments: {x: 2}", 1),
		"k changed":       strings.Replace(base, "name: one", "name: one\ndefaults: {k: 5}", 1),
		"gate added":      strings.Replace(base, "name: one", "name: one\ngates: [pass_rate >= 0.5]", 1),
		"corpus added":    strings.Replace(base, "name: one", "name: one\ncorpus: [{id: x, text: hi}]", 1),
	}
	for name, src := range differ {
		if fp(src) == ref {
			t.Errorf("%s: fingerprint unchanged", name)
		}
	}
}

func TestLoadMergeKeys(t *testing.T) {
	dir := writeFiles(t, map[string]string{"s.yaml": `assay: 1
cases:
  - id: a
    query: q
    expect: &common
      answer_excludes: [md5]
      refusal: false
  - id: b
    query: r
    expect:
      <<: *common
      refusal: true
  - id: c
    query: s
    expect:
      <<: [*common, {answer_excludes: [sha1], no_citations: true}]
`})
	t.Chdir(dir)
	s, err := Load("s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, c := s.Cases[1].Expect, s.Cases[2].Expect
	if !reflect.DeepEqual(b.AnswerExcludes, []string{"md5"}) || b.Refusal == nil || !*b.Refusal {
		t.Errorf("case b: %+v, want md5 merged in and the explicit refusal kept", b)
	}
	if !reflect.DeepEqual(c.AnswerExcludes, []string{"md5"}) || !c.NoCitations {
		t.Errorf("case c: %+v, want the first merge to win and the second to add no_citations", c)
	}
	os.WriteFile("t.yaml", []byte("assay: 1\ncases:\n  - id: a\n    query: q\n    expect:\n      <<: {answer_exclude: [x]}\n"), 0o644)
	if _, err := Load("t.yaml"); err == nil || err.Error() != `t.yaml:6:12: unknown field "answer_exclude" (did you mean "answer_excludes"?)` {
		t.Errorf("merged unknown field: %v", err)
	}
}

func TestLoadByteOrderMark(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"s.yaml": "\ufeffassay: 1\ncases:\n  - {id: a, query: q, expect: {answer_includes: x}}\n"})
	if _, err := Load(filepath.Join(dir, "s.yaml")); err != nil {
		t.Errorf("a suite starting with a byte order mark: %v", err)
	}
}
