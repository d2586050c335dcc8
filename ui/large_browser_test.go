package ui

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/internal/largetest"
	"github.com/assay-eval/assay/store"
	"github.com/chromedp/chromedp"
)

// large is a store with two synthetic 100,000-case runs with
// observations (synthRun): a baseline, and a candidate gated against it
// (pass_rate >= 0.95 and no_new_failures(strict) fail: a tenth of its cases fail,
// none of which failed in the baseline; the latency gate holds). It is made once per test binary, by the first test
// that asks for it, and removed by TestMain.
var large struct {
	once       sync.Once
	dir        string
	st         store.Store
	base, cand string
	err        error
}

const largeCases = 100_000

// largeGates are the candidate's gates, in the order it lists them.
var largeGates = []string{"pass_rate >= 0.95", "no_new_failures(strict)", "p95_latency_ms <= 1000"}

func getLarge(t *testing.T) (st store.Store, base, cand string) {
	t.Helper()
	largetest.Skip(t, "stores two 100,000-case runs")
	large.once.Do(func() {
		large.dir, large.err = os.MkdirTemp("", "assay-ui-large-")
		if large.err != nil {
			return
		}
		large.st, large.err = store.Open(filepath.Join(large.dir, "store"), store.OpenOptions{})
		if large.err != nil {
			return
		}
		start := time.Now()
		b := synthRunOf(t, large.st, largeCases, 0, true, nil)
		c := synthRunOf(t, large.st, largeCases, 3, true, func(r *assay.Run) {
			var exprs []gate.Expr
			for _, g := range largeGates {
				e, err := gate.Parse(g, "--gate")
				if err != nil {
					t.Fatal(err)
				}
				exprs = append(exprs, e)
			}
			r.Gates = gate.EvaluateExprs(exprs, r, b).Results
			for _, g := range r.Gates {
				t.Logf("gate %s: pass %v, %s", g.Expr, g.Pass, g.Detail)
			}
			r.Baseline = b.RunID
		})
		large.base, large.cand = b.RunID, c.RunID
		t.Logf("stored two %d-case runs in %v", largeCases, time.Since(start).Round(time.Millisecond))
	})
	if large.err != nil || large.cand == "" {
		t.Fatalf("the 100,000-case store could not be made: %v", large.err)
	}
	return large.st, large.base, large.cand
}

// removeLarge closes and removes the large store (TestMain).
func removeLarge() {
	if large.st != nil {
		large.st.Close()
	}
	if large.dir != "" {
		os.RemoveAll(large.dir)
	}
}

// served is what the server spent on one request: its time in the
// handler (the page's server time, without the network or the browser)
// and the bytes of its body.
type served struct {
	uri   string
	code  int
	dur   time.Duration
	bytes int
}

// timedHandler records each request h serves.
type timedHandler struct {
	h    http.Handler
	mu   sync.Mutex
	reqs []served
}

type servedWriter struct {
	http.ResponseWriter
	code  int
	bytes int
}

func (w *servedWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *servedWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

func (th *timedHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	cw := &servedWriter{ResponseWriter: w, code: 200}
	start := time.Now()
	th.h.ServeHTTP(cw, r)
	d := time.Since(start)
	th.mu.Lock()
	th.reqs = append(th.reqs, served{r.URL.RequestURI(), cw.code, d, cw.bytes})
	th.mu.Unlock()
}

// last is the last request for a page (not an asset) whose URI starts
// with prefix.
func (th *timedHandler) last(t *testing.T, prefix string) served {
	t.Helper()
	th.mu.Lock()
	defer th.mu.Unlock()
	for i := len(th.reqs) - 1; i >= 0; i-- {
		if strings.HasPrefix(th.reqs[i].uri, prefix) {
			return th.reqs[i]
		}
	}
	t.Fatalf("the server saw no request for %s", prefix)
	return served{}
}

// slack is how many times its goal a page may take in these tests: the
// goals are for an idle machine, and the tests share two cores with
// everything else (a load average of 20 to 40 is common). It grows with
// the load average per core, and is at least 10.
func slack() float64 {
	f := 10.0
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if fields := strings.Fields(string(b)); len(fields) > 0 {
			if l, err := strconv.ParseFloat(fields[0], 64); err == nil {
				f = max(f, 2*l/float64(runtime.NumCPU()))
			}
		}
	}
	return f
}

