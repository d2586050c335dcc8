package ui

import (
	"bytes"
	"context"
	"flag"
	"net"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/internal/shareddata"
	"github.com/assay-eval/assay/llm/llmtest"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

var screenshots = flag.Bool("screenshots", false, "write docs/ui-run.png, docs/ui-compare.png and docs/ui-case.png from the browser tests")

// chromium returns the path of a Chromium: Debian's
// chromium-headless-shell when it is installed (.ci/run installs it
// beside chromium), else chromium or Chrome. The headless shell is the
// old headless mode, a browser without the desktop browser's chrome:
// the package's tests cost about half the CPU they cost in chromium's
// new headless mode, and every check holds in both. When there is none
// the test is skipped, or fails under CI (the rule of
// internal/shareddata.Required).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium-headless-shell", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if shareddata.Required() {
		t.Fatal("no chromium on PATH: CI must install it (apt-get install -y chromium)")
	}
	t.Skip("no chromium on PATH (apt-get install -y chromium); the browser tests need it")
	return ""
}

// browserOptions are the flags that work on these machines, a fresh
// profile in dir, and extra.
//
// Headless Chromium (the new headless mode, a whole browser without a
// screen) builds the omnibox's dropdown as WebUI pages of its own, one
// renderer per window, kept warm in the background: on an idle test
// browser they took about half a core. disable-features turns them off
// (the list keeps chromedp's own two); the pages under test are not
// affected, the browser's own chrome is. evil.example resolves to this
// machine, for TestBrowserForeignHostAndPathRef: no other test names it.
func browserOptions(path, dir string, extra ...chromedp.ExecAllocatorOption) []chromedp.ExecAllocatorOption {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup"),
		chromedp.Flag("host-resolver-rules", "MAP evil.example 127.0.0.1"),
		chromedp.UserDataDir(dir), chromedp.WindowSize(1280, 900))
	return append(opts, extra...)
}

// shared is the one Chromium the browser tests of this package share
// (started by the first of them, stopped by TestMain), and its one tab,
// which the tests take in turn: starting a browser costs more CPU than
// most of the tests that use it, and a new tab in a new browser context
// starts a renderer (about half a second of CPU on a loaded machine,
// more than most tests' pages). tab is the browser's first tab.
var shared struct {
	once   sync.Once
	tab    context.Context
	err    error
	dir    string
	cancel func()
}

// sharedBrowser returns the shared browser's tab, starting the browser on
// first use.
func sharedBrowser(path string) (context.Context, error) {
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "assay-ui-chromium-")
		if err != nil {
			shared.err = err
			return
		}
		shared.dir = dir
		actx, cancelA := chromedp.NewExecAllocator(context.Background(), browserOptions(path, dir)...)
		ctx, cancelC := chromedp.NewContext(actx)
		shared.tab, shared.cancel = ctx, func() { cancelC(); cancelA() }
		shared.err = chromedp.Do(ctx)
	})
	return shared.tab, shared.err
}

// stopSharedBrowser stops the shared browser, if one was started, and
// removes its profile.
func stopSharedBrowser() {
	if shared.cancel != nil {
		shared.cancel()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
}

// handOver readies the shared tab for the next test: a blank page, the
// window's own size (no emulated viewport), and no cookies or cache from
// an earlier test. The pages under test keep nothing else (no script, no
// storage), and each test's servers and reports have addresses of their
// own.
var handOver = []chromedp.Action[chromedp.Void]{
	chromedp.Navigate("about:blank"),
	chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, emulation.ClearDeviceMetricsOverride, cdp.Empty{}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, t, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, network.ClearBrowserCache, cdp.Empty{})
		return err
	}),
}

