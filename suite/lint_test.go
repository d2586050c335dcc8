package suite

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay/internal/diag"
)

var update = flag.Bool("update", false, "rewrite golden files")

// nativeGolden compares got with testdata/<name>.golden, or rewrites it with -update.
func nativeGolden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (go test -update rewrites it):\n%s", name, p, nativeLineDiff(string(want), got))
	}
}

// nativeLineDiff shows the lines only in want (-) and only in got (+).
func nativeLineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	inW, inG := map[string]int{}, map[string]int{}
	for _, l := range w {
		inW[l]++
	}
	for _, l := range g {
		inG[l]++
	}
	var b strings.Builder
	for _, l := range w {
		if inG[l] == 0 {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range g {
		if inW[l] == 0 {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}

func lintText(t *testing.T, path string) string {
	t.Helper()
	fs, err := Lint(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String() + "\n")
	}
	return b.String()
}

func TestLintNoCorpus(t *testing.T) {
	t.Chdir(filepath.Join("testdata", "lint"))
	got := lintText(t, "nocorpus.yaml")
	want := "nocorpus.yaml:2: note: no corpus: document references of 2 case(s) are not checked\n"
	if got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
}

func TestLintCleanSuite(t *testing.T) {
	t.Chdir(filepath.Join("testdata", "kb"))
	if got := lintText(t, "suite.yaml"); got != "" {
		t.Errorf("findings on a clean suite:\n%s", got)
	}
}

func TestLintLoadErrorIsError(t *testing.T) {
	dir := writeFiles(t, map[string]string{"s.yaml": "assay: 1\ncases:\n  - id: a\n    qeury: x\n"})
	t.Chdir(dir)
	fs, err := Lint("s.yaml", LoadOptions{})
	if err == nil || fs != nil {
		t.Fatalf("Lint = %v, %v; want no findings and the load error", fs, err)
	}
	if want := `s.yaml:4:5: unknown field "qeury" (did you mean "query"?)`; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

func TestContainsToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s, tok string
		want   bool
	}{
		{"summarise billing.md please", "billing.md", true},
		{"BILLING.MD?", "billing.md", true},
		{"in 2012 we", "12", false},
		{"doc 12, please", "12", true},
		{"prebilling.md", "billing.md", false},
		{"x", "", false},
	}
	for _, tt := range tests {
		if got := containsToken(tt.s, tt.tok); got != tt.want {
			t.Errorf("containsToken(%q, %q) = %v, want %v", tt.s, tt.tok, got, tt.want)
		}
	}
}

func TestSuggestName(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"answer_include", "answer_includes"},
		{"nmae", "name"},
		{"Query", "query"},
		{"judgements", "judgments"},
		{"expected", "expect"},
		{"x", "k"}, // one edit away from a one-letter field
		{"xyzzy", ""},
		{"zzzzzz", ""},
	}
	known := append(append(append([]string{}, suiteFields...), caseFields...), expectFields...)
	for _, tt := range tests {
		if got := diag.Nearest(tt.in, known); got != tt.want {
			t.Errorf("suggestName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A title or path that names two documents of the corpus is ambiguous in
// retrieves, cites and cites_any: lint warns and names the documents. An
// id, or a title only one document has, is not.
func TestLintAmbiguousTitles(t *testing.T) {
	dir := writeFiles(t, map[string]string{"s.yaml": `assay: 1
name: amb
corpus:
  - {id: faq-2023, title: Pricing FAQ, text: old prices}
  - {id: faq-2025, title: Pricing FAQ, text: new prices}
  - {id: setup, title: Setup, text: install it}
  - {id: guide, title: setup, text: a guide}
cases:
  - id: q1
    query: what does it cost
    expect:
      retrieves: [Pricing FAQ]
      cites: [faq-2025, Pricing FAQ]
      cites_any: [Pricing FAQ, Setup]
  - id: q2
    query: how do I install it
    expect:
      cites: [setup]
`})
	t.Chdir(dir)
	got := lintText(t, "s.yaml")
	want := `s.yaml:12: warning: case "q1": retrieves: "Pricing FAQ" names 2 documents of the corpus ("faq-2023", "faq-2025"): it passes for any of them; use the document's id
s.yaml:13: warning: case "q1": cites: "Pricing FAQ" names 2 documents of the corpus ("faq-2023", "faq-2025"): it passes for any of them; use the document's id
s.yaml:14: warning: case "q1": cites_any: "Pricing FAQ" names 2 documents of the corpus ("faq-2023", "faq-2025"): it passes for any of them; use the document's id
s.yaml:18: warning: case "q2": cites: "setup" names 2 documents of the corpus ("guide", "setup"): it passes for any of them; use the document's id
`
	if got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
}

// A suite gate whose scope no case carries is a warning that suggests the
// nearest tag (a run fails it); a variant scope is not checked.
