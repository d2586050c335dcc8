package ui

import (
	"bytes"
	"context"
	"html"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/report"
)

func get(t *testing.T, h http.Handler, method, target string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	return rec
}

func body(t *testing.T, h http.Handler, target string) string {
	t.Helper()
	rec := get(t, h, "GET", target)
	if rec.Code != 200 {
		t.Fatalf("GET %s: %d %s", target, rec.Code, rec.Body.String())
	}
	return rec.Body.String()
}

// pageURLs are one URL of every page over the fixture.
func pageURLs(f *fixture) []string {
	c := serverLinks{}
	return []string{
		"/",
		c.Runs("quickstart"),
		c.Run(f.qsCand),
		c.Run(f.qsCand) + "?status=failing",
		c.Run(f.qsStop),
		c.Run(f.hCand),
		c.Case(f.qsCand, "invite-token-hash"),
		c.Case(f.hCand, "h1"),
		c.Case(f.hCand, `q"><b>3`),
		"/compare",
		c.Compare(f.qsBase, f.qsCand),
		c.Compare(f.hBase, f.hCand),
		c.Compare(f.qsCand, f.hCand), // two suites: nothing paired, said as a warning
		c.Compare(f.qsStop, f.qsCand),
		c.CompareCase(f.hBase, f.hCand, "h1"),
		c.History("quickstart", ""),
		c.History("hostile", "h1") + "&all=1",
	}
}

func TestEveryPageServes(t *testing.T) {
	f := getFixture(t)
	h := New(f.st, Options{})
	for _, u := range pageURLs(f) {
		rec := get(t, h, "GET", u)
		if rec.Code != 200 {
			t.Errorf("GET %s: %d %s", u, rec.Code, rec.Body.String())
			continue
		}
		if ct := rec.Header().Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("GET %s: Content-Type %q", u, ct)
		}
		if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("GET %s: Content-Security-Policy %q", u, csp)
		}
		if rec := get(t, h, "HEAD", u); rec.Code != 200 {
			t.Errorf("HEAD %s: %d", u, rec.Code)
		}
	}
}

func TestOtherMethodsAre405(t *testing.T) {
	f := getFixture(t)
	h := New(f.st, Options{})
	for _, m := range []string{"POST", "PUT", "PATCH", "DELETE", "OPTIONS"} {
		for _, u := range []string{"/", serverLinks{}.Run(f.qsCand), "/assets/style.css", "/nope"} {
			rec := get(t, h, m, u)
			if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: %d, Allow %q; want 405 with Allow: GET, HEAD", m, u, rec.Code, rec.Header().Get("Allow"))
			}
		}
	}
}

func TestBadRequestsSayWhy(t *testing.T) {
	f := getFixture(t)
	h := New(f.st, Options{})
	for _, tc := range []struct {
		url  string
		code int
		msg  string
	}{
		{"/run/ffffffff", 404, "no such run"},
		{serverLinks{}.Case(f.qsCand, "no-such-case"), 404, "not in run"},
		{serverLinks{}.Run(f.qsCand) + "?status=bogus", 400, "want one of failing"},
		{serverLinks{}.Run(f.qsCand) + "?page=0", 400, "page=&#34;0&#34;"},
		{"/compare/case?base=x", 400, "needs base, cand and id"},
		{serverLinks{}.Compare(f.qsBase, f.qsCand) + "&flips=bogus", 400, "want one of pass-to-fail"},
		{serverLinks{}.Compare(f.qsBase, f.qsCand) + "&flips=fail-to-pass&page=0", 400, "page=&#34;0&#34;"},
		{serverLinks{}.Compare(f.qsBase, f.qsCand) + "&flips=fail-to-pass&page=3", 200, `<p id="fail-to-pass">`},
		{"/nowhere", 404, ""},
		{"/?suite=nosuch", 200, "No runs of suite nosuch in this store"},
	} {
		rec := get(t, h, "GET", tc.url)
		if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.msg) {
			t.Errorf("GET %s: %d %q; want %d with %q", tc.url, rec.Code, rec.Body.String(), tc.code, tc.msg)
		}
	}
}

// hostileRaw are strings of the hostile suite and traces that must never
// reach a page as markup.
var hostileRaw = []string{
	"<script>window.__pwned",
	`<img src=x onerror`,
	`"><b>3`,
	`href="javascript:`,
	"<b>boom</b>",
	"<b>quote</b>",
}

