package ui

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/store"
)

// TestRunsPageKeepsMetricsWhenNewestIncomplete: while a suite's newest
// run is incomplete (stopped, or still running), the runs page keeps the
// metric columns and trends of the runs before it.
func TestRunsPageKeepsMetricsWhenNewestIncomplete(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	run := func(p harness.Plan) *assay.Run {
		p.SuitePath, p.StoreDir, p.Trials, p.Concurrency, p.Timeout = quickstart, dir, 1, 1, time.Minute
		res, err := harness.Run(context.Background(), opened(p))
		if res == nil {
			t.Fatal(err)
		}
		defer res.Close()
		return res.Runs[0]
	}
	done := run(harness.Plan{})
	// A run still running: begun, no case recorded, no summary.
	ws, err := store.Open(dir, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := ws.Begin(t.Context(), &assay.Run{Suite: done.Suite, Target: done.Target, Options: done.Options, StartedAt: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	_ = w // never finished: the run stays running
	ws.Close()
	st, err := store.Open(dir, store.OpenOptions{ForReading: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b := body(t, New(st, Options{}), "/")
	if got := regexp.MustCompile(`<tr class="\w+">`).FindAllString(b, -1); len(got) != 2 || got[0] != `<tr class="incomplete">` {
		t.Fatalf("runs listed %v, want the incomplete one first", got)
	}
	if !strings.Contains(b, `<th>ndcg@10</th>`) {
		t.Errorf("the newest run is incomplete and the metric columns are gone:\n%s", grep(b, "<thead>"))
	}
	if !strings.Contains(b, `<figcaption>ndcg@10`) {
		t.Errorf("the newest run is incomplete and the ndcg@10 trend is gone")
	}
}

// TestTrendChartsPerTarget: the quickstart runs of two targets are two
// lines (each a point here, not joined), each point links to its run, the
// gate's bound is drawn, the x axis has dates, and each value is written
// as text.
func TestTrendChartsPerTarget(t *testing.T) {
	f := getFixture(t)
	b := body(t, New(f.st, Options{}), "/?suite=quickstart")
	chart := b[strings.Index(b, `<figcaption>pass_rate`):]
	chart = chart[:strings.Index(chart, "</figure>")]
	if strings.Contains(chart, "<polyline") {
		t.Errorf("runs of two targets are joined by a line")
	}
	if n := strings.Count(chart, `<span class="key `); n != 2 {
		t.Errorf("%d targets in the legend, want 2", n)
	}
	for _, id := range []string{f.qsBase, f.qsCand} {
		if !regexp.MustCompile(`<a href="` + regexp.QuoteMeta(serverLinks{}.Run(id)) + `" aria-label="pass_rate [^"]*"><circle`).MatchString(chart) {
			t.Errorf("the point of run %s does not link to it", short(id))
		}
		if !regexp.MustCompile(`<li>run `+short(id)+`, \d{4}-\d\d-\d\d \d\d:\d\d, builtin[^:]*: 0\.\d{4}</li>`).MatchString(chart) && !strings.Contains(chart, "<li>run "+short(id)) {
			t.Errorf("the value of run %s is not written as text", short(id))
		}
	}
	if !strings.Contains(chart, `class="threshold"/><text`) || !strings.Contains(chart, ">gate 0.8</text>") {
		t.Errorf("the pass_rate >= 0.8 gate is not drawn")
	}
	if !regexp.MustCompile(`text-anchor="start" class="axis">\d{4}-\d\d-\d\d</text>`).MatchString(chart) {
		t.Errorf("the x axis has no date")
	}
}

// TestRunsPageGroupsMatrixVariants: the runs of one variant matrix are
// listed together, each saying its matrix and variant, even when another
// run was made between them.
func TestRunsPageGroupsMatrixVariants(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "store"), store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Now().UTC()
	mk := func(group, variant string, at time.Duration) string {
		run := &assay.Run{Suite: assay.SuiteRef{Name: "s", Fingerprint: "sha256:s"}, Target: assay.TargetInfo{Kind: "builtin"}, StartedAt: t0.Add(at), Group: group}
		if variant != "" {
			run.Variant = map[string]string{"mode": variant}
		}
		w, err := st.Begin(t.Context(), run)
		if err != nil {
			t.Fatal(err)
		}
		run.Status, run.FinishedAt = assay.StatusComplete, t0.Add(at+time.Second)
		if err := w.Finish(run); err != nil {
			t.Fatal(err)
		}
		return run.RunID
	}
	fast := mk("g-matrix-1", "fast", 0)
	single := mk("", "", time.Minute)
	slow := mk("g-matrix-1", "slow", 2*time.Minute)
	b := body(t, New(st, Options{}), "/")
	var order []string
	for _, m := range regexp.MustCompile(`class="mono run-id">([^<]+)</a>`).FindAllStringSubmatch(b, -1) {
		order = append(order, m[1])
	}
	if want := []string{short(slow), short(fast), short(single)}; strings.Join(order, " ") != strings.Join(want, " ") {
		t.Errorf("runs listed %v, want the matrix's two runs together first: %v", order, want)
	}
	if n := strings.Count(b, `matrix <span class="mono">`+short("g-matrix-1")+`</span> · variant `); n != 2 || !strings.Contains(b, "variant fast</span>") || !strings.Contains(b, "variant slow</span>") {
		t.Errorf("%d rows say their matrix and variant, want 2:\n%s", n, grep(b, "run-id"))
	}
}

// TestRunsPageMatrixOrderings: above a matrix's runs, the runs page checks
// the orderings its runs recorded over their summaries and shows each with
// ✓ or ✗ in words as well; an ordering whose variant has no run, or an
// incomplete one, is not checked and says why; a paired metric whose means
// are out of order is left to the paired test over the cases.
func TestRunsPageMatrixOrderings(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "store"), store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Now().UTC()
	at := time.Duration(0)
	mk := func(group, variant string, ndcg, p95 float64, finish bool, orderings ...string) string {
		at += time.Minute
		run := &assay.Run{Suite: assay.SuiteRef{Name: "s", Fingerprint: "sha256:s"}, Target: assay.TargetInfo{Kind: "builtin"}, StartedAt: t0.Add(at),
			Group: group, Variant: map[string]string{"mode": variant}, Orderings: orderings}
		w, err := st.Begin(t.Context(), run)
		if err != nil {
			t.Fatal(err)
		}
		if !finish {
			return run.RunID
		}
		run.Status, run.FinishedAt = assay.StatusComplete, t0.Add(at+time.Second)
		run.Summary = assay.Summary{Cases: 5, Metrics: map[string]assay.MetricAgg{"ndcg@10": {Mean: ndcg, N: 5}}, LatencyMs: assay.Latency{P95: p95, Max: p95, N: 5}}
		if err := w.Finish(run); err != nil {
			t.Fatal(err)
		}
		return run.RunID
	}
	ords := []string{"ndcg@10: fast <= slow", "p95_latency_ms: slow <= fast"}
	mk("g-done", "fast", 0.5, 100, true, ords...)
	mk("g-done", "slow", 0.6, 900, true, ords...)
	mk("g-stopped", "fast", 0.5, 100, true, ords[0])
	stopped := mk("g-stopped", "slow", 0, 0, false, ords[0])
	mk("g-alone", "fast", 0.5, 100, true, ords[0])
	mk("g-noisy", "fast", 0.6, 100, true, ords[0])
	mk("g-noisy", "slow", 0.59, 100, true, ords[0])
	mk("g-none", "fast", 0.5, 100, true)
	mk("g-none", "slow", 0.6, 100, true)
	b := body(t, New(st, Options{}), "/")

	blocks := map[string]string{}
	for _, m := range regexp.MustCompile(`(?s)<tr class="matrix-orderings">.*?</tr>\s*<tr class="\w+">.*?run-id">[^<]+</a> <span class="small matrix">matrix <span class="mono">([^<]+)</span>`).FindAllStringSubmatch(b, -1) {
		blocks[m[1]] = m[0][:strings.Index(m[0], "</tr>")]
	}
	if len(blocks) != 4 {
		t.Fatalf("%d matrices have their orderings right above their runs, want 4 (not g-none, which recorded none):\n%s", len(blocks), grep(b, "ordering"))
	}
	want := map[string][]string{
		"g-done": {
			`<span class="good"><span aria-hidden="true">✓</span> holds</span> <span class="mono">ndcg@10: fast &lt;= slow</span> <span class="muted small">fast 0.5 &lt;= slow 0.6</span>`,
			`<span class="bad"><span aria-hidden="true">✗</span> broken</span> <span class="mono">p95_latency_ms: slow &lt;= fast</span> <span class="muted small">broken: slow 900 is not &lt;= fast 100`,
		},
		"g-stopped": {`<span aria-hidden="true">–</span> not checked</span> <span class="mono">ndcg@10: fast &lt;= slow</span> <span class="muted small">the run of variant slow (` + short(stopped) + `) is incomplete</span>`},
		"g-alone":   {`not checked</span> <span class="mono">ndcg@10: fast &lt;= slow</span> <span class="muted small">no run of variant slow in this matrix</span>`},
		"g-noisy":   {`<span aria-hidden="true">?</span> not decided here</span> <span class="mono">ndcg@10: fast &lt;= slow</span> <span class="muted small">the means are out of order (fast 0.6 is not &lt;= slow 0.59`},
	}
	for g, wants := range want {
		block, ok := blocks[short(g)]
		if !ok {
			t.Errorf("matrix %s: no orderings shown above its runs", g)
			continue
		}
		for _, w := range wants {
			if !strings.Contains(block, w) {
				t.Errorf("matrix %s: want %s\nin\n%s", g, w, block)
			}
		}
	}
}
