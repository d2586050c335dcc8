package ui

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness"
)

// TestRunHeaderFollowsGates: the run header says how many gates failed,
// in the failing colour, and lists the gates (failing first) above the
// summary, each linking to the cases that break it.
func TestRunHeaderFollowsGates(t *testing.T) {
	f := getFixture(t)
	h := New(f.st, Options{})
	for _, id := range []string{f.qsBase, f.qsCand, f.qsStop} {
		run, _, err := harness.LoadRef(t.Context(), f.st, id)
		if err != nil {
			t.Fatal(err)
		}
		failed := 0
		for _, g := range run.Gates {
			if !g.Pass {
				failed++
			}
		}
		page := body(t, h, serverLinks{}.Run(id))
		m := regexp.MustCompile(`<p class="verdict v-(\w+)" id="run-verdict">([^<]*)</p>`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("run %s: no verdict in the header", short(id))
		}
		class, words := m[1], m[2]
		switch {
		case failed > 0:
			if class != "bad" || !strings.Contains(words, strconv.Itoa(failed)+" of "+strconv.Itoa(len(run.Gates))+" gates failed") {
				t.Errorf("run %s: %d gates failed, header %q (%s)", short(id), failed, words, class)
			}
		case run.Status != "complete":
			if class != "warn" {
				t.Errorf("run %s is %s, header %q (%s)", short(id), run.Status, words, class)
			}
		case len(run.Gates) > 0:
			if class != "good" {
				t.Errorf("run %s passed its gates, header %q (%s)", short(id), words, class)
			}
		}
		if gi, si := strings.Index(page, `id="gates"`), strings.Index(page, `id="summary"`); len(run.Gates) > 0 && (gi < 0 || gi > si) {
			t.Errorf("run %s: the gates are not above the summary", short(id))
		}
		rows := regexp.MustCompile(`<tr class="(good|bad)"><td>[✓✗]`).FindAllStringSubmatch(page, -1)
		var seen []string
		for _, r := range rows {
			seen = append(seen, r[1])
		}
		if !slices.IsSortedFunc(seen, func(a, b string) int { return strings.Compare(a, b) }) {
			t.Errorf("run %s: gates not failing first: %v", short(id), seen)
		}
	}
}

// TestGateLinksToItsCases: each kind of gate links to the case table
// filtered or sorted to show what breaks it.
func TestGateLinksToItsCases(t *testing.T) {
	f := getFixture(t)
	page := body(t, New(f.st, Options{}), serverLinks{}.Run(f.qsCand))
	for expr, want := range map[string]string{
		"pass_rate &gt;= 0.8":       "?status=failing",
		"ndcg@10 &gt;= 0.7":         "?sort=ndcg%4010",
		"error_rate &lt;= 0":        "?status=errored",
		"p95_latency_ms &lt;= 2000": "?sort=-latency",
	} {
		re := regexp.MustCompile(`<td class="mono">` + regexp.QuoteMeta(expr) + `</td>.*?<a href="([^"]*)" class="gate-cases">`)
		m := re.FindStringSubmatch(page)
		if m == nil {
			t.Errorf("gate %s: no link to its cases", expr)
			continue
		}
		if got, w := strings.ReplaceAll(m[1], "&amp;", "&"), (serverLinks{}).Run(f.qsCand)+want; got != w {
			t.Errorf("gate %s links to %s, want %s", expr, got, w)
		}
	}
	if got := gateRows(mustLoad(t, f.qsCand)); len(got) == 0 {
		t.Fatal("no gates")
	}
}

func mustLoad(t *testing.T, id string) *assay.Run {
	t.Helper()
	run, _, err := harness.LoadRef(t.Context(), getFixture(t).st, id)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestCaseTableSorts: the case table sorts by latency, status and each
// metric from the URL, a second click reverses it, and a sort key the run
// lacks is a 400 that lists the keys.
func TestCaseTableSorts(t *testing.T) {
	f := getFixture(t)
	h := New(f.st, Options{})
	run := serverLinks{}.Run(f.qsCand)
	col := func(page string, n int) []string {
		var out []string
		tb := page[strings.Index(page, `id="cases"`):]
		tb = tb[strings.Index(tb, "<tbody>"):strings.Index(tb, "</tbody>")]
		for _, row := range strings.Split(tb, "<tr")[1:] {
			cells := strings.Split(row, "<td")
			if n < len(cells) {
				c := cells[n]
				c = c[strings.Index(c, ">")+1:]
				out = append(out, regexp.MustCompile(`<[^>]*>`).ReplaceAllString(c, ""))
			}
		}
		return out
	}
	num := func(s []string) []float64 {
		var out []float64
		for _, v := range s {
			if x, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
				out = append(out, x)
			}
		}
		return out
	}
	// Cells: 1 case, 2 status, 3 failing checks, 4 latency, 5 the first metric.
	lat := num(col(body(t, h, run+"?sort=-latency"), 4))
	if len(lat) < 10 || !slices.IsSortedFunc(lat, func(a, b float64) int { return cmpF(b, a) }) {
		t.Errorf("sort=-latency: latencies %v not slowest first", lat)
	}
	lat = num(col(body(t, h, run+"?sort=latency"), 4))
	if len(lat) < 10 || !slices.IsSorted(lat) {
		t.Errorf("sort=latency: latencies %v not fastest first", lat)
	}
	first := num(col(body(t, h, run+"?sort=ndcg%4010"), 5))
	if len(first) < 10 || !slices.IsSorted(first) {
		t.Errorf("sort=ndcg@10: %v not lowest first", first)
	}
	st := col(body(t, h, run+"?sort=status"), 2)
	if len(st) == 0 || strings.TrimSpace(st[0]) == "pass" {
		t.Errorf("sort=status: %v does not put the failing case first", st)
	}
	page := body(t, h, run+"?sort=latency")
	if !strings.Contains(page, `aria-sort="ascending"`) || !strings.Contains(page, `href="`+run+`?sort=-latency"`) {
		t.Errorf("sorted by latency: the column is not marked ascending or does not link to the reverse order")
	}
	rec := get(t, h, http.MethodGet, run+"?sort=bogus")
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "latency, status, id") {
		t.Errorf("sort=bogus: %d %s", rec.Code, rec.Body.String())
	}
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestSearchFindsQueryAndAnswer: the case search matches a case's query
// text and its answer text, which its row does not show.
func TestSearchFindsQueryAndAnswer(t *testing.T) {
	f := getFixture(t)
	h := New(f.st, Options{})
	run := serverLinks{}.Run(f.qsCand)
	// "hashed" is in the query of invite-token-hash only.
	page := body(t, h, run+"?q=HASHED")
	if !strings.Contains(page, ">invite-token-hash</a>") || strings.Contains(page, `id="case-count">24 of`) {
		t.Errorf("q=HASHED: the case whose query says it is not the one row:\n%s", grep(page, "case-count"))
	}
	views, _, _, err := harness.CaseDetail(t.Context(), f.st, mustLoad(t, f.qsCand), "", "invite-token-hash")
	if err != nil || len(views) == 0 || views[0].Result.Observation == nil {
		t.Fatalf("no observation: %v", err)
	}
	words := strings.Fields(views[0].Result.Observation.Answer)
	if len(words) == 0 {
		t.Fatal("no answer")
	}
	w := words[len(words)/2]
	page = body(t, h, run+"?q="+w)
	if !strings.Contains(page, ">invite-token-hash</a>") {
		t.Errorf("q=%s (a word of its answer) does not find invite-token-hash", w)
	}
}

