package ui

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// axeRun runs axe-core (testdata/axe, injected into the page; the UI
// never serves it) and returns its serious and critical violations.
const axeRun = `axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(
	r.violations.filter(v => v.impact === "serious" || v.impact === "critical").map(v => ({
		id: v.id, impact: v.impact, help: v.help,
		nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ") + ": " + n.failureSummary)}))))`

// axeBatch is how many pages are checked within one time limit
// (a loaded machine takes several seconds a page).
const axeBatch = 8

type axeViolation struct {
	ID, Impact, Help string
	Nodes            []string
}

// TestBrowserAccessible opens every kind of page (runs, run, a filtered
// and sorted run, case, compare, case diff, history, a case's history, an
// error page, and the static report's pages; morePageKinds adds more) at
// 1400 and at 390 px wide
// and runs axe-core on it: no serious or critical violation. At 390 px
// the page reflows: it is no wider than the window (a wide table scrolls
// in its own box).
func TestBrowserAccessible(t *testing.T) {
	f := getFixture(t)
	src, err := os.ReadFile(filepath.Join("testdata", "axe", "axe.min.js"))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(New(f.st, Options{}))
	defer ts.Close()
	c := serverLinks{}
	urls := []string{
		ts.URL + "/",
		ts.URL + c.Run(f.qsCand),
		ts.URL + c.Run(f.qsCand) + "?status=failing&sort=-latency",
		ts.URL + c.Run(f.qsStop),
		ts.URL + c.Case(f.qsCand, "invite-token-hash"),
		ts.URL + c.Case(f.hCand, "h1"),
		ts.URL + c.Compare(f.qsBase, f.qsCand),
		ts.URL + c.Compare(f.hBase, f.hCand),
		ts.URL + c.CompareCase(f.hBase, f.hCand, "h1"),
		ts.URL + c.History("quickstart", "") + "&all=1",
		ts.URL + c.History("hostile", "h1") + "&all=1",
		ts.URL + "/run/no-such-run",
	}
	out := t.TempDir()
	static, err := WriteStatic(context.Background(), out, f.st, f.hCand, f.hBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"index.html", "compare.html"} {
		urls = append(urls, "file://"+filepath.ToSlash(filepath.Join(out, p)))
	}
	// Each page is loaded once, at 1400 px, and checked there; the
	// window then narrows to 390 px and it is checked again. The UI's
	// pages have no script, so what lays them out at 390 px is their
	// stylesheet's media queries, which follow the window as they would
	// on a fresh load. Each batch of pages has its own time limit.
	urls = append(urls, morePageKinds(t, f, ts.URL, static)...)
	for start := 0; start < len(urls); start += axeBatch {
		ctx, _ := browser(t)
		for _, u := range urls[start:min(start+axeBatch, len(urls))] {
			name := strings.TrimPrefix(u, ts.URL)
			do(t, ctx, chromedp.EmulateViewport(1400, 900), chromedp.Navigate(u), chromedp.Evaluate[chromedp.Void](string(src)))
			for _, width := range []int64{1400, 390} {
				do(t, ctx, chromedp.EmulateViewport(width, 900))
				if got := run(t, ctx, chromedp.Evaluate[int64](`window.innerWidth`)); got != width {
					t.Fatalf("%s: the window is %d px wide, want %d", name, got, width)
				}
				raw := run(t, ctx, chromedp.Evaluate[string](axeRun, chromedp.EvalAwaitPromise))
				var vs []axeViolation
				if err := json.Unmarshal([]byte(raw), &vs); err != nil {
					t.Fatalf("%s: axe said %s: %v", u, raw, err)
				}
				for _, v := range vs {
					t.Errorf("%d px %s: %s (%s): %s\n\t%s", width, name, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n\t"))
				}
				if width == 390 {
					if w := run(t, ctx, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`)); w > width {
						t.Errorf("390 px %s: the page is %d px wide: it does not reflow", name, w)
					}
				}
			}
		}
	}
}
