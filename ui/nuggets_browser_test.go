package ui

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/judge/judgetest"
	"github.com/assay-eval/assay/llm/llmtest"
	"github.com/assay-eval/assay/store"
	"github.com/chromedp/chromedp"
)

// TestBrowserNuggets opens the case page of a run with nuggets: each
// nugget is listed with its assignment, who assigned it (the judge's
// marked model-assigned) and what was found; a case without nuggets
// shows no nugget table.
func TestBrowserNuggets(t *testing.T) {
	dir := t.TempDir()
	srv := llmtest.New(t, llmtest.Handlers{Chat: judgetest.Rule})
	suite := `assay: 1
name: nugget-ui
judge: {url: ` + srv.URL + `, model: grader-1}
cases:
  - id: para
    query: How are tokens stored?
    expect:
      nuggets:
        - SHA-256
        - {text: tokens are salted and peppered, parts: [salted, pepper]}
        - {text: results are cached for a day, importance: okay, assign: judge}
  - id: plain
    query: Anything?
    expect: {answer_includes: [nothing]}
`
	trace := `{"case": "para", "answer": "Hashed with sha-256, salted; kept until tomorrow. [nuggets:partial_support]"}
{"case": "plain", "answer": "nothing"}
`
	for name, body := range map[string]string{"suite.yaml": suite, "trace.jsonl": trace} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sdir := filepath.Join(dir, "store")
	res, err := harness.Run(context.Background(), opened(harness.Plan{SuitePath: filepath.Join(dir, "suite.yaml"), Target: "replay:" + filepath.Join(dir, "trace.jsonl"),
		StoreDir: sdir, Trials: 1, Concurrency: 1, Timeout: time.Minute}))
	if res == nil {
		t.Fatal(err)
	}
	id := res.Runs[0].RunID
	res.Close()
	st, err := store.Open(sdir, store.OpenOptions{ForReading: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, _ := browser(t)
	ts := httptest.NewServer(New(st, Options{}))
	defer ts.Close()

	do(t, ctx, chromedp.Navigate(ts.URL+serverLinks{}.Case(id, "para")))
	rows := run(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#nuggets tbody tr")).map(r => r.innerText)`))
	if len(rows) != 3 {
		t.Fatalf("nugget rows = %q, want 3", rows)
	}
	for i, want := range [][]string{
		{"SHA-256", "vital", "support", "rule", "found SHA-256 at byte 12"},
		{"tokens are salted and peppered", "partial_support", "rule", "found salted", "missing pepper"},
		{"results are cached for a day", "okay", "partial_support", "model-assigned", "stand-in rule: [nuggets:partial_support]"},
	} {
		for _, w := range want {
			if !strings.Contains(rows[i], w) {
				t.Errorf("nugget row %d = %q, want it to show %q", i, rows[i], w)
			}
		}
	}
	if n := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#nuggets mark.model").length`)); n != 1 {
		t.Errorf("%d nuggets marked model-assigned, want 1", n)
	}
	metrics := run(t, ctx, chromedp.Text(chromedp.CSS("table.metrics")))
	for _, m := range assay.NuggetMetrics {
		if !strings.Contains(metrics, m) {
			t.Errorf("metrics table %q lacks %s", metrics, m)
		}
	}
	do(t, ctx, chromedp.Navigate(ts.URL+serverLinks{}.Case(id, "plain")))
	if n := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#nuggets").length`)); n != 0 {
		t.Error("a case without nuggets shows a nugget table")
	}
}
