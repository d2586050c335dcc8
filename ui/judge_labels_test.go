package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/judge/judgetest"
	"github.com/assay-eval/assay/llm/llmtest"
	"github.com/assay-eval/assay/store"
)

// labelledScript is the testscript whose suite, replay trace and labels
// files the labelled runs reuse: 40 cases judged by the stand-in judge,
// people's labels on relevance (two labellers) and scores on
// groundedness, min_kappa 0.6.
const labelledScript = "../testdata/script/run_judge_min_kappa.txtar"

// labelledRuns runs the labelled suite twice in a fresh store, judged by
// a stand-in judge (package judgetest's rule): with the labels it names
// (the judge is validated) and with the definition bad.yaml (labels the
// judge disagrees with: min_kappa is not met). It returns the store, the
// directory of the suite and the two run ids.
func labelledRuns(t *testing.T) (st store.Store, dir, good, bad string) {
	t.Helper()
	ar, err := txtar.ParseFile(labelledScript)
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t, llmtest.Handlers{Chat: judgetest.Rule})
	dir = t.TempDir()
	for _, f := range ar.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		data := strings.ReplaceAll(string(f.Data), "http://127.0.0.1:18825/v1", srv.URL)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	storeDir := filepath.Join(dir, "store")
	var ids []string
	for _, judgeFile := range []string{"", filepath.Join(dir, "bad.yaml")} {
		p := harness.Plan{SuitePath: filepath.Join(dir, "suite.yaml"), Target: "replay:" + filepath.Join(dir, "trace.jsonl"), StoreDir: storeDir, Trials: 1, Concurrency: 1, Judge: harness.JudgeOptions{File: judgeFile}}
		res, err := harness.Run(context.Background(), opened(p))
		if res == nil {
			t.Fatal(err)
		}
		if res.Runs[0].Summary.Judge == nil || res.Runs[0].Summary.Judge.Labels == nil {
			t.Fatalf("judge %q: the run records no summary.judge.labels", judgeFile)
		}
		ids = append(ids, res.Runs[0].RunID)
		res.Close()
	}
	st, err = store.Open(storeDir, store.OpenOptions{ForReading: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, dir, ids[0], ids[1]
}

// TestJudgeLabelsPage compares the run pages of the labelled runs (their
// static reports' index.html) with testdata/TestJudgeLabelsPage/*.html
// (-update rewrites them): the Judge section's agreement table, met and
// not met.
func TestJudgeLabelsPage(t *testing.T) {
	st, dir, good, bad := labelledRuns(t)
	for name, id := range map[string]string{"good": good, "bad": bad} {
		out := t.TempDir()
		if _, err := WriteStatic(context.Background(), out, st, id, ""); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(out, "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		got := strings.ReplaceAll(normalize(string(b), id, id), dir, "DIR")
		g := filepath.Join("testdata", t.Name(), name+".html")
		if *update {
			os.MkdirAll(filepath.Dir(g), 0o755)
			if err := os.WriteFile(g, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(g)
		if err != nil {
			t.Fatalf("%s: no golden file (run go test ./ui -run TestJudgeLabelsPage -update): %v", g, err)
		}
		if got != string(want) {
			t.Errorf("%s run page differs from %s (-update rewrites it):\n%s", name, g, lineDiff(string(want), got))
		}
	}
}

// TestBrowserJudgeLabels opens the labelled runs' pages in a browser: the
// agreement table shows each criterion's statistics as the text report
// prints them, whether min_kappa is met (and why not), and links the most
// disagreeing cases to their pages; its headers are real headers. A run
// without labels (the hostile runs) has no such table.
func TestBrowserJudgeLabels(t *testing.T) {
	st, _, good, bad := labelledRuns(t)
	ctx, _ := browser(t)
	open := func(id string) {
		t.Helper()
		out := t.TempDir()
		if _, err := WriteStatic(context.Background(), out, st, id, ""); err != nil {
			t.Fatal(err)
		}
		do(t, ctx, chromedp.Navigate("file://"+filepath.ToSlash(filepath.Join(out, "index.html"))))
	}

	// rows is the agreement table's rows, their cells' texts joined by |.
	rows := func() []string {
		t.Helper()
		return run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#judge-labels tbody tr')].map(tr => [...tr.cells].map(c => c.textContent).join('|'))`))
	}

	open(good)
	got := rows()
	want := []string{
		// As the text report prints them (run_judge_min_kappa.txtar).
		"relevance|40|0.8429 [0.6500, 1.0000]|0.8572 [0.6746, 1.0000]|0.9250|1.0000|0.8235|-|0.6550|0.5625 [0.4267, 0.6983]|✓ met|",
		// People's scores on groundedness: Spearman's rho.
		"groundedness|40|",
		// No labels: min_kappa is not met, and why.
		"completeness|0|undefined|undefined|undefined|undefined|undefined|-|undefined|undefined|✗ not met: the judge is not validated on completeness: ",
	}
	if len(got) != len(want) {
		t.Fatalf("good run: agreement rows %q, want %d", got, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("good run: agreement row %q, want it to start %q", got[i], want[i])
		}
	}
	if !strings.Contains(got[1], "|0.8867 [0.7569, 0.9857]|") || !strings.Contains(got[1], "✓ met") {
		t.Errorf("good run: groundedness row %q lacks rho 0.8867 [0.7569, 0.9857] or ✓ met", got[1])
	}
	headers := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#judge-labels th')].map(th => (th.getAttribute('scope') || 'NO SCOPE') + ':' + th.textContent.trim())`))
	if len(headers) < 12 {
		t.Errorf("good run: agreement table headers %q", headers)
	}
	for _, h := range headers {
		scope, text, _ := strings.Cut(h, ":")
		if (scope != "col" && scope != "row") || text == "" {
			t.Errorf("good run: agreement table header %q: want a scope and a text", h)
		}
	}
	link := run(t, ctx, chromedp.Evaluate[string](`(document.querySelector('#judge-labels a') || {}).textContent || ''`))
	if !strings.HasPrefix(link, "c") {
		t.Fatalf("good run: no case linked from the agreement table (%q)", link)
	}
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`#judge-labels a`))); err != nil {
		t.Fatal(err)
	}
	if h1 := run(t, ctx, chromedp.Text(chromedp.CSS("h1"))); !strings.Contains(h1, link) {
		t.Errorf("the disagreement link %q opened a page headed %q", link, h1)
	}

	open(bad)
	if got := rows(); len(got) == 0 || !strings.Contains(got[0], "|✗ not met: the judge is not validated on relevance: kappa 0.0000 < min_kappa 0.6 on 40 labels|") {
		t.Errorf("bad run: the agreement table %q does not say why min_kappa is not met on relevance", got)
	}

	hst, _, cand := hostilePair(t)
	st = hst
	open(cand)
	if n := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('#judge-labels, #judge-labels-file').length`)); n != 0 {
		t.Errorf("a run without labels shows %d agreement element(s)", n)
	}
	if got := run(t, ctx, chromedp.Text(chromedp.ID("judge"))); !strings.Contains(got, "grader-1") {
		t.Errorf("the run without labels shows no judge summary: %q", got)
	}
}