// browser returns a tab of a headless Chromium, with a time limit of its
// own, and records every request its pages make from now on. Without
// extra options it is the package's shared tab, handed over clean
// (handOver): the browser tests do not run in parallel. Extra options
// (flags of the browser process) start a browser of the test's own with a
// fresh profile.
func browser(t *testing.T, extra ...chromedp.ExecAllocatorOption) (context.Context, *requests) {
	t.Helper()
	path := chromium(t)
	var ctx context.Context
	if len(extra) > 0 {
		actx, cancelA := chromedp.NewExecAllocator(context.Background(), browserOptions(path, t.TempDir(), extra...)...)
		t.Cleanup(cancelA)
		var cancelC func()
		ctx, cancelC = chromedp.NewContext(actx)
		t.Cleanup(cancelC)
	} else {
		tab, err := sharedBrowser(path)
		if err != nil {
			t.Fatal(err)
		}
		ctx = tab
	}
	// A context derived from the tab's: its end stops this test's actions
	// and its listener, not the tab.
	ctx, cancelT := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancelT)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	if len(extra) == 0 {
		if err := chromedp.Do(ctx, handOver...); err != nil {
			t.Fatal(err)
		}
	}
	req := &requests{}
	if err := chromedp.Listen(ctx, req.add); err != nil {
		t.Fatal(err)
	}
	return ctx, req
}

type requests struct {
	mu   sync.Mutex
	urls []string
}

func (r *requests) add(ev any) {
	if e, ok := ev.(*network.EventRequestWillBeSent); ok {
		r.mu.Lock()
		r.urls = append(r.urls, e.Request.URL)
		r.mu.Unlock()
	}
}

// offMachine returns the requests that went elsewhere than prefix.
func (r *requests) offMachine(prefix string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, u := range r.urls {
		if !strings.HasPrefix(u, prefix) && !strings.HasPrefix(u, "data:") {
			out = append(out, u)
		}
	}
	return out
}

func run[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// pwned is what the hostile strings would set if any of them ran.
const pwned = `typeof window.__pwned`

// TestBrowserPages loads every page in headless Chromium: each renders
// its heading, runs no script of the hostile suite, and requests nothing
// but the server; the run page shows the pass rate `assay runs show`
// prints.
func TestBrowserPages(t *testing.T) {
	f := getFixture(t)
	ctx, req := browser(t)
	ts := httptest.NewServer(New(f.st, Options{}))
	defer ts.Close()
	for _, u := range pageURLs(f) {
		do(t, ctx, chromedp.Navigate(ts.URL+u))
		if h1 := run(t, ctx, chromedp.Text(chromedp.CSS("h1"))); h1 == "" {
			t.Errorf("%s: no heading", u)
		}
		if got := run(t, ctx, chromedp.Evaluate[string](pwned)); got != "undefined" {
			t.Errorf("%s: window.__pwned is %s: a hostile string ran", u, got)
		}
	}
	if off := req.offMachine(ts.URL); len(off) > 0 {
		t.Errorf("requests off the machine: %v", off)
	}
	run1, _, err := harness.LoadRef(context.Background(), f.st, f.qsCand)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	report.Text(&text, run1, report.TextOptions{})
	want := regexp.MustCompile(`pass rate (\S+)`).FindStringSubmatch(text.String())[1]
	do(t, ctx, chromedp.Navigate(ts.URL+serverLinks{}.Run(f.qsCand)))
	if got := run(t, ctx, chromedp.Text(chromedp.ID("pass-rate"))); got != want {
		t.Errorf("run page pass rate %q, runs show prints %q", got, want)
	}
}

// TestBrowserFilter uses the case filter of the run page.
func TestBrowserFilter(t *testing.T) {
	f := getFixture(t)
	ctx, _ := browser(t)
	ts := httptest.NewServer(New(f.st, Options{}))
	defer ts.Close()
	do(t, ctx, chromedp.Navigate(ts.URL+serverLinks{}.Run(f.qsCand)))
	if got := run(t, ctx, chromedp.Text(chromedp.ID("case-count"))); !strings.HasPrefix(got, "24 of 24") {
		t.Fatalf("before filtering: %q", got)
	}
	do(t, ctx, chromedp.SetValue(chromedp.CSS(`#filters select[name="status"]`), "failing"))
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`#filters button`))); err != nil {
		t.Fatal(err)
	}
	if loc := run(t, ctx, chromedp.Location()); !strings.Contains(loc, "status=failing") {
		t.Errorf("location after filtering: %s", loc)
	}
	if got := run(t, ctx, chromedp.Text(chromedp.ID("case-count"))); !strings.HasPrefix(got, "1 of 24") {
		t.Errorf("after filtering failing: %q, want 1 of 24", got)
	}
	do(t, ctx, chromedp.SetValue(chromedp.CSS(`#filters select[name="status"]`), ""), chromedp.SendKeys(chromedp.CSS(`#filters input[name="q"]`), "invite"))
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`#filters button`))); err != nil {
		t.Fatal(err)
	}
	if got := run(t, ctx, chromedp.Text(chromedp.ID("case-count"))); !strings.HasPrefix(got, "2 of 24") {
		t.Errorf("after searching invite: %q, want 2 of 24", got)
	}
}

