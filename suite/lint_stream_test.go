package suite

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/largetest"
)

// sameCheck runs Check on the suite at path streamed (when Stream streams
// it) and loaded whole: the same error, or the same findings, number of
// cases, fingerprint, suite and json_schema files. It returns whether the
// first was streamed.
func sameCheck(t *testing.T, path string, o LoadOptions) bool {
	t.Helper()
	defer func() { streamLint = true }()
	streamLint = false
	wst, wf, werr := Check(path, o)
	streamLint = true
	st, f, err := Check(path, o)
	if werr != nil || err != nil {
		if fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Errorf("%s: streamed Check error\n  %v\nwhole\n  %v", path, err, werr)
		}
		return false
	}
	if !reflect.DeepEqual(f, wf) {
		t.Errorf("%s: findings differ\nstreamed:\n%s\nwhole:\n%s", path, findingsText(f), findingsText(wf))
	}
	streamed := st.Suite.Cases == nil && wst.Suite.Cases != nil
	header := *wst.Suite
	header.Cases = nil
	if streamed && !reflect.DeepEqual(*st.Suite, header) {
		t.Errorf("%s: streamed Check's suite\n  %+v\nwhole\n  %+v", path, *st.Suite, header)
	}
	if st.N != wst.N || st.N != len(wst.Suite.Cases) {
		t.Errorf("%s: N %d, whole %d (%d cases)", path, st.N, wst.N, len(wst.Suite.Cases))
	}
	if st.Fingerprint != wst.Fingerprint {
		t.Errorf("%s: fingerprint %s, whole %s", path, st.Fingerprint, wst.Fingerprint)
	}
	if a, b := st.SchemaPaths(), wst.SchemaPaths(); !reflect.DeepEqual(a, b) {
		t.Errorf("%s: json_schema files %q, whole %q", path, a, b)
	}
	return streamed
}

func findingsText(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("  " + f.String() + "\n")
	}
	return b.String()
}

// lintRich is a native suite Stream streams that has a finding of every
// kind lint reports on a streamed suite (and a parse warning).
var lintRich = map[string]string{
	"corpus.jsonl": `{"id": "d1", "title": "Security model", "text": "sha-256"}` + "\n" + `{"id": "d2", "path": "billing.md", "text": "b"}` + "\n",
	"s.json":       `{"type": "object"}`,
	"suite.yaml": `assay: 1
corpus: corpus.jsonl
tools: [search, get]
gates:
  - pass_rate >= 0.5
  - pass_rat >= 0.8
cases:
  - id: nothing
    query: A case with nothing to check
  - id: blank
    query: "   "
    relevant: [d1]
  - id: ghost
    query: Where is the roadmap?
    judgments: {roadmap.md: 2, archive.md: 0}
    expect:
      retrieves: [roadmap.md]
      cites: [Roadmap]
      cites_any: [d1, gone.md]
  - id: ghost-all
    query: q
    expect:
      cites_any: [gone.md]
  - id: tools
    query: Delete the old page
    surface: admin
    expect:
      calls_tool: [search, delete_doc]
      never_calls: [search, drop]
  - id: contradict
    query: Cite nothing
    expect:
      no_citations: true
      cites: [d1]
      answer_includes: [Sha-256 hash]
      answer_excludes: [sha-256]
      json_schema: s.json
  - id: many
    query: many
    k: 1
    expect:
      retrieves: [d1, d2]
  - id: leak
    query: is the answer sha-256 in d1?
    relevant: [d1]
    judgments: {d1: 0}
    expect:
      answer_includes: [sha-256]
      answer_includes_any: [SHA-256]
  - id: g1
    query: first of a group
    tags: {group: x}
    relevant: [d1]
  - id: g2
    query: second of a group
    tags: {group: x}
    relevant: [d2]
  - id: g3
    query: third of a group
    tags: {group: x}
    judgments: {d1: 1}
`,
}

// fakeGates stands for package suite/lint's gate check: one note per gate,
// naming the tag keys the cases carry.
func fakeGates(gates []assay.Gate, file string, tags TagValues, _ []string) []Finding {
	var out []Finding
	for _, g := range gates {
		src := g.Source
		if src == "" {
			src = file
		}
		keys := slices.Sorted(maps.Keys(tags.Values))
		out = append(out, Finding{Source: src, Severity: SeverityNote, Message: fmt.Sprintf("gate %q seen with tags %v", g.Expr, keys)})
	}
	return out
}

