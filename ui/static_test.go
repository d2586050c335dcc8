package ui

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/judge/judgetest"
	"github.com/assay-eval/assay/llm/llmtest"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/runner"
	"github.com/assay-eval/assay/store"
)

var update = flag.Bool("update", false, "rewrite the golden files (and, with ASSAY_UI_SCREENSHOTS=1, docs/ui-*.png)")

// hostilePair stores the two runs of the hostile suite in a fresh store
// and returns it with the base and candidate run ids. Both are judged by
// a stand-in judge (package judgetest's rule) with prices and max_calls
// 2, so the first two cases of each show their scores, reasoning, tokens
// and cost (groundedness not judged: the passages have no text), and the
// budget stops the judging before the third.
func hostilePair(t *testing.T) (store.Store, string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	srv := llmtest.New(t, llmtest.Handlers{Chat: judgetest.Rule})
	retries := 0
	jcfg := &assay.JudgeConfig{URL: srv.URL, Model: "grader-1", Retries: &retries,
		Budget: assay.JudgeBudget{MaxCalls: 2, PromptPrice: 0.000001, CompletionPrice: 0.000002}}
	var ids []string
	for _, trace := range []string{"base", "cand"} {
		p := harness.Plan{SuitePath: "testdata/hostile/suite.yaml", Target: "replay:testdata/hostile/" + trace + ".jsonl", StoreDir: dir, Trials: 1, Concurrency: 1, Judge: harness.JudgeOptions{Config: jcfg}}
		res, err := harness.Run(context.Background(), opened(p))
		if res == nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Runs[0].RunID)
		res.Close()
	}
	st, err := store.Open(dir, store.OpenOptions{ForReading: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, ids[0], ids[1]
}

// normalize replaces what differs between two makings of the same runs:
// run ids, times, durations, the commit and the assay version.
func normalize(s, base, cand string) string {
	for id, name := range map[string]string{base: "RUN-BASE", cand: "RUN-CAND"} {
		s = strings.ReplaceAll(s, id, name)
		s = strings.ReplaceAll(s, report.ShortID(id), name)
	}
	for _, r := range []struct{ re, with string }{
		{`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`, "TIME"},
		{`took [0-9.]+[µmn]?s`, "took DUR"},
		{`commit <span class="mono">[^<]*</span>( \(dirty\))?`, "commit COMMIT"},
		{` · assay [^ <]+`, " · assay VERSION"},
	} {
		s = regexp.MustCompile(r.re).ReplaceAllString(s, r.with)
	}
	return s
}

// TestStaticReport writes the static report of the hostile runs and
// compares every file with testdata/TestStaticReport (-update rewrites
// them); every relative link must name a file of the report, and nothing
// may point off the machine.
func TestStaticReport(t *testing.T) {
	st, base, cand := hostilePair(t)
	out := t.TempDir()
	files, err := WriteStatic(context.Background(), out, st, cand, base)
	if err != nil {
		t.Fatal(err)
	}
	if files[0] != filepath.Join(out, "index.html") {
		t.Errorf("first file %s, want index.html", files[0])
	}
	golden := filepath.Join("testdata", t.Name())
	if *update {
		os.RemoveAll(golden)
	}
	href := regexp.MustCompile(`(?:href|src)="([^"]*)"`)
	ext := regexp.MustCompile(`(?i)(src|href|action)\s*=\s*"(https?:|//)`)
	seen := map[string]bool{}
	for _, f := range files {
		rel, _ := filepath.Rel(out, f)
		seen[rel] = true
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got := normalize(string(b), base, cand)
		for _, raw := range hostileRaw {
			if strings.Contains(got, raw) {
				t.Errorf("%s: raw %q", rel, raw)
			}
		}
		if m := ext.FindString(got); m != "" {
			t.Errorf("%s: a reference off the machine: %s", rel, m)
		}
		for _, m := range href.FindAllStringSubmatch(string(b), -1) {
			if frag, ok := strings.CutPrefix(m[1], "#"); ok {
				// A link within the page (the skip link) names an element of it.
				if !strings.Contains(string(b), `id="`+frag+`"`) {
					t.Errorf("%s: link %q names no element of the page", rel, m[1])
				}
				continue
			}
			target := filepath.Join(filepath.Dir(f), filepath.FromSlash(m[1]))
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s: link %q names no file of the report", rel, m[1])
			}
		}
		g := filepath.Join(golden, rel)
		if *update {
			os.MkdirAll(filepath.Dir(g), 0o755)
			if err := os.WriteFile(g, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(g)
		if err != nil {
			t.Errorf("%s: no golden file (run go test ./ui -run TestStaticReport -update): %v", rel, err)
			continue
		}
		if got != string(want) {
			t.Errorf("%s differs from %s (-update rewrites it):\n%s", rel, g, lineDiff(string(want), got))
		}
	}
	filepath.WalkDir(golden, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(golden, p)
			if !seen[rel] {
				t.Errorf("golden %s was not written", rel)
			}
		}
		return nil
	})
	for _, want := range []string{"index.html", "compare.html", "cases/h1-", "diff/h1-"} {
		found := false
		for rel := range seen {
			found = found || strings.HasPrefix(rel, want)
		}
		if !found {
			t.Errorf("the report has no %s", want)
		}
	}
}