func grep(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// TestCaseTableGroupsTrials: with several trials a case is one row,
// "2/3 pass" and its trials under it, whether its rows are adjacent or
// interleaved with other cases'.
func TestCaseTableGroupsTrials(t *testing.T) {
	_, cand := comparePair()
	d := buildRun(&cachedRun{run: cand}, caseFilter{}, nil, 1, 0)
	if d.All != 30 || len(d.Rows) != 30 {
		t.Fatalf("%d rows of %d, want 30 of 30 cases", len(d.Rows), d.All)
	}
	for _, r := range d.Rows {
		if r.ID == "en-1" && (r.Trials != "2/3 pass" || r.Status != "fail" || len(r.Each) != 3) {
			t.Errorf("en-1: %q %s with %d trials, want 2/3 pass, fail, 3 trials", r.Trials, r.Status, len(r.Each))
		}
	}
	rows := []assay.CaseResult{{ID: "a", Trial: 0}, {ID: "b", Trial: 0}, {ID: "a", Trial: 1}, {ID: "b", Trial: 1}, {ID: "c"}, {ID: "c", Trial: 1}}
	var got []string
	for _, g := range groupTrials(rows) {
		var s []string
		for _, r := range g {
			s = append(s, r.ID+strconv.Itoa(r.Trial))
		}
		got = append(got, strings.Join(s, " "))
	}
	if want := "a0 a1|b0 b1|c0 c1"; strings.Join(got, "|") != want {
		t.Errorf("groups %q, want %q", strings.Join(got, "|"), want)
	}
	if rows[1].ID != "b" || rows[2].ID != "a" {
		t.Errorf("grouping changed the run's rows: %v", rows)
	}
}

// TestNoNewFailuresLinksToFlips: a run gated against a baseline records
// it, and its no_new_failures gate links to the comparison's pass-to-fail
// flips; a run that records no baseline links to its failing cases; the
// static report compared with that baseline links to its changed cases.
func TestNoNewFailuresLinksToFlips(t *testing.T) {
	st, base, cand := failingPair(t)
	if cand.Baseline != base.RunID {
		t.Fatalf("the run records baseline %q, want %q", cand.Baseline, base.RunID)
	}
	link := func(page string) string {
		re := regexp.MustCompile(`<td class="mono">no_new_failures</td>.*?<a href="([^"]*)" class="gate-cases">([^<]*)</a>`)
		m := re.FindStringSubmatch(page)
		if m == nil {
			return ""
		}
		return strings.ReplaceAll(m[1], "&amp;", "&") + " " + m[2]
	}
	page := body(t, New(st, Options{}), serverLinks{}.Run(cand.RunID))
	if got, want := link(page), (serverLinks{}).CompareFlips(base.RunID, cand.RunID, "pass-to-fail", 1)+" new failures"; got != want {
		t.Errorf("no_new_failures links to %q, want %q", got, want)
	}
	old := *cand
	old.Baseline = ""
	var buf bytes.Buffer
	if err := render(&buf, "run", serverLinks{}, &runData{Run: &old, Gates: gateRows(&old)}); err != nil {
		t.Fatal(err)
	}
	if got, want := link(buf.String()), (serverLinks{}).Run(cand.RunID)+"?status=failing failing cases"; got != want {
		t.Errorf("without a recorded baseline, no_new_failures links to %q, want %q", got, want)
	}
	out := t.TempDir()
	if _, err := WriteStatic(t.Context(), out, st, cand.RunID, base.RunID); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if got := link(string(b)); got != "compare.html#diffs new failures" {
		t.Errorf("static report: no_new_failures links to %q, want compare.html#diffs", got)
	}
}