// checkServed fails when the page took more than goal times the slack or
// is 1 MB or more of HTML, and logs its figures.
func checkServed(t *testing.T, what string, s served, goal time.Duration) {
	t.Helper()
	t.Logf("%s: %v server time (goal %v), %d bytes: %s", what, s.dur.Round(100*time.Microsecond), goal, s.bytes, s.uri)
	if s.code != 200 {
		t.Errorf("%s: status %d", what, s.code)
	}
	if limit := time.Duration(float64(goal) * slack()); s.dur > limit {
		t.Errorf("%s took %v of server time: more than %v (its goal %v, times the slack for the machine's load)", what, s.dur, limit, goal)
	}
	if s.bytes >= 1e6 {
		t.Errorf("%s is %d bytes of HTML: want under 1 MB", what, s.bytes)
	}
}

// synthFails reports whether case i of a synthRun of variant v fails.
func synthFails(i, v int) bool { return (i+v)%10 == 0 }

var caseNum = regexp.MustCompile(`^q(\d{6})$`)

// TestBrowserLarge is the UI at 100,000 cases, as a user goes from a
// failing run to why: the run page says which gates failed, the failing
// pass_rate gate's link opens the failing cases (and only those), a case
// opens with its failing check, its diff against the baseline shows it
// passed there, and so does its history; the no_new_failures gate's link
// opens the comparison with the new failures. Each page's server time is
// held to the goals (run page 300 ms, case page, diff and history 100 ms,
// compare page 1 s, times slack) and each is under 1 MB of HTML.
func TestBrowserLarge(t *testing.T) {
	st, base, cand := getLarge(t)
	th := &timedHandler{h: New(st, Options{})}
	ts := httptest.NewServer(th)
	defer ts.Close()
	ctx, req := browser(t)
	L := serverLinks{}

	// The run page, cold.
	do(t, ctx, chromedp.Navigate(ts.URL+L.Run(cand)))
	checkServed(t, "run page", th.last(t, L.Run(cand)), 300*time.Millisecond)
	if got := run(t, ctx, chromedp.Text(chromedp.ID("run-verdict"))); got != "✗ 2 of 3 gates failed" {
		t.Errorf("run header %q, want ✗ 2 of 3 gates failed", got)
	}
	if got := run(t, ctx, chromedp.Text(chromedp.ID("case-count"))); !strings.HasPrefix(got, "100000 of 100000") {
		t.Errorf("case count of the run page %q", got)
	}
	first := run(t, ctx, chromedp.Text(chromedp.CSS(`#gates tbody tr:first-child`)))
	if !strings.HasPrefix(first, "✗") || !strings.Contains(first, "pass_rate >= 0.95") {
		t.Fatalf("the first gate listed is not the failing pass_rate gate: %q", first)
	}

	// Its failing pass_rate gate's link: the failing cases.
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`#gates tbody tr:first-child a.gate-cases`))); err != nil {
		t.Fatal(err)
	}
	loc := run(t, ctx, chromedp.Location())
	if !strings.Contains(loc, "status=failing") {
		t.Fatalf("the pass_rate gate's link opened %s, not the failing cases", loc)
	}
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatal(err)
	}
	checkServed(t, "failing cases", th.last(t, u.RequestURI()), 300*time.Millisecond)
	if got := run(t, ctx, chromedp.Text(chromedp.ID("case-count"))); !strings.HasPrefix(got, "10000 of 100000") {
		t.Errorf("case count after following the gate %q, want 10000 of 100000 (the failing tenth)", got)
	}
	ids := run(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("a.case-link")).map(a => a.textContent.trim())`))
	if len(ids) != DefaultPageSize {
		t.Errorf("%d case links on the first page of failing cases, want %d", len(ids), DefaultPageSize)
	}
	for _, id := range ids {
		m := caseNum.FindStringSubmatch(id)
		if m == nil {
			t.Errorf("case link %q: not a case id", id)
			continue
		}
		if i, _ := strconv.Atoi(m[1]); !synthFails(i, 3) {
			t.Errorf("case %s is listed as failing; it passed", id)
		}
	}
	if len(ids) == 0 {
		t.FailNow()
	}

	// A case, with its failing check.
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`a.case-link`))); err != nil {
		t.Fatal(err)
	}
	id := ids[0]
	checkServed(t, "case page", th.last(t, L.Case(cand, id)), 100*time.Millisecond)
	if h1 := run(t, ctx, chromedp.Text(chromedp.CSS("h1"))); h1 != "Case "+id {
		t.Errorf("the case link opened %q, want Case %s", h1, id)
	}
	check := run(t, ctx, chromedp.Text(chromedp.CSS(`ul.checks li.bad`)))
	if !strings.Contains(check, `answer_includes: missing "sha-256"`) {
		t.Errorf("the case page's failing check %q", check)
	}

	// Its diff against the baseline, where it passed.
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.ID("baseline-diff"))); err != nil {
		t.Fatal(err)
	}
	checkServed(t, "case diff", th.last(t, L.CompareCase(base, cand, id)), 100*time.Millisecond)
	if h1 := run(t, ctx, chromedp.Text(chromedp.CSS("h1"))); h1 != "Case "+id+": baseline → candidate" {
		t.Errorf("the diff link opened %q", h1)
	}
	sides := run(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll(".side")).map(s => s.textContent)`))
	if n, _ := strconv.Atoi(caseNum.FindStringSubmatch(id)[1]); synthFails(n, 0) {
		t.Fatalf("case %s failed in the baseline too: the test needs a new failure", id)
	}
	if len(sides) < 2 || !strings.Contains(sides[len(sides)-2], "✓") || !strings.Contains(sides[len(sides)-1], `missing "sha-256"`) {
		t.Errorf("the diff does not show the case passing in the baseline and failing in the candidate: %q", sides)
	}

	// The case's history (a history cell's row), from its page: passed in
	// the baseline, failed in the candidate.
	do(t, ctx, chromedp.Navigate(ts.URL+L.Case(cand, id)))
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`p.meta a[href^="/history"]`))); err != nil {
		t.Fatal(err)
	}
	checkServed(t, "case history", th.last(t, L.History("bench", id)), 100*time.Millisecond)
	cells := run(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#history tbody td.cell")).map(c => c.className)`))
	if len(cells) != 2 || cells[0] != "cell pass" || cells[1] != "cell fail" {
		t.Errorf("the case's history shows %q, want it passing in the baseline and failing in the candidate", cells)
	}

	// The no_new_failures gate's link: the comparison of the two runs,
	// at its new failures.
	do(t, ctx, chromedp.Navigate(ts.URL+L.Run(cand)))
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`#gates tbody tr:nth-child(2) a.gate-cases`))); err != nil {
		t.Fatal(err)
	}
	loc = run(t, ctx, chromedp.Location())
	if u, err = url.Parse(loc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(u.Path, "/compare") || u.Query().Get("flips") != "pass-to-fail" {
		t.Fatalf("the no_new_failures gate's link opened %s, not the new failures", loc)
	}
	checkServed(t, "compare page at its new failures", th.last(t, u.RequestURI()), time.Second)
	flips := run(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#pass-to-fail a.diff-link")).map(a => a.textContent.trim())`))
	if len(flips) == 0 {
		t.Errorf("the comparison lists no new failures")
	}
	for _, id := range flips {
		m := caseNum.FindStringSubmatch(id)
		if m == nil {
			t.Errorf("new failure %q: not a case id", id)
			continue
		}
		if i, _ := strconv.Atoi(m[1]); synthFails(i, 0) || !synthFails(i, 3) {
			t.Errorf("case %s is listed as a new failure; it is not one", id)
		}
	}
	if off := req.offMachine(ts.URL); len(off) > 0 {
		t.Errorf("requests off the machine: %v", off)
	}
}