// lineDiff shows the first lines that differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	n := 0
	for i := 0; i < max(len(w), len(g)) && n < 5; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			n++
			b.WriteString("line " + strconv.Itoa(i+1) + ":\n- " + wl + "\n+ " + gl + "\n")
		}
	}
	return b.String()
}

// TestStaticReportUnder5MB: the static report of a 1,000-case run
// compared with a base (the benchmark's runs: a fifth of the cases change
// status, each gets a diff page) stays within the 5 MB.
func TestStaticReportUnder5MB(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1,300 pages")
	}
	sy := synthRuns(t)
	out := t.TempDir()
	written, err := WriteStatic(context.Background(), out, sy.st, sy.cand1000, sy.base1000)
	if err != nil {
		t.Fatal(err)
	}
	var size int64
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			fi, _ := d.Info()
			size += fi.Size()
		}
		return nil
	})
	if size > 5e6 || len(written) < 1300 {
		t.Errorf("the compared report of 1,000 cases is %d bytes in %d files, want at most 5,000,000 in 1,300 or more", size, len(written))
	}
}

// bigObsRun stores a complete run of n cases whose observations each
// carry about kib KiB (one retrieved document's text), and returns its id.
func bigObsRun(t *testing.T, st store.Store, n, kib, variant int) string {
	t.Helper()
	run := &assay.Run{
		Suite:     assay.SuiteRef{Name: "big", Fingerprint: "sha256:big"},
		Target:    assay.TargetInfo{Kind: "http", Spec: "http://127.0.0.1:8088/ask"},
		Options:   assay.RunOptions{Trials: 1, Concurrency: 1, Metrics: []string{"mrr"}},
		StartedAt: time.Now().UTC(),
	}
	w, err := st.Begin(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("lorem ipsum dolor sit amet ", kib*1024/27)
	for i := range n {
		pass := (i+variant)%3 != 0
		v := float64((i*7+variant)%10) / 10
		r := assay.CaseResult{ID: fmt.Sprintf("c%04d", i), Pass: &pass, Metrics: map[string]float64{"mrr": v},
			Checks: []assay.Check{{Kind: "answer_includes", Pass: pass}}, Retrieved: 1}
		r.Observation = &assay.Observation{Case: r.ID, Answer: fmt.Sprintf("answer %d", i),
			Retrieved: []assay.Hit{{ID: "doc.md", Text: fmt.Sprintf("%d %s", i, text)}}}
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
		r.Observation = nil
		run.Cases = append(run.Cases, r)
	}
	run.Summary = runner.Summarize(run.Cases, run.Options.Metrics)
	run.FinishedAt, run.Status = time.Now().UTC(), assay.StatusComplete
	if err := w.Finish(run); err != nil {
		t.Fatal(err)
	}
	return run.RunID
}

// peakHeap runs f while sampling the bytes of live heap objects every
// millisecond, and returns the largest sample above the heap before f.
func peakHeap(f func()) uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	before := s[0].Value.Uint64()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	<-done
	if p := peak.Load(); p > before {
		return p - before
	}
	return 0
}