// TestCheckStreamedRich: on a suite with a finding of every kind, the
// streamed Check streams and says what the whole load says, with and
// without a target file's surfaces.
func TestCheckStreamedRich(t *testing.T) {
	dir := writeFiles(t, lintRich)
	_, p, ok := jsonlForms(t, dir, "rich", []byte(lintRich["suite.yaml"]))
	if !ok {
		t.Fatal("the rich suite is not written with a cases file")
	}
	for _, o := range []LoadOptions{
		{},
		{LintGates: fakeGates},
		{Surfaces: map[string][]string{"": {"search"}, "admin": {"get", "delete_doc"}}},
		{Surfaces: map[string][]string{"": nil}},
		{Surfaces: map[string][]string{}},
	} {
		if !sameCheck(t, p, o) {
			t.Errorf("not streamed (surfaces %v)", o.Surfaces)
		}
	}
	_, fs, _ := Check(p, LoadOptions{LintGates: fakeGates})
	kinds := map[string]bool{}
	for _, f := range fs {
		kinds[f.Severity] = true
	}
	if len(fs) < 15 || !kinds[SeverityError] || !kinds[SeverityWarning] {
		t.Errorf("the rich suite has only these findings:\n%s", findingsText(fs))
	}
	for _, want := range []string{"listed in relevant but judged 0", "group \"x\" expects documents", "leakage", "gate \"pass_rat >= 0.8\" seen with tags"} {
		if !strings.Contains(findingsText(fs), want) {
			t.Errorf("no finding says %q:\n%s", want, findingsText(fs))
		}
	}

	// Without a corpus: the note on unchecked references.
	nc := writeFiles(t, map[string]string{"s.yaml": "assay: 1\n\ncases: c.jsonl\n", "c.jsonl": `{"id": "a", "query": "q", "relevant": ["x"]}` + "\n" + `{"id": "b", "query": "q", "expect": {"cites": ["y"]}}` + "\n" + `{"id": "c", "query": "q", "expect": {"answer_includes": ["z"]}}` + "\n"})
	if !sameCheck(t, filepath.Join(nc, "s.yaml"), LoadOptions{}) {
		t.Error("the suite without a corpus was not streamed")
	}
}

