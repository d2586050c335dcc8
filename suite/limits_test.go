package suite

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay/internal/cputime"
	"github.com/assay-eval/assay/internal/nesting"
	"github.com/assay-eval/assay/internal/yamltokens"
)

// repoSuiteSources is the text of every native suite in the repository's
// testscripts, suite/testdata and examples.
func repoSuiteSources(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	scripts, _ := filepath.Glob("../testdata/script/*.txtar")
	if len(scripts) == 0 {
		t.Fatal("no testscripts found")
	}
	for _, script := range scripts {
		for name, data := range readTxtar(t, script) {
			if (strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".json")) && looksNative(data) {
				out[filepath.Base(script)+"/"+name] = data
			}
		}
	}
	for _, pat := range []string{"testdata/*/*.yaml", "testdata/*/*.json", "testdata/*/*/*.yaml", "testdata/*/*/*.json", "../examples/*/*.yaml"} {
		m, _ := filepath.Glob(pat)
		for _, p := range m {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if looksNative(data) {
				out[p] = data
			}
		}
	}
	return out
}

// TestFlowLargeMappingsSameParse: writing large block mappings as flow
// mappings before goccy/go-yaml parses them (yamltokens) changes nothing
// the decoder sees: the same suite, problems, lines and errors, with every
// mapping of the repository's suites and of the cases below rewritten.
func TestFlowLargeMappingsSameParse(t *testing.T) {
	srcs := repoSuiteSources(t)
	for i, s := range []string{
		"assay: 1\ncases:\n  - id: a\n    query: q\n    judgments:\n      d1: 3\n      \"d 2\": 1\n      'd3': 0\n    tags:\n      lang: en\n      n: 4\n    expect:\n      refusal: true\n      max_latency_ms: 5.5\n",
		"assay: 1\ndefaults:\n  k: 10\n  bogus: 1\ncases: []\n",
		"assay: 1\ncases:\n  - id: a\n    query: q\n    judgments:\n      d1: 1\n      d1: 2\n",
		"assay: 1\ncases:\n  - id: a\n    query: q\n    judgments:\n      d1: x\n      d2: 1\n",
		"assay: 1\ncases:\n  - id: a\n    query: q\n    judgments:\n      d1: 1 # c\n      d2: 1\n",
		"assay: 1\ncases:\n  - id: a\n    query: q\n    tags: &t\n      a: b\n      c: d\n  - id: b\n    query: q\n    tags: *t\n",
		"assay: 1\ncases:\n  - id: a\n    query: q\n    tags:\n      a: b\n        c: d\n",
		"assay: 1\ncases:\n  - id: a\n    query: q\n    tags:\n      a: b\n      c:\n        d: e\n",
		"---\nassay: 1\nname: x\n---\nassay: 1\n",
		"assay: 1\ncases:\n- id: a\n  query: q\n  tags: {a: b}\n",
		"assay: 1\ncases:\n  - id: a\n    query: \"multi\n      line\"\n    k: 3\n",
	} {
		srcs[fmt.Sprintf("case %d", i)] = []byte(s)
	}
	defer func(n int) { yamltokens.MinEntries = n }(yamltokens.MinEntries)
	rewritten := 0
	for name, src := range srcs {
		yamltokens.MinEntries = math.MaxInt
		want, werr := parseNative("f.yaml", src)
		yamltokens.MinEntries = 1
		got, gerr := parseNative("f.yaml", src)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the rewrite changes the parse:\nwithout: %v %s\nwith:    %v %s", name, werr, dumpParsed(want), gerr, dumpParsed(got))
		}
		rewritten++
	}
	if rewritten < 50 {
		t.Fatalf("only %d suites", rewritten)
	}
}

// TestLargeMappingParse: a case whose judgments mapping has 40,000 keys
// parses in every style, with every judgment (the whole
// parse of a block mapping took 12 s: goccy/go-yaml's parseMap is
// quadratic; of a one-line flow or JSON mapping 48-64 s: fixPlainColumns
// converted the line for every token).
func TestLargeMappingParse(t *testing.T) {
	for _, style := range []string{"block", "flow", "json"} {
		src := []byte(bigMappingSuite(40000, style))
		{
			t.Run(style, func(t *testing.T) {
				start := cputime.Used()
				p, err := parseNative("big.yaml", src)
				if err != nil {
					t.Fatal(err)
				}
				// 0.1-0.6 s; 4-64 s with any of the quadratic paths.
				// The race detector slows both about tenfold (2.07 s
				// seen in CI's race pass), so its bound is ten times.
				limit := 2 * time.Second
				if raceEnabled {
					limit *= 10
				}
				if d := cputime.Used() - start; d > limit {
					t.Fatalf("took %v of CPU (limit %v)", d, limit)
				}
				if j := p.suite.Cases[0].Judgments; len(j) != 40000 || j["d39999"] != 1 {
					t.Fatalf("%d judgments", len(j))
				}
			})
		}
	}
}

// TestDeepNestingError: text nested deeper than nesting.MaxDepth is
// refused with its position before goccy/go-yaml sees it, by every reader
// of YAML or JSON suite text.
func TestDeepNestingError(t *testing.T) {
	n := 60000
	for _, tc := range []struct {
		name, src string
		want      string
	}{
		{"flow yaml", deepSuite(n), "f.yaml:6:1008: nested more than 1000 levels deep (the limit)"},
		{"json", `{"assay": 1, "cases": [{"id": "q", "query": "q", "tags": ` + strings.Repeat("[", n), "f.yaml:1:1055: nested more than 1000 levels deep (the limit)"},
		{"block", "assay: 1\ncases:\n  - id: q\n    query: q\n    tags:\n" + blockDeep(6, 1200), "f.yaml:1003:1004: nested more than 1000 levels deep (the limit)"},
		{"header", "assay: 1\ndefaults: " + strings.Repeat("[", n) + "\ncases:\n  - id: q\n    query: q\n", "f.yaml:2:1010: nested more than 1000 levels deep (the limit)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, parse := range []func(string, []byte) (*parsed, error){parseNative} {
				_, err := parse("f.yaml", []byte(tc.src))
				var pe *PosError
				if err == nil || !errors.As(err, &pe) || err.Error() != tc.want {
					t.Fatalf("got %v, want %s", err, tc.want)
				}
			}
		})
	}
}