// The static report of a run with large observations streams its case
// lines: it holds about one case at a time, not the run. Two runs of 100
// cases with 512 KiB of observation each (100 MiB of case lines); the
// report with a base, whose changed cases get diff pages, peaks under
// 40 MiB of live heap (holding the run alone takes more than 50). Only
// with ASSAY_TEST_LARGE=1: it writes 100 MiB of case lines.
func TestStaticReportStreamsLargeRun(t *testing.T) {
	skipUnlessLarge(t, "writes 100 MiB of case lines")
	st := benchStore(t)
	base := bigObsRun(t, st, 100, 512, 0)
	cand := bigObsRun(t, st, 100, 512, 1)
	out := t.TempDir()
	var written []string
	var err error
	peak := peakHeap(func() { written, err = WriteStatic(context.Background(), out, st, cand, base) })
	if err != nil {
		t.Fatal(err)
	}
	diffs, _ := filepath.Glob(filepath.Join(out, "diff", "*.html"))
	if cases, _ := filepath.Glob(filepath.Join(out, "cases", "*.html")); len(cases) != 100 || len(diffs) == 0 {
		t.Fatalf("%d case pages and %d diff pages, want 100 and some", len(cases), len(diffs))
	}
	if left, _ := filepath.Glob(filepath.Join(out, ".assay-*")); len(left) > 0 {
		t.Errorf("temporary files left in the report: %v", left)
	}
	t.Logf("%d pages, peak live heap %.1f MiB", len(written), float64(peak)/(1<<20))
	if peak > 40<<20 {
		t.Errorf("writing the report held %.1f MiB of heap at its peak, want under 40 MiB: the runs are held in memory", float64(peak)/(1<<20))
	}
}