// TestCheckStreamedManifest: the manifest warnings of a streamed Check are
// the whole load's, and WriteManifestStreamed writes what WriteManifest
// writes.
func TestCheckStreamedManifest(t *testing.T) {
	dir := writeFiles(t, lintRich)
	p, _, ok := jsonlForms(t, dir, "rich", []byte(lintRich["suite.yaml"]))
	if !ok {
		t.Fatal("the rich suite is not written as JSONL")
	}
	mp := filepath.Join(dir, ManifestName)
	st, _, err := Check(p, LoadOptions{})
	if err != nil || st.Suite.Cases != nil {
		t.Fatalf("not streamed: %v", err)
	}
	if _, err := WriteManifestStreamed(st); err != nil {
		t.Fatal(err)
	}
	streamed, _ := os.ReadFile(mp)
	os.Remove(mp)
	s, _ := loadForTest(t, p)
	if _, err := WriteManifest(s.Suite); err != nil {
		t.Fatal(err)
	}
	whole, _ := os.ReadFile(mp)
	if !bytes.Equal(streamed, whole) {
		t.Errorf("WriteManifestStreamed wrote\n%s\nWriteManifest\n%s", streamed, whole)
	}
	os.WriteFile(filepath.Join(dir, "s.json"), []byte(`{"type": "array"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "corpus.jsonl"), []byte(lintRich["corpus.jsonl"]+`{"id": "d3", "text": "c"}`+"\n"), 0o644)
	if !sameCheck(t, p, LoadOptions{}) {
		t.Error("not streamed after the edits")
	}
	_, fs, _ := Check(p, LoadOptions{})
	if n := strings.Count(findingsText(fs), "changed since "+ManifestName); n != 2 {
		t.Errorf("%d findings of changed files, want 2:\n%s", n, findingsText(fs))
	}
}

// loadForTest is the suite Check loads whole (it may have structural
// faults).
func loadForTest(t *testing.T, path string) (*Streamed, []Finding) {
	t.Helper()
	defer func() { streamLint = true }()
	streamLint = false
	st, fs, err := Check(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return st, fs
}

// TestCheckStreamedFixtures compares the streamed Check with the whole
// load on every suite of the repository: the testscripts' archives (lint's
// and every other's), suite/testdata, the examples, the seed fixtures and
// the lean tests' generated suites.
func TestCheckStreamedFixtures(t *testing.T) {
	n, streamed := 0, 0
	check := func(p string) {
		n++
		if sameCheck(t, p, LoadOptions{}) {
			streamed++
		}
	}
	for _, p := range fixtureSuites(t) {
		check(p)
	}
	dir := t.TempDir()
	for _, c := range jsonlCases() {
		p := filepath.Join(dir, c.name+".jsonl")
		if err := os.WriteFile(p, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		check(p)
	}
	t.Logf("%d suites, %d linted streamed", n, streamed)
}

// TestCheckStreamedFallsBack: a suite with a structural fault (here a
// duplicate id, which Stream finds only after its pass) is linted whole,
// its faults reported as error findings.
func TestCheckStreamedFallsBack(t *testing.T) {
	dir := writeFiles(t, map[string]string{"s.jsonl": `{"assay": 1}` + "\n" + `{"id": "a", "query": "q", "relevant": ["x"]}` + "\n" + `{"id": "a", "query": "r"}` + "\n"})
	p := filepath.Join(dir, "s.jsonl")
	if sameCheck(t, p, LoadOptions{}) {
		t.Error("a suite with a duplicate id was linted streamed")
	}
	st, fs, err := Check(p, LoadOptions{})
	if err != nil || st.N != 2 || len(st.Suite.Cases) != 2 || !strings.Contains(findingsText(fs), `error: duplicate case id "a"`) {
		t.Errorf("Check = %d cases, %v\n%s", st.N, err, findingsText(fs))
	}
}

// liveAfterLint returns the live heap, after a collection, once the
// streamed Check of the suite at path (n cases) is done with its last case.
func liveAfterLint(t *testing.T, path string, n int) uint64 {
	t.Helper()
	var live uint64
	var ln *linter
	var out []Finding
	i := 0
	st, _ := streamNativeWith(path, kindOf(path), func(s *assay.Suite, p *parsed) caseFunc {
		ln = newLinter(path, s, LoadOptions{})
		return func(c assay.Case, lines fieldLines, warns []problem) error {
			out = appendWarnFindings(out, path, warns)
			ln.lintCase(c, lines)
			i++
			if i == n {
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				live = ms.HeapInuse
			}
			return nil
		}
	})
	if st == nil || st.N != n || i != n {
		t.Fatalf("not streamed (%d cases linted)", i)
	}
	if fs := append(out, ln.findings(nil)...); len(fs) != 0 {
		t.Fatalf("%d findings, want none", len(fs))
	}
	return live
}

// TestCheckStreamedMemory: the heap lint holds while it checks a streamed
// suite does not grow with the number of cases (but for the 8-byte id hash
// a case that Stream's validating pass keeps to find duplicates: 0.7 MiB
// more for 90,000 more cases; holding the cases would add about 40 MiB).
func TestCheckStreamedMemory(t *testing.T) {
	largetest.Skip(t, "writes and lints a 100,000-case suite")
	if raceEnabled {
		t.Skip("writes and lints a 100,000-case suite (not under -race)")
	}
	small := largeSuite(t, 10000, "jsonl")
	large := largeSuite(t, 100000, "jsonl")
	for _, p := range []string{small, large} {
		if _, fs, err := Check(p, LoadOptions{}); err != nil || len(fs) != 0 {
			t.Fatalf("Check: %v, %d findings", err, len(fs))
		}
	}
	runtime.GC()
	s := liveAfterLint(t, small, 10000)
	l := liveAfterLint(t, large, 100000)
	t.Logf("live heap at the last case: %d KiB for 10k cases, %d KiB for 100k", s>>10, l>>10)
	if l > s+4<<20 {
		t.Errorf("live heap grows with the cases: %d KiB for 10k, %d KiB for 100k", s>>10, l>>10)
	}
}

// FuzzCheckStreamed: on any input, the streamed Check says what the whole
// load's says (the same error, or the same findings and suite).
func FuzzCheckStreamed(f *testing.F) {
	for _, c := range jsonlCases() {
		f.Add([]byte(c.src))
	}
	f.Add([]byte(lintRich["suite.yaml"]))
	for _, p := range []string{"testdata/kb/suite.yaml", "testdata/kb/suite.json", "testdata/lint/findings.yaml", "testdata/lint/nocorpus.yaml"} {
		if b, err := os.ReadFile(filepath.FromSlash(p)); err == nil {
			f.Add(b)
		}
	}
	dir := f.TempDir()
	os.WriteFile(filepath.Join(dir, "corpus.jsonl"), []byte(lintRich["corpus.jsonl"]), 0o644)
	os.WriteFile(filepath.Join(dir, "s.json"), []byte(lintRich["s.json"]), 0o644)
	f.Fuzz(func(t *testing.T, src []byte) {
		name := "s.yaml"
		if t := bytes.TrimLeft(src, " \n"); len(t) > 0 && t[0] == '{' {
			name = "s.json"
		}
		p := filepath.Join(dir, "suite-"+name)
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
		sameCheck(t, p, LoadOptions{})
		p = filepath.Join(dir, "suite.jsonl")
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
		sameCheck(t, p, LoadOptions{})
	})
}
