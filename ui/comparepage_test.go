package ui

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/report"
)

// comparePair is two runs of 30 cases, three trials each: lang=de (10
// cases) goes from passing to failing, lang=en (20) stays passing but for
// en-0, which goes from failing to passing, and en-1, whose candidate
// passes 2 of its 3 trials. The candidate fails its pass_rate gate.
func comparePair() (base, cand *assay.Run) {
	mk := func(id string, cand bool) *assay.Run {
		r := &assay.Run{RunID: id, Status: assay.StatusComplete, Options: assay.RunOptions{Trials: 3}, Segments: map[string]assay.Segment{}}
		for i := range 30 {
			lang, cid := "en", fmt.Sprintf("en-%d", i-10)
			if i < 10 {
				lang, cid = "de", fmt.Sprintf("de-%d", i)
			}
			for trial := range 3 {
				pass := true
				switch {
				case lang == "de" && cand, cid == "en-0" && !cand:
					pass = false
				case cid == "en-1" && cand && trial == 2:
					pass = false
				}
				cr := assay.CaseResult{ID: cid, Trial: trial, Pass: ptr(pass), Tags: map[string]string{"lang": lang}, Metrics: map[string]float64{"ndcg@10": map[bool]float64{true: 1, false: 0.25}[pass]}}
				if !pass {
					cr.Checks = []assay.Check{{Kind: "answer_includes", Detail: "missing Antwort"}}
				}
				r.Cases = append(r.Cases, cr)
			}
		}
		for _, k := range []string{"lang=de", "lang=en"} {
			r.Segments[k] = assay.Segment{Cases: 10}
		}
		r.Summary.Metrics = map[string]assay.MetricAgg{"ndcg@10": {Mean: 0.5, N: 90}}
		r.Gates = []assay.GateResult{{Expr: "error_rate <= 0", Pass: true, Value: ptr(0.0)}, {Expr: "pass_rate >= 0.8", Pass: !cand, Value: ptr(0.6), Bound: 0.8}}
		return r
	}
	return mk("base", false), mk("cand", true)
}

// TestComparePageTellsTheStory: the gate that went ✓ → ✗ comes first;
// the segment table shows lang=de worse by the paired test, its p
// adjusted over the segments by Holm; changed cases list pass → fail
// before fail → pass, with "2/3 pass" for mixed trials, the tags and the
// first failing check.
func TestComparePageTellsTheStory(t *testing.T) {
	base, cand := comparePair()
	rep := compare.Runs(base, cand, compare.Options{})
	d := buildCompare(rep, base, cand, 0)
	if len(d.Gates) != 2 || d.Gates[0].Expr != "pass_rate >= 0.8" || d.Gates[0].Change != "✓ → ✗" || d.Gates[1].Change != "" {
		t.Errorf("gate changes %+v: want pass_rate ✓ → ✗ first, error_rate unchanged", d.Gates)
	}
	if len(d.Segments) != 2 || d.Segments[0].Name != "lang=de" {
		t.Fatalf("segments %+v", d.Segments)
	}
	de, en := d.Segments[0].Measures[0], d.Segments[1].Measures[0]
	if de.Change != "worse" || de.N != 10 || de.Delta != "-1.0000" {
		t.Errorf("lang=de pass rate: %+v, want worse over 10 paired cases by -1", de)
	}
	if en.Change != "" {
		t.Errorf("lang=en pass rate: %+v, want no significant change", en)
	}
	keep := func(v string) func(*assay.CaseResult) bool {
		return func(r *assay.CaseResult) bool { return r.Tags["lang"] == v }
	}
	pde := compare.DeltaInterval(compare.PairMeasure(base, cand, "pass_rate", keep("de")).Deltas, 0.05, compare.Options{}).P
	pen := compare.DeltaInterval(compare.PairMeasure(base, cand, "pass_rate", keep("en")).Deltas, 0.05, compare.Options{}).P
	if adj := compare.Holm([]float64{pde, pen}); de.PAdj != adj[0] || en.PAdj != adj[1] {
		t.Errorf("adjusted p %g %g, Holm over the segments gives %v", de.PAdj, en.PAdj, adj)
	}
	var flips []string
	for _, r := range d.Diffs {
		flips = append(flips, r.Flip)
	}
	last := strings.LastIndex(strings.Join(flips, ","), "pass → fail")
	if first := strings.Index(strings.Join(flips, ","), "fail → pass"); first < 0 || last < 0 || first < last {
		t.Errorf("flips in the order %v: pass → fail must come before fail → pass", flips)
	}
	var buf bytes.Buffer
	if err := render(&buf, "compare", serverLinks{}, d); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{`id="gate-changes"`, `id="segment-changes"`, "2/3 pass", "answer_includes: missing Antwort", "lang=de"} {
		if !strings.Contains(page, want) {
			t.Errorf("the compare page lacks %q", want)
		}
	}
	if gi, di := strings.Index(page, `id="gate-changes"`), strings.Index(page, `id="deltas"`); gi < 0 || gi > di {
		t.Errorf("the gate changes are not above the measures")
	}
}