// blockDeep is n block mappings nested by indentation, the first at
// column from+1.
func blockDeep(from, n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", from+i) + "k:\n")
	}
	return b.String()
}

// TestLongScalarError: a query or comment longer than nesting.MaxScalar
// is refused with its position by both parses.
func TestLongScalarError(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want string
	}{
		{"query", longQuerySuite(nesting.MaxScalar+1, false), "f.yaml:5:12: a scalar longer than 1 MiB (the limit)"},
		{"comment", longQuerySuite(nesting.MaxScalar+1, true), "f.yaml:5:5: a comment longer than 1 MiB (the limit)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, parse := range []func(string, []byte) (*parsed, error){parseNative} {
				_, err := parse("f.yaml", []byte(tc.src))
				if err == nil || err.Error() != tc.want {
					t.Fatalf("got %v, want %s", err, tc.want)
				}
			}
		})
	}
	// at the limit it is read
	p, err := parseNative("f.yaml", []byte(longQuerySuite(nesting.MaxScalar, false)))
	if err != nil || len(p.suite.Cases[0].Query) != nesting.MaxScalar {
		t.Fatalf("a query at the limit: %v", err)
	}
}

// TestQueryWordsSameAsContainsToken: the indexed search for judged ids in
// a query finds exactly what containsToken finds.
func TestQueryWordsSameAsContainsToken(t *testing.T) {
	queries := []string{
		"see d17 and doc-5.md, not xd18 or d19x; Über-Doc 4983 (2012) a/b/c.md",
		"d1d1 d1 -d2- .md md. 12 2012 ÄÖ äö -- ++",
		"", "d17", "doc-5.md", "xd17", "d17.", ".d17",
	}
	ids := []string{"d17", "doc-5.md", "d18", "xd18", "d19", "über-doc", "4983", "12", "2012", "a/b/c.md", "b/c", "d1", "-d2-", ".md", "md.", "--", "++", "äö", "ÄÖ", "d17.", ".d17", "5.md", "doc"}
	for _, q := range queries {
		judged := map[string]int{}
		for _, id := range ids {
			judged[id] = 1
		}
		w := newQueryWords(strings.ToLower(q), judged)
		for _, id := range ids {
			if got, want := w.containsToken(strings.ToLower(id)), containsToken(q, id); got != want {
				t.Errorf("query %q, id %q: indexed %v, containsToken %v", q, id, got, want)
			}
		}
	}
}

// TestLintManyJudgmentsLongQuery: lint of a case with 20,000 judgments and
// a 1 MB query is linear: the leakage check lowered the query once per
// judged id (20 GB of allocations) and searched it once per id.
func TestLintManyJudgmentsLongQuery(t *testing.T) {
	var b strings.Builder
	b.WriteString("assay: 1\ncorpus: [{id: d0, text: x}]\ncases:\n  - id: q\n    query: see D17 and doc-5.md ")
	b.WriteString(strings.Repeat("word ", 200000))
	b.WriteString("\n    expect: {answer_includes: [Word]}\n    judgments:\n")
	for i := range 20000 {
		fmt.Fprintf(&b, "      d%d: 1\n", i)
	}
	b.WriteString("      doc-5.md: 2\n")
	p := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	start := cputime.Used()
	fs, err := Lint(p, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cputime.Used() - start; d > 3*time.Second {
		t.Fatalf("took %v of CPU", d)
	}
	var leaks []string
	for _, f := range fs {
		if strings.Contains(f.Message, "leakage") {
			leaks = append(leaks, f.Message)
		}
	}
	want := []string{
		`case "q": leakage: the expected answer "Word" appears in the query`,
		`case "q": leakage: the judged document id "d17" appears in the query`,
		`case "q": leakage: the judged document id "doc-5.md" appears in the query`,
	}
	if !reflect.DeepEqual(leaks, want) {
		t.Fatalf("leakage findings:\n%s\nwant:\n%s", strings.Join(leaks, "\n"), strings.Join(want, "\n"))
	}
}

// TestForeignFormatsDeep: the kebab (YAML), GNO and Knowlex (JSON) readers
// refuse text nested deeper than 1000 levels with its position too.
func TestForeignFormatsDeep(t *testing.T) {
	deep := strings.Repeat("[", 60000)
	for _, tc := range []struct {
		name string
		load func() error
		want string
	}{
		{"kebab", func() error {
			_, err := loadKebab("k.yaml", []byte("- id: q1\n  query: q\n  must_contain: "+deep+"\n"))
			return err
		}, "k.yaml:3:1015: nested more than 1000 levels deep (the limit)"},
		{"gno", func() error {
			_, err := loadGNO("queries.json", []byte(`[{"id": "q1", "query": "q", "relevantDocs": `+deep), false)
			return err
		}, "queries.json:1:1043: nested more than 1000 levels deep (the limit)"},
		{"knowlex", func() error {
			_, err := loadKnowlex("golden_qa.json", []byte(`{"version": 1, "questions": `+deep))
			return err
		}, "golden_qa.json:1:1028: nested more than 1000 levels deep (the limit)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.load(); err == nil || err.Error() != tc.want {
				t.Fatalf("got %v, want %s", err, tc.want)
			}
		})
	}
}