// TestBrowserCompareFromRunsPage picks two runs on the runs page, opens
// their comparison, and checks it says what `assay compare` says.
func TestBrowserCompareFromRunsPage(t *testing.T) {
	f := getFixture(t)
	ctx, _ := browser(t)
	ts := httptest.NewServer(New(f.st, Options{}))
	defer ts.Close()
	do(t, ctx, chromedp.Navigate(ts.URL+"/?suite=quickstart"),
		// The other way round from the default.
		chromedp.Click(chromedp.CSS(`input[name="base"][value="`+f.qsCand+`"]`)),
		chromedp.Click(chromedp.CSS(`input[name="cand"][value="`+f.qsBase+`"]`)))
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`button.compare`))); err != nil {
		t.Fatal(err)
	}
	rep, err := harness.CompareRefs(context.Background(), f.st, f.qsCand, f.qsBase, harness.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := run(t, ctx, chromedp.Text(chromedp.ID("verdict")))
	if !strings.HasPrefix(got, "verdict: "+string(rep.Verdict)) {
		t.Errorf("verdict %q, assay compare says %s", got, rep.Verdict)
	}
	loc := run(t, ctx, chromedp.Location())
	if !strings.Contains(loc, "base="+f.qsCand) || !strings.Contains(loc, "cand="+f.qsBase) {
		t.Errorf("compare URL %s does not name the picked runs", loc)
	}
	if *screenshots {
		takeScreenshots(t, ctx)
	}
}