// TestCaseDiffSideBySide: the case diff shows both answers side by side
// besides the inline diff, and arrows for the documents that moved.
func TestCaseDiffSideBySide(t *testing.T) {
	views, _ := caseTrials()
	b, c := views[0], views[1]
	b.Result.Observation = &assay.Observation{Answer: "Die Antwort", Retrieved: []assay.Hit{{ID: "d1"}, {ID: "d2"}, {ID: "d3"}}}
	c.Result.Observation = &assay.Observation{Answer: "Eine andere Antwort", Retrieved: []assay.Hit{{ID: "d3"}, {ID: "d1"}, {ID: "d9"}}}
	run := &assay.Run{RunID: "r"}
	d := buildCompareCase(run, run, "c1", []report.CaseView{b}, nil, false, []report.CaseView{c}, nil, false)
	var moved []string
	for _, p := range d.RankingPairs {
		moved = append(moved, p.Moved)
	}
	if got := strings.Join(moved, ","); got != "↑ 2,↓ 1,new" {
		t.Errorf("moves %q, want ↑ 2,↓ 1,new", got)
	}
	var buf bytes.Buffer
	if err := render(&buf, "comparecase", serverLinks{}, d); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if !strings.Contains(page, `<h3>baseline answer</h3><div class="answer wrap" lang="de">Die Antwort</div>`) || !strings.Contains(page, `<h3>candidate answer</h3><div class="answer wrap" lang="de">Eine andere Antwort</div>`) {
		t.Errorf("the answers are not side by side:\n%s", grep(page, `id="answers"`))
	}
}

// manyFlips is two runs of n cases that all go from passing to failing.
func manyFlips(n int) (base, cand *assay.Run) {
	mk := func(id string, pass bool) *assay.Run {
		r := &assay.Run{RunID: id, Status: assay.StatusComplete}
		for i := range n {
			cr := assay.CaseResult{ID: fmt.Sprintf("c%03d", i), Pass: ptr(pass)}
			if !pass {
				cr.Checks = []assay.Check{{Kind: "answer_includes", Detail: "missing"}}
			}
			r.Cases = append(r.Cases, cr)
		}
		return r
	}
	return mk("base", true), mk("cand", false)
}

// TestCompareFlipListsBounded: a flip list of 250 names its first 20 and
// "and 230 more" linking to the whole list, which pages at 200 with
// links between its pages; in the static report the link goes to the
// changed-case table, which lists them all.
func TestCompareFlipListsBounded(t *testing.T) {
	base, cand := manyFlips(250)
	rep := compare.Runs(base, cand, compare.Options{})
	if len(rep.Flips.PassToFail) != 250 {
		t.Fatalf("%d pass → fail flips, want 250", len(rep.Flips.PassToFail))
	}
	para := func(page, id string) string {
		i := strings.Index(page, `<p id="`+id+`">`)
		if i < 0 {
			t.Fatalf("no paragraph %s", id)
		}
		return page[i : i+strings.Index(page[i:], "</p>")]
	}
	d := buildCompare(rep, base, cand, maxDiffs)
	var buf bytes.Buffer
	if err := render(&buf, "compare", serverLinks{}, d); err != nil {
		t.Fatal(err)
	}
	p := para(buf.String(), "pass-to-fail")
	if n := strings.Count(p, "diff-link"); n != 20 {
		t.Errorf("pass → fail names %d cases, want 20", n)
	}
	if !strings.Contains(p, ">c019<") || strings.Contains(p, ">c020<") {
		t.Errorf("pass → fail does not name exactly the first 20:\n%s", p)
	}
	if want := `<a href="/compare?base=base&amp;cand=cand&amp;flips=pass-to-fail#pass-to-fail" class="more-ids">and 230 more</a>`; !strings.Contains(p, want) {
		t.Errorf("pass → fail lacks %s:\n%s", want, p)
	}
	if n := strings.Count(buf.String(), "diff-link"); n > 20+maxDiffs+20 {
		t.Errorf("the page has %d case links", n)
	}

	for _, c := range []struct {
		page, from, to int
		prev, next     bool
	}{{1, 0, 200, false, true}, {2, 200, 250, true, false}, {9, 200, 250, true, false}} {
		d.All, d.Page = "pass-to-fail", c.page
		d.boundLists()
		buf.Reset()
		if err := render(&buf, "compare", serverLinks{}, d); err != nil {
			t.Fatal(err)
		}
		p := para(buf.String(), "pass-to-fail")
		if n := strings.Count(p, "diff-link"); n != c.to-c.from {
			t.Errorf("page %d names %d cases, want %d", c.page, n, c.to-c.from)
		}
		if !strings.Contains(p, fmt.Sprintf(">c%03d<", c.from)) || !strings.Contains(p, fmt.Sprintf(">c%03d<", c.to-1)) || strings.Contains(p, "more-ids") {
			t.Errorf("page %d is not cases %d to %d whole:\n%s", c.page, c.from, c.to-1, p)
		}
		if got := strings.Contains(p, `rel="prev"`); got != c.prev {
			t.Errorf("page %d: previous link %v", c.page, got)
		}
		if got := strings.Contains(p, `&amp;page=2#pass-to-fail" rel="next"`); got != c.next {
			t.Errorf("page %d: next link to page 2 %v:\n%s", c.page, got, p)
		}
	}

	d = buildCompare(rep, base, cand, 0)
	buf.Reset()
	if err := render(&buf, "compare", staticLinks{run: "cand", base: "base"}, d); err != nil {
		t.Fatal(err)
	}
	if p := para(buf.String(), "pass-to-fail"); !strings.Contains(p, `<a href="compare.html#diffs" class="more-ids">and 230 more</a>`) {
		t.Errorf("the static pass → fail list does not link to the changed-case table:\n%s", p)
	}
	if n := strings.Count(buf.String(), `<tr class="flip-bad">`); n != 250 {
		t.Errorf("the static changed-case table lists %d flips, want 250", n)
	}
}
