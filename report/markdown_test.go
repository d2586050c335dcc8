package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/gate"
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
	t.Parallel()
	var b bytes.Buffer
	if err := Markdown(&b, ciRun(), sampleComparison()); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestMarkdown.golden.md", b.Bytes())
}

func TestMarkdownWithoutBaseline(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

func TestWriteReportDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "reports")
	run := ciRun()
	v := gate.Verdict{Results: run.Gates, Pass: false}
	day1 := time.Date(2026, 11, 30, 23, 59, 0, 0, time.FixedZone("x", -3600)) // 2026-12-01 in UTC
	paths, err := WriteReportDir(dir, run, nil, v, day1)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "2026-12-01.json"), filepath.Join(dir, "latest.md"), filepath.Join(dir, "badge.json")}
	if strings.Join(paths, ",") != strings.Join(want, ",") {
		t.Errorf("paths = %v, want %v", paths, want)
	}
	var doc assay.Run
	b, _ := os.ReadFile(want[0])
	if err := json.Unmarshal(b, &doc); err != nil || doc.RunID != run.RunID || doc.Schema != assay.RunSchema {
		t.Errorf("dated JSON: %v %+v", err, doc.RunID)
	}
	badge, _ := os.ReadFile(want[2])
	if err := checkShieldsEndpoint(badge); err != nil {
		t.Error(err)
	}
	// A second run refreshes latest.md and badge.json and adds its day.
	run2 := ciRun()
	run2.RunID = "second"
	run2.Gates = run2.Gates[:1]
	if _, err := WriteReportDir(dir, run2, nil, gate.Verdict{Results: run2.Gates, Pass: true}, day1.Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(want[1])
	badge, _ = os.ReadFile(want[2])
	if !strings.Contains(string(md), "run `second`") || !strings.Contains(string(badge), "brightgreen") {
		t.Errorf("latest.md / badge.json not refreshed:\n%s\n%s", md, badge)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "2026-12-01.json 2026-12-02.json badge.json latest.md" {
		t.Errorf("dir holds %v (temporary files left behind?)", names)
	}
}

// TestMarkdownCommentGolden is the PR comment of a regressed run with the
// HTML report at a base URL: gates first, the verdict with its reason,
// then the regressed case with its first failing check and a link to its
// page; the failing cases link to theirs too.
func TestMarkdownCommentGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	o := MarkdownOptions{CaseURL: func(id string) string { return "https://ci.example/run 42/cases/" + id + ".html" }}
	if err := MarkdownWith(&b, ciRun(), sampleComparison(), o); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	golden(t, "TestMarkdownComment.golden.md", b.Bytes())
	gates := strings.Index(out, "| ❌ | `p95_latency_ms <= 1000` | 2300 | &lt;= 1000 |")
	verdict := strings.Index(out, "**Verdict: regressed** against `019ad3b0-0000` (5 paired cases): ndcg@10 worse; 1 case flipped pass to fail.")
	regressed := strings.Index(out, "- [`q3`](https://ci.example/run%2042/cases/q3.html) — `answer_includes`: missing \"&lt;sha-256&gt;\" (and 1 more)")
	totals := strings.Index(out, "| pass rate | graded |")
	if gates < 0 || verdict < gates || regressed < verdict || totals < regressed {
		t.Errorf("want gates (%d), verdict (%d), regressed case (%d), totals (%d) in that order:\n%s", gates, verdict, regressed, totals, out)
	}
	if !strings.Contains(out, "- [**q4**](https://ci.example/run%2042/cases/q4.html) (trial 1) — error `timeout`") {
		t.Errorf("the failing case q4 has no link to its page:\n%s", out)
	}
}

// TestMarkdownFirstRun is the comment of a first pull request: no
// baseline, so the gates' verdict and the failing cases, no comparison.
func TestMarkdownFirstRun(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := MarkdownWith(&b, ciRun(), nil, MarkdownOptions{CaseURL: func(id string) string { return "html/cases/" + id + ".html" }}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	verdict := strings.Index(out, "**Verdict: failed**: `p95_latency_ms <= 1000` (observed 2300, bound &lt;= 1000). No baseline run was compared.")
	failing := strings.Index(out, "- [**q3**](html/cases/q3.html) (trial 0) — `answer_includes`")
	if verdict < 0 || failing < verdict {
		t.Errorf("want the gates' verdict, then the failing cases with links:\n%s", out)
	}
	if strings.Contains(out, "Regressed cases") || strings.Contains(out, "Compared with") {
		t.Errorf("a first run lists a comparison:\n%s", out)
	}
}