func TestHostileTextIsEscaped(t *testing.T) {
	f := getFixture(t)
	h := New(f.st, Options{})
	var all strings.Builder
	for _, u := range pageURLs(f) {
		b := body(t, h, u)
		all.WriteString(b)
		for _, raw := range hostileRaw {
			if strings.Contains(b, raw) {
				t.Errorf("GET %s: raw %q in the page", u, raw)
			}
		}
	}
	// The hostile answer is there, as text.
	for _, want := range []string{"&lt;script&gt;window.__pwned=1&lt;/script&gt;", "javascript:window.__pwned=6", strings.Repeat("A", 400)} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("no page shows %q", want)
		}
	}
}

func TestNoRequestLeavesTheMachine(t *testing.T) {
	f := getFixture(t)
	h := New(f.st, Options{})
	ext := regexp.MustCompile(`(?i)(src|href|action)\s*=\s*"(https?:|//)`)
	for _, u := range pageURLs(f) {
		if m := ext.FindString(body(t, h, u)); m != "" {
			t.Errorf("GET %s: a reference off the machine: %s", u, m)
		}
	}
}

// TestFiguresMatchTheCLI checks the run page against what `assay runs
// show` prints (report.Text) and the compare page against `assay
// compare` (report.CompareText), for the same runs.
func TestFiguresMatchTheCLI(t *testing.T) {
	f := getFixture(t)
	h := New(f.st, Options{})
	for _, id := range []string{f.qsCand, f.qsStop, f.hCand} {
		run, _, err := harness.LoadRef(context.Background(), f.st, id)
		if err != nil {
			t.Fatal(err)
		}
		harness.Summarized(run)
		var text bytes.Buffer
		if err := report.Text(&text, run, report.TextOptions{}); err != nil {
			t.Fatal(err)
		}
		page := html.UnescapeString(body(t, h, serverLinks{}.Run(id)))
		metric := regexp.MustCompile(`(?m)^  (\S+)\s+(\d\.\d{4})  n=(\d+)$`)
		ms := metric.FindAllStringSubmatch(text.String(), -1)
		if len(ms) == 0 && id != f.qsStop {
			t.Fatalf("run %s: no metric in the text report:\n%s", id, text.String())
		}
		for _, m := range ms {
			want := "<td>" + m[1] + `</td><td class="num">` + m[2] + `</td><td class="num">` + m[3] + "</td>"
			if !strings.Contains(page, want) {
				t.Errorf("run %s: the page lacks %s %s n=%s (want %s)", id, m[1], m[2], m[3], want)
			}
		}
		pr := regexp.MustCompile(`pass rate (\S+)`).FindStringSubmatch(text.String())
		if !strings.Contains(page, `<td id="pass-rate">`+pr[1]+"</td>") {
			t.Errorf("run %s: the page lacks pass rate %s", id, pr[1])
		}
		lat := regexp.MustCompile(`latency  p50 (\S+)  p95 (\S+)  p99 (\S+)  max (\S+)`).FindStringSubmatch(text.String())
		if lat != nil && !strings.Contains(page, "<th>p95</th><td>"+lat[2]+" ms</td>") {
			t.Errorf("run %s: the page lacks latency p95 %s", id, lat[2])
		}
		for _, g := range run.Gates {
			if !strings.Contains(page, `<td class="mono">`+g.Expr+"</td>") {
				t.Errorf("run %s: the page lacks gate %s", id, g.Expr)
			}
		}
	}
	for _, pair := range [][2]string{{f.qsBase, f.qsCand}, {f.hBase, f.hCand}} {
		rep, err := harness.CompareRefs(context.Background(), f.st, pair[0], pair[1], harness.CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var text bytes.Buffer
		report.CompareText(&text, rep)
		page := html.UnescapeString(body(t, h, serverLinks{}.Compare(pair[0], pair[1])))
		row := regexp.MustCompile(`(?m)^(\S+)\s+(\d\.\d{4})\s+(\d\.\d{4})\s+([+-]\d\.\d{4})\s+\[([+-]\d\.\d{4}), ([+-]\d\.\d{4})\]\s+(\S+)`)
		rows := row.FindAllStringSubmatch(text.String(), -1)
		if len(rows) == 0 {
			t.Fatalf("no measure rows in:\n%s", text.String())
		}
		for _, m := range rows {
			want := "<td>" + m[1] + `</td><td class="num">` + m[2] + `</td><td class="num">` + m[3] + `</td><td class="num">` + m[4] + `</td><td class="num">[` + m[5] + ", " + m[6] + `]</td><td class="num">` + m[7] + "</td>"
			if !strings.Contains(page, want) {
				t.Errorf("compare %s: the page lacks the row %q", m[1], want)
			}
		}
		verdict := regexp.MustCompile(`verdict: (\S+)`).FindStringSubmatch(text.String())[1]
		if !strings.Contains(page, "verdict: "+verdict) {
			t.Errorf("compare: the page lacks verdict %s", verdict)
		}
		for _, id := range rep.Flips.PassToFail {
			if !strings.Contains(page, ">"+id+"</a>") {
				t.Errorf("compare: the page lacks the pass → fail flip %s", id)
			}
		}
	}
}

func TestCaseTableFilters(t *testing.T) {
	f := getFixture(t)
	h := New(f.st, Options{PageSize: 5})
	run := serverLinks{}.Run(f.qsCand)
	count := regexp.MustCompile(`id="case-count">(\d+) of (\d+) case trials`)
	n := func(q string) int {
		m := count.FindStringSubmatch(body(t, h, run+q))
		if m == nil {
			t.Fatalf("no count on %s", run+q)
		}
		var v int
		for _, c := range m[1] {
			v = v*10 + int(c-'0')
		}
		return v
	}
	if all := n(""); all != 24 {
		t.Errorf("all: %d, want 24", all)
	}
	if got := n("?status=failing"); got != 1 {
		t.Errorf("failing: %d, want 1", got)
	}
	if got := n("?status=ungraded"); got != 1 {
		t.Errorf("ungraded: %d, want 1", got)
	}
	if got := n("?status=passing"); got != 22 {
		t.Errorf("passing: %d, want 22", got)
	}
	if got := n("?tag=category%3Dsecurity"); got != 5 {
		t.Errorf("tag category=security: %d, want 5", got)
	}
	if got := n("?q=invite"); got != 2 {
		t.Errorf("q=invite: %d, want 2", got)
	}
	// Paging: 24 rows at 5 a page is 5 pages, the last with 4 rows.
	last := body(t, h, run+"?page=5")
	if !strings.Contains(last, "page 5 of 5") || strings.Count(last, `class=case-link`) != 4 || !strings.Contains(last, `rel="prev"`) {
		t.Errorf("page 5: want 4 rows and a previous link")
	}
	if got := n("?status=errored"); got != 0 {
		t.Errorf("errored: %d, want 0", got)
	}
	stopped := body(t, h, serverLinks{}.Run(f.qsStop)+"?status=errored")
	if !strings.Contains(stopped, "1 of 4 case trials") || !strings.Contains(stopped, "error missing") {
		t.Errorf("the stopped run's errored case is not listed:\n%s", stopped)
	}
}

func TestRunsPageMarksIncompleteRuns(t *testing.T) {
	f := getFixture(t)
	b := body(t, New(f.st, Options{}), "/?suite=quickstart")
	// Three runs: the incomplete one is a × on each chart and not a point.
	if got := strings.Count(b, `<g class="incomplete">`); got == 0 {
		t.Errorf("no incomplete mark on the trend charts")
	}
	charts := strings.Count(b, `<figure class="chart">`)
	if got := strings.Count(b, `<circle `); got != 2*charts {
		t.Errorf("%d points on %d charts, want 2 each (the complete runs)", got, charts)
	}
	// The default comparison is the latest two complete runs.
	if !regexp.MustCompile(`name="base" value="`+f.qsBase+`" checked`).MatchString(b) || !regexp.MustCompile(`name="cand" value="`+f.qsCand+`" checked`).MatchString(b) {
		t.Errorf("the latest two complete runs are not preselected")
	}
	cmp := body(t, New(f.st, Options{}), "/compare?suite=quickstart")
	if !strings.Contains(cmp, short(f.qsBase)) || !strings.Contains(cmp, short(f.qsCand)) {
		t.Errorf("/compare?suite=quickstart does not compare the latest two complete runs")
	}
}

func short(id string) string { return report.ShortID(id) }

func TestCasePageShowsTheCase(t *testing.T) {
	f := getFixture(t)
	b := body(t, New(f.st, Options{}), serverLinks{}.Case(f.hCand, "h1"))
	for _, want := range []string{
		`<mark class="expected">safe</mark>`,
		`<mark class="forbidden">&lt;script&gt;</mark>`,
		"unsurfaced", "surfaced",
		"error: &lt;b&gt;boom&lt;/b&gt;",
		`class="waterfall"`,
		"raw observation JSON",
		"answer_excludes",
		"What does &lt;script&gt;window.__pwned=1&lt;/script&gt; do?",
	} {
		if !strings.Contains(b, want) {
			t.Errorf("case page lacks %q", want)
		}
	}
}

// TestJudgedCoverageShows checks the judged coverage on the pages of a
// run whose rankings hold unjudged documents (the quickstart under RM3):
// the run page's warning with each metric's range, and a case's unj@k and
// its metrics with the unjudged documents counted relevant.
func TestJudgedCoverageShows(t *testing.T) {
	f := getFixture(t)
	h := New(f.st, Options{})
	run := body(t, h, serverLinks{}.Run(f.qsCand))
	if !strings.Contains(run, "of the top-10 documents are unjudged (more than 5 %) and count as non-relevant: ndcg@10 is a lower bound, between") {
		t.Errorf("run page lacks the judged-coverage warning")
	}
	b := body(t, h, serverLinks{}.Case(f.qsCand, "attachment-size"))
	for _, want := range []string{
		`<h3>Unjudged share of the top k</h3><table class="metrics" id="unjudged"><tbody><tr><td>unj@5<td class="num">`,
		`<tr><td>unj@10<td class="num">`,
		`with the unjudged documents relevant`,
	} {
		if !strings.Contains(b, want) {
			t.Errorf("case page lacks %q", want)
		}
	}
}

func TestHistoryGrid(t *testing.T) {
	f := getFixture(t)
	b := body(t, New(f.st, Options{}), "/history?suite=hostile")
	// h1 passed then failed; h2 failed then passed; q3 passed then failed:
	// all changed.
	if !strings.Contains(b, "3 cases whose outcome changed") {
		t.Errorf("history: %s", b)
	}
	if !strings.Contains(b, `class="cell pass" title="run `+short(f.hBase)) || !strings.Contains(b, `class="cell fail" title="run `+short(f.hCand)) {
		t.Errorf("history cells missing")
	}
	if !strings.Contains(b, "ndcg@10 1.0000") {
		t.Errorf("history cell titles lack the metric value")
	}
}

// TestUINeverWrites serves every page and checks that no file of the
// store changed (the UI is read-only).
func TestUINeverWrites(t *testing.T) {
	f := getFixture(t)
	before := snapshot(t, f.dir)
	h := New(f.st, Options{})
	for _, u := range pageURLs(f) {
		body(t, h, u)
	}
	if after := snapshot(t, f.dir); after != before {
		t.Errorf("the store changed while serving:\nbefore %s\nafter  %s", before, after)
	}
}

func snapshot(t *testing.T, dir string) string {
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, _ := d.Info()
		b.WriteString(p + " " + fi.ModTime().Format(time.RFC3339Nano) + " " + strconv.FormatInt(fi.Size(), 10) + "\n")
		return nil
	})
	return b.String()
}

func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:3006": true, "[::1]:80": true, "localhost:1": true, "0.0.0.0:3006": false, ":3006": false, "192.168.1.2:80": false, "bad": false} {
		if got := Loopback(addr); got != want {
			t.Errorf("Loopback(%q) = %v", addr, got)
		}
	}
}

// TestConcurrentRequests serves the pages of one fresh server from several
// goroutines at once (the cache, the background load of a first page):
// run with -race.
func TestConcurrentRequests(t *testing.T) {
	f := getFixture(t)
	h := New(f.st, Options{PageSize: 5})
	urls := append(pageURLs(f), serverLinks{}.Run(f.hBase), serverLinks{}.Run(f.qsBase)+"?page=2")
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for g := range 6 {
		wg.Go(func() {
			for i := range urls {
				u := urls[(i+g)%len(urls)]
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", u, nil))
				if rec.Code != 200 {
					errs <- u
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for u := range errs {
		t.Errorf("GET %s failed under concurrency", u)
	}
}