// TestStaticReportLargeRun: above staticFullCases cases (lowered here to
// 100) the report writes a page only for the cases that did not pass
// and the changed ones, says so on the index, and pages the index at
// staticPageRows rows (lowered to 50); every link names a file of the
// report.
func TestStaticReportLargeRun(t *testing.T) {
	full, rows := staticFullCases, staticPageRows
	staticFullCases, staticPageRows = 100, 50
	t.Cleanup(func() { staticFullCases, staticPageRows = full, rows })
	sy := synthRuns(t)
	st, base, cand := sy.st, sy.base300, sy.cand300 // cand fails q000007, q000017, ...
	href := regexp.MustCompile(`href="([^"#]+)(#[^"]*)?"`)
	article := regexp.MustCompile(`<article id="([^"]+)"`)
	for _, baseRef := range []string{"", base} {
		out := t.TempDir()
		files, err := WriteStatic(context.Background(), out, st, cand, baseRef)
		if err != nil {
			t.Fatal(err)
		}
		pages := map[string]bool{}
		diffs := map[string]bool{}
		anchors := map[string]bool{} // file#anchor of each grouped page
		groupFiles := 0
		for _, f := range files {
			rel, _ := filepath.Rel(out, f)
			rel = filepath.ToSlash(rel)
			dir, _, grouped := strings.Cut(rel, "/")
			if !grouped || dir == "assets" {
				continue
			}
			if !strings.HasPrefix(path.Base(rel), "g-") {
				t.Errorf("base %q: %s: a page of its own, want the pages of a large run grouped in g-XX.html files", baseRef, rel)
			}
			groupFiles++
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range article.FindAllStringSubmatch(string(b), -1) {
				anchors[rel+"#"+m[1]] = true
				map[string]map[string]bool{"cases": pages, "diff": diffs}[dir][m[1][:7]] = true
			}
		}
		// A PR comment's link to a failing case (ui.CasePage) names its
		// place in its group's file.
		if link := CasePage("q000007", &assay.Run{Summary: assay.Summary{Cases: 300}}); !anchors[link] {
			t.Errorf("base %q: CasePage gives %s, which is no page of the report", baseRef, link)
		}
		// Each part holds its case whole: the failing q000007's answer
		// (its observation, decoded for the cases with a page only).
		if b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(strings.Split(CasePage("q000007", &assay.Run{Summary: assay.Summary{Cases: 300}}), "#")[0]))); err != nil || !strings.Contains(string(b), "Answer 7: tokens are hashed") {
			t.Errorf("base %q: the page of q000007 lacks its answer (%v)", baseRef, err)
		}
		if groupFiles > 2*256 {
			t.Errorf("base %q: %d group files, want at most 256 a directory", baseRef, groupFiles)
		}
		for _, f := range files {
			rel, _ := filepath.Rel(out, f)
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range href.FindAllStringSubmatch(string(b), -1) {
				target := filepath.Join(filepath.Dir(f), filepath.FromSlash(m[1]))
				if _, err := os.Stat(target); err != nil {
					t.Errorf("base %q: %s: link %q names no file of the report", baseRef, rel, m[1])
					continue
				}
				if t2, _ := filepath.Rel(out, target); m[2] != "" && strings.HasPrefix(path.Base(m[1]), "g-") && !anchors[filepath.ToSlash(t2)+m[2]] {
					t.Errorf("base %q: %s: link %q names no page in its group's file", baseRef, rel, m[1]+m[2])
				}
			}
		}
		for i := range 300 {
			id := fmt.Sprintf("q%06d", i)
			failing := (i+3)%10 == 0
			if failing && !pages[id] {
				t.Errorf("base %q: failing %s has no page", baseRef, id)
			}
			if !failing && !diffs[id] && pages[id] {
				t.Errorf("base %q: passing, unchanged %s has a page", baseRef, id)
			}
			if diffs[id] && !pages[id] {
				t.Errorf("base %q: changed %s has no page", baseRef, id)
			}
		}
		if baseRef == "" && len(pages) != 30 {
			t.Errorf("%d case pages without a base, want the 30 failing", len(pages))
		}
		if baseRef != "" && len(diffs) < 60 {
			t.Errorf("%d diff pages, want at least the 60 status changes", len(diffs))
		}
		if baseRef != "" {
			b, err := os.ReadFile(filepath.Join(out, "compare.html"))
			if err != nil {
				t.Fatal(err)
			}
			page := string(b)
			table := page[strings.Index(page, `id="diffs"`):]
			if rows := strings.Count(table, "<tr class="); rows != len(diffs) || !strings.Contains(page, fmt.Sprintf("the %d listed, each with its diff page", len(diffs))) {
				t.Errorf("compare.html lists %d changed cases, want the %d with a diff page, and says so", rows, len(diffs))
			}
		}
		for n := 1; n <= 6; n++ {
			b, err := os.ReadFile(filepath.Join(out, staticIndexName(n)))
			if err != nil {
				t.Fatalf("index page %d: %v", n, err)
			}
			page := string(b)
			rows := page[strings.Index(page, `id="cases"`):]
			rows = rows[strings.Index(rows, "<tbody>"):]
			if got := strings.Count(rows, `<tr`); got != 50 {
				t.Errorf("index page %d has %d case rows, want 50", n, got)
			}
			has := func(i int) bool {
				return regexp.MustCompile(fmt.Sprintf(`<td>(<a [^>]*>)?q%06d<`, i)).MatchString(page)
			}
			if lo := (n - 1) * 50; !has(lo) || !has(lo+49) || has(lo-1) || has(lo+50) {
				t.Errorf("index page %d is not cases %d to %d", n, lo, lo+49)
			}
			if !strings.Contains(page, fmt.Sprintf("page %d of 6", n)) || !strings.Contains(page, fmt.Sprintf(`id="left-out">This run has 300 cases, more than 100: to keep the report small, only the %d cases`, len(pages))) {
				t.Errorf("index page %d lacks its place or the note on the pages left out", n)
			}
			// The gates, summary and metrics are on the first page only;
			// the others link back to it.
			if first := n == 1; first != strings.Contains(page, `id="summary"`) || first == strings.Contains(page, `id="continued"`) || (!first && !strings.Contains(page, `<a href="index.html">its first page</a>`)) {
				t.Errorf("index page %d: the run's summary must be on the first page only, the others linking to it", n)
			}
			if (n < 6) != strings.Contains(page, `href="`+staticIndexName(n+1)+`" rel="next"`) {
				t.Errorf("index page %d: wrong next link", n)
			}
		}
		if _, err := os.Stat(filepath.Join(out, staticIndexName(7))); err == nil {
			t.Errorf("an index page 7 for 300 cases at 50 a page")
		}
	}
}