// failingPair is a store of its own with two quickstart runs: against
// builtin, then against builtin:rm3 compared with it and with a few more
// gates, two of which fail (mrr >= 0.99, p95_latency_ms <= 0.05).
func failingPair(t *testing.T) (st store.Store, base, cand *assay.Run) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	mk := func(p harness.Plan) *assay.Run {
		p.SuitePath, p.StoreDir, p.Trials, p.Concurrency, p.Timeout = quickstart, dir, 1, 4, time.Minute
		res, err := harness.Run(context.Background(), opened(p))
		if res == nil {
			t.Fatal(err)
		}
		defer res.Close()
		return res.Runs[0]
	}
	base = mk(harness.Plan{})
	cand = mk(harness.Plan{Target: "builtin:rm3", Baseline: base.RunID,
		Gates: []string{"mrr >= 0.99", "[category=security] pass_rate >= 1", "no_new_failures", "p95_latency_ms <= 0.05"}})
	st, err := store.Open(dir, store.OpenOptions{ForReading: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, base, cand
}

// takeScreenshots writes the run, compare and case pages of docs/ from
// failingPair, so that the shots show what a failing run looks like.
func takeScreenshots(t *testing.T, ctx context.Context) {
	st, base, cand := failingPair(t)
	ts := httptest.NewServer(New(st, Options{}))
	defer ts.Close()
	shot(t, ctx, ts.URL+serverLinks{}.Compare(base.RunID, cand.RunID), "ui-compare.png")
	shot(t, ctx, ts.URL+serverLinks{}.Run(cand.RunID), "ui-run.png")
	for _, c := range cand.Cases {
		if c.Pass != nil && !*c.Pass {
			shot(t, ctx, ts.URL+serverLinks{}.Case(cand.RunID, c.ID), "ui-case.png")
			return
		}
	}
	t.Error("no failing case to show")
}

// TestBrowserGateToCase follows a failing gate to the cases that break
// it, as a user would: the run's header says two gates failed, the first
// gate listed is a failing one, its link opens the case table sorted or
// filtered for it, a case opens from there, and from the comparison the
// diff of a changed case.
func TestBrowserGateToCase(t *testing.T) {
	st, base, cand := failingPair(t)
	ts := httptest.NewServer(New(st, Options{}))
	defer ts.Close()
	ctx, _ := browser(t)
	do(t, ctx, chromedp.Navigate(ts.URL+serverLinks{}.Run(cand.RunID)))
	if got := run(t, ctx, chromedp.Text(chromedp.ID("run-verdict"))); got != "✗ 2 of 8 gates failed" {
		t.Errorf("run header %q", got)
	}
	first := run(t, ctx, chromedp.Text(chromedp.CSS(`#gates tbody tr:first-child`)))
	if !strings.HasPrefix(first, "✗") {
		t.Errorf("the first gate listed is not a failing one: %q", first)
	}
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`#gates tbody tr:first-child a.gate-cases`))); err != nil {
		t.Fatal(err)
	}
	loc := run(t, ctx, chromedp.Location())
	if !strings.Contains(loc, "sort=") && !strings.Contains(loc, "status=") {
		t.Errorf("the gate's link opened %s, not a filtered or sorted table", loc)
	}
	if got := run(t, ctx, chromedp.Text(chromedp.ID("case-count"))); !strings.Contains(got, "sorted by") && !strings.Contains(got, "of 24") {
		t.Errorf("case count after following the gate: %q", got)
	}
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`a.case-link`))); err != nil {
		t.Fatal(err)
	}
	if h1 := run(t, ctx, chromedp.Text(chromedp.CSS("h1"))); !strings.HasPrefix(h1, "Case ") {
		t.Errorf("the case link opened %q", h1)
	}
	do(t, ctx, chromedp.Navigate(ts.URL+serverLinks{}.Compare(base.RunID, cand.RunID)))
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`#diffs a.diff-link`))); err != nil {
		t.Fatal(err)
	}
	if h1 := run(t, ctx, chromedp.Text(chromedp.CSS("h1"))); !strings.HasSuffix(h1, "baseline → candidate") {
		t.Errorf("the diff link opened %q", h1)
	}
}

