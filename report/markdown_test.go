package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
)

func sampleComparison() *compare.Report {
	return &compare.Report{
		Schema: assay.CompareSchema, Verdict: compare.Regressed,
		Baseline: "019ad3b0-0000-7000-8000-000000000001", Candidate: "019ad3c1-7f2e-7c4d-9a55-3b8d2f0c1e77",
		PairedCases: 5,
		Metrics: []compare.MetricDelta{
			{Name: "ndcg@10", N: 8, Baseline: 0.51, Candidate: 0.4125, Delta: -0.0975, CI95: [2]float64{-0.18, -0.02}, P: 0.031, Significant: true, Change: compare.Worsened, Gated: true},
			{Name: "pass_rate", N: 8, Baseline: 0.5, Candidate: 0.375, Delta: -0.125, CI95: [2]float64{-0.375, 0.125}, P: 0.5, Change: compare.NoChange, Gated: true, Rate: true},
		},
		Flips:    compare.Flips{PassToFail: []string{"q3"}},
		Warnings: []string{"need >= 10 paired cases for a 95% CI"},
		Reasons:  []string{"ndcg@10 worse", "1 case flipped pass to fail"},
	}
}

func TestMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, ciRun(), sampleComparison()); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestMarkdown.golden.md", b.Bytes())
}

func TestMarkdownWithoutBaseline(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, ciRun(), nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"## ❌ assay · kb — 1 of 2 gates failed",
		"| 37.5% | 8 | 3 | 5 | 1 | 85.0 ms | 2300 ms |",
		"| ❌ | `p95_latency_ms <= 1000` | 2300 | &lt;= 1000 |",
		"pass@2 75.0% · pass^2 25.0% · 2 flaky: `q2`, `q4`",
		"- **q3** (trial 0) — `answer_includes`: missing \"&lt;sha-256&gt;\"; `answer_excludes`: found \"md5\" \\| \"sha1\"",
		"- **q4** (trial 1) — error `timeout`: no observation after 30s",
		"> ⚠️ system versions drifted during the run: pin them &amp; re-run",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Compared with") {
		t.Errorf("a comparison section without a baseline:\n%s", out)
	}
}

func TestMarkdownHeadlines(t *testing.T) {
	held := ciRun()
	held.Gates = held.Gates[:1]
	incomplete := ciRun()
	incomplete.Status = assay.StatusIncomplete
	none := ciRun()
	none.Gates = nil
	for _, tt := range []struct {
		run  *assay.Run
		want string
	}{
		{held, "## ✅ assay · kb — every gate held\n"},
		{incomplete, "## ⚠️ assay · kb — run incomplete\n"},
		{none, "## assay · kb\n"},
	} {
		var b bytes.Buffer
		Markdown(&b, tt.run, nil)
		if !strings.HasPrefix(b.String(), tt.want) {
			t.Errorf("headline = %q, want %q", strings.SplitN(b.String(), "\n", 2)[0], tt.want)
		}
	}
}

func TestMarkdownCapsFailingCases(t *testing.T) {
	run := ciRun()
	run.Cases = nil
	for i := 0; i < MarkdownMaxFailures+7; i++ {
		run.Cases = append(run.Cases, assay.CaseResult{ID: "c", Trial: i, Pass: ptr(false)})
	}
	var b bytes.Buffer
	Markdown(&b, run, nil)
	if !strings.Contains(b.String(), "- … and 7 more") {
		t.Errorf("failing list not capped")
	}
}

func TestMDEscape(t *testing.T) {
	tests := map[string]string{
		"a|b":          `a\|b`,
		"<script>":     "&lt;script&gt;",
		"*x* _y_ `z`":  "\\*x\\* \\_y\\_ \\`z\\`",
		"two\nlines":   "two lines",
		"[link](http)": `\[link\](http)`,
	}
	for in, want := range tests {
		if got := mdEscape(in); got != want {
			t.Errorf("mdEscape(%q) = %q, want %q", in, got, want)
		}
	}
}
