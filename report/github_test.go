package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

func TestRunGitHubAnnotatesFailuresOnTheirLines(t *testing.T) {
	t.Parallel()
	r := ciRun()
	r.Gates = []assay.GateResult{
		{Expr: "pass_rate >= 0.3", Pass: true, Value: ptr(0.375), Bound: 0.3, Op: ">=", Source: "kb.yaml:3"},
		{Expr: "p95_latency_ms <= 1000", Pass: false, Value: ptr(2300.0), Bound: 1000, Op: "<=", Source: "kb.yaml:4"},
	}
	r.Cases[3].Source = "evals/k,b:x.yaml:12" // a path with the separators escaped
	var b bytes.Buffer
	if err := RunGitHub(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"::error file=kb.yaml,line=4,title=assay gate p95_latency_ms <= 1000::value 2300, bound <= 1000\n",
		"::warning file=evals/k%2Cb%3Ax.yaml,line=12,title=assay case q2 (trial 1)::cites: unsurfaced docs/a&b.md\n",
		"::warning title=assay case q4 (trial 1)::timeout: no observation after 30s\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("annotations lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "pass_rate >= 0.3") || strings.Contains(out, "case q1") || strings.Contains(out, "case q5") {
		t.Errorf("a passing gate, a passing case or an ungraded case is annotated:\n%s", out)
	}
}

func TestRunGitHubCapsCaseAnnotations(t *testing.T) {
	t.Parallel()
	r := &assay.Run{Suite: assay.SuiteRef{Name: "kb"}, Status: assay.StatusIncomplete}
	no := false
	for i := range MaxCaseAnnotations + 5 {
		r.Cases = append(r.Cases, assay.CaseResult{ID: fmt.Sprintf("c%02d", i), Pass: &no,
			Checks: []assay.Check{{Kind: "answer_includes", Detail: "missing \"x\"\nline two"}}})
	}
	var b bytes.Buffer
	if err := RunGitHub(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "::warning "); n != MaxCaseAnnotations {
		t.Errorf("%d case annotations, want %d:\n%s", n, MaxCaseAnnotations, out)
	}
	if !strings.Contains(out, "::notice title=assay kb::5 more failing cases are not annotated") {
		t.Errorf("no notice counting the 5 others:\n%s", out)
	}
	if !strings.HasPrefix(out, "::error title=assay kb::the run is incomplete") {
		t.Errorf("an incomplete run is not an error annotation:\n%s", out)
	}
	if strings.Contains(out, "\nline two") || !strings.Contains(out, `missing "x"\nline two`) {
		t.Errorf("a newline in a message starts a line of its own (a workflow command could be injected):\n%s", out)
	}
}