func shot(t *testing.T, ctx context.Context, url, name string) {
	t.Helper()
	do(t, ctx, chromedp.Navigate(url))
	png := run(t, ctx, chromedp.CaptureScreenshot())
	if err := os.WriteFile(filepath.Join("..", "docs", name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBrowserHostileAnswer opens the case with the hostile answer: it is
// shown as text, and none of its markup became an element or ran.
func TestBrowserHostileAnswer(t *testing.T) {
	f := getFixture(t)
	ctx, _ := browser(t)
	ts := httptest.NewServer(New(f.st, Options{}))
	defer ts.Close()
	for _, u := range []string{serverLinks{}.Case(f.hCand, "h1"), serverLinks{}.CompareCase(f.hBase, f.hCand, "h1")} {
		do(t, ctx, chromedp.Navigate(ts.URL+u))
		answer := run(t, ctx, chromedp.Text(chromedp.CSS(".answer")))
		for _, want := range []string{"<script>window.__pwned=1</script>", `"><img src=x onerror="window.__pwned=2">`, `<a href="javascript:window.__pwned=4">`} {
			if !strings.Contains(answer, want) {
				t.Errorf("%s: the answer does not show %q as text: %q", u, want, answer)
			}
		}
		if n := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("main script, main img, .answer a, a[href^='javascript']").length`)); n != 0 {
			t.Errorf("%s: %d script, img or javascript: elements in the page", u, n)
		}
		// Every link in the page is the UI's own.
		hrefs := run(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("a")).map(a => a.href)`))
		for _, h := range hrefs {
			if !strings.HasPrefix(h, ts.URL+"/") {
				t.Errorf("%s: a link off the UI: %s", u, h)
			}
		}
		if got := run(t, ctx, chromedp.Evaluate[string](pwned)); got != "undefined" {
			t.Errorf("%s: window.__pwned is %s", u, got)
		}
		// The 400-character unbroken string wraps: the page is no wider
		// than the window.
		if w := run(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 1280 {
			t.Errorf("%s: the page is %d px wide: a long string does not wrap", u, w)
		}
	}
}

// TestBrowserStaticReport opens the static report from disk: no server,
// no request but its own files, and its links work.
func TestBrowserStaticReport(t *testing.T) {
	st, base, cand := hostilePair(t)
	out := t.TempDir()
	if _, err := WriteStatic(context.Background(), out, st, cand, base); err != nil {
		t.Fatal(err)
	}
	ctx, req := browser(t)
	index := "file://" + filepath.ToSlash(filepath.Join(out, "index.html"))
	do(t, ctx, chromedp.Navigate(index))
	if got := run(t, ctx, chromedp.Text(chromedp.ID("pass-rate"))); got != "33.3%" {
		t.Errorf("static run page pass rate %q", got)
	}
	// Styled: the inline stylesheet applies (the CSP allows it).
	if bg := run(t, ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("header")).backgroundColor`)); bg != "rgb(36, 41, 47)" {
		t.Errorf("header background %q: the stylesheet did not apply", bg)
	}
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`a.case-link`))); err != nil {
		t.Fatal(err)
	}
	if h1 := run(t, ctx, chromedp.Text(chromedp.CSS("h1"))); !strings.HasPrefix(h1, "Case ") {
		t.Errorf("the case link opened %q", h1)
	}
	do(t, ctx, chromedp.Navigate("file://"+filepath.ToSlash(filepath.Join(out, "compare.html"))))
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`#diffs a.diff-link`))); err != nil {
		t.Fatal(err)
	}
	if got := run(t, ctx, chromedp.Evaluate[string](pwned)); got != "undefined" {
		t.Errorf("window.__pwned is %s", got)
	}
	if off := req.offMachine("file://" + filepath.ToSlash(out)); len(off) > 0 {
		t.Errorf("requests outside the report: %v", off)
	}
}

// TestBrowserForeignHostAndPathRef is DNS rebinding in a real browser:
// Chromium is told that evil.example is 127.0.0.1 (what a rebinding DNS
// answer tells it), so a page of evil.example reaches the UI's port with
// Host: evil.example. The UI answers 421 and shows nothing of the store
// (what a script of the rebound page would fetch is the same 421); the
// UI's own address and localhost are served; a REF that is a path,
// though it names a real run.json, is 404.
func TestBrowserForeignHostAndPathRef(t *testing.T) {
	f := getFixture(t)
	ctx, _ := browser(t)
	base := serveUI(t, f.st, Options{})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(base, "http://"))
	status := func(u string) (int64, string) {
		t.Helper()
		resp, err := chromedp.RunResponse(ctx, chromedp.Navigate(u))
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		return resp.Status, run(t, ctx, chromedp.Evaluate[string](`document.documentElement.innerText`))
	}
	evil := "http://evil.example:" + port
	for _, u := range []string{evil + "/", evil + serverLinks{}.Run(f.qsCand), evil + "/assets/style.css"} {
		code, text := status(u)
		if code != 421 {
			t.Errorf("%s: status %d, want 421", u, code)
		}
		if strings.Contains(text, "quickstart") || strings.Contains(text, f.qsCand) {
			t.Errorf("%s: the page shows the store: %q", u, text)
		}
	}
	for _, u := range []string{base + "/", "http://localhost:" + port + "/"} {
		if code, text := status(u); code != 200 || !strings.Contains(text, "quickstart") {
			t.Errorf("%s: status %d, want the runs page", u, code)
		}
	}
	runJSON := filepath.Join(f.dir, "runs", f.qsCand, "run.json")
	for _, ref := range []string{runJSON, "runs/" + f.qsCand, "../store/runs/" + f.qsCand + "/run.json"} {
		u := base + "/run/" + url.PathEscape(ref)
		code, text := status(u)
		if code != 404 {
			t.Errorf("%s: status %d, want 404", u, code)
		}
		if strings.Contains(text, "quickstart") || strings.Contains(text, f.dir) || strings.Contains(text, "no such file") {
			t.Errorf("%s: the page says %q", u, text)
		}
	}
}

