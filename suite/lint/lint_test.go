package lint

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/suite"
)

var update = flag.Bool("update", false, "rewrite golden files")

func lintText(t *testing.T, path string) string {
	t.Helper()
	fs, err := Lint(path, suite.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String() + "\n")
	}
	return b.String()
}

// TestLintFindings: the findings on suite's lint fixture, a finding of
// every kind, gates included, in source order.
func TestLintFindings(t *testing.T) {
	golden, err := filepath.Abs(filepath.Join("testdata", "TestLintFindings.golden"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join("..", "testdata", "lint"))
	got := lintText(t, "findings.yaml")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("findings differ from %s (go test -update rewrites it):\ngot:\n%swant:\n%s", golden, got, want)
	}
}

// TestLintGateScopeNoCase: a scope no case carries is a warning naming the
// nearest tag; a scope a case carries and a variant scope are not.
func TestLintGateScopeNoCase(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(`assay: 1
name: sc
gates:
  - "no_new_failures [categroy=security]"
  - "[category=security] pass_rate >= 0.5"
  - "[variant=fast] p95_latency_ms <= 100"
cases:
  - id: q1
    query: one
    tags: {category: security}
    expect: {answer_includes: [x]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	got := lintText(t, "s.yaml")
	want := `s.yaml:4: warning: gate "no_new_failures [categroy=security]": scope [categroy=security] matches no case (did you mean [category=security]?): it fails every run unless categroy is a variant key of the target
`
	if got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
}

// TestGatesManyTagValues: a key with more values than lint keeps is not
// checked (its values are not all known), and a gate that does not parse
// is an error placed at the suite file when it records no source.
func TestGatesManyTagValues(t *testing.T) {
	gates := []assay.Gate{{Expr: "[id=zz] pass_rate >= 0.5", Source: "s.yaml:3"}, {Expr: "pass_rat >= 1"}}
	tags := suite.TagValues{Values: map[string]map[string]bool{}, Many: map[string]bool{"id": true}}
	fs := Gates(gates, "s.yaml", tags, nil)
	if len(fs) != 1 || fs[0].Source != "s.yaml" || fs[0].Severity != suite.SeverityError || !strings.Contains(fs[0].Message, `unknown metric "pass_rat"`) {
		t.Fatalf("findings: %+v", fs)
	}
	tags.Many = nil
	if fs := Gates(gates[:1], "s.yaml", tags, nil); len(fs) != 1 || fs[0].Source != "s.yaml:3" || fs[0].Severity != suite.SeverityWarning {
		t.Fatalf("with the key's values known: %+v", fs)
	}
}