// TestBrowserJudge opens the judged runs of the static report: the run
// page says the budget stopped the judging, and a case page shows each
// criterion's score (and the one not judged, with why), the judge's
// reasoning, its tokens and its cost.
func TestBrowserJudge(t *testing.T) {
	st, base, cand := hostilePair(t)
	out := t.TempDir()
	if _, err := WriteStatic(context.Background(), out, st, cand, base); err != nil {
		t.Fatal(err)
	}
	ctx, _ := browser(t)
	do(t, ctx, chromedp.Navigate("file://"+filepath.ToSlash(filepath.Join(out, "index.html"))))
	if got := run(t, ctx, chromedp.Text(chromedp.ID("judge-budget"))); !strings.HasPrefix(got, "Judging stopped: budget max_calls 2 reached.") {
		t.Errorf("run page: budget notice %q", got)
	}
	if got := run(t, ctx, chromedp.Text(chromedp.ID("judge"))); !strings.Contains(got, "grader-1") || !strings.Contains(got, "cost") {
		t.Errorf("run page: judge summary %q", got)
	}
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`a.case-link`))); err != nil {
		t.Fatal(err)
	}
	scores := run(t, ctx, chromedp.Text(chromedp.CSS(".judge-scores")))
	for _, want := range []string{"relevance", "0.8000", "groundedness", "not judged", "no passage text"} {
		if !strings.Contains(scores, want) {
			t.Errorf("case page: the judge's scores %q lack %q", scores, want)
		}
	}
	if got := run(t, ctx, chromedp.Text(chromedp.CSS(".judge-reason"))); got != "stand-in rule: no marker" {
		t.Errorf("case page: reasoning %q", got)
	}
	usage := run(t, ctx, chromedp.Text(chromedp.CSS(".judge-usage")))
	if !regexp.MustCompile(`calls 1 · tokens [1-9][0-9]* prompt \+ [1-9][0-9]* completion · cost 0\.0[0-9]+`).MatchString(usage) {
		t.Errorf("case page: judge usage %q", usage)
	}
}

// TestBrowserJudgeBreaker: a run whose judge endpoint failed five requests
// in a row shows, on its run page, that the circuit breaker stopped the
// judging and why.
func TestBrowserJudgeBreaker(t *testing.T) {
	srv := llmtest.New(t, llmtest.Handlers{})
	srv.Inject(1000, llmtest.Fault{Status: 503})
	retries := 0
	dir := filepath.Join(t.TempDir(), "store")
	res, err := harness.Run(context.Background(), opened(harness.Plan{SuitePath: quickstart, StoreDir: dir, Trials: 1, Concurrency: 1, Timeout: time.Minute,
		Judge: harness.JudgeOptions{Config: &assay.JudgeConfig{URL: srv.URL, Model: "grader-1", Retries: &retries}}}))
	if res == nil {
		t.Fatal(err)
	}
	id := res.Runs[0].RunID
	res.Close()
	st, err := store.Open(dir, store.OpenOptions{ForReading: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ts := httptest.NewServer(New(st, Options{}))
	defer ts.Close()
	ctx, _ := browser(t)
	do(t, ctx, chromedp.Navigate(ts.URL+serverLinks{}.Run(id)))
	got := run(t, ctx, chromedp.Text(chromedp.ID("judge-breaker")))
	if !strings.HasPrefix(got, "Judging stopped: the judge endpoint is down (5 requests in a row failed") {
		t.Errorf("run page: breaker notice %q", got)
	}
}
