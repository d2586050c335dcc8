package ui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"
	"sort"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
)

// ---- compare case page ----

type compareCaseData struct {
	Base, Cand string
	ID         string
	Query      string
	SuiteNote  string
	BaseTrials []trialView
	CandTrials []trialView
	AnswerDiff []segment  // of the first trials' answers; nil when not computed
	BaseAnswer *trialView // the first trials, their answers side by side
	CandAnswer *trialView
	// AnswersDiffer: the two answers are not the same (when they are, the
	// diff shows the one answer, and nothing is side by side).
	AnswersDiffer bool
	DiffNote      string
	RankingPairs  []rankPair
	// SameRanking: both runs returned the same documents in the same
	// order with the same grades (one column shows them).
	SameRanking bool
}

type rankPair struct {
	Rank       int
	Base, Cand *rankRow
	Moved      string // "new", "↑ 2", "↓ 1" or "" (cand's doc relative to its rank in base)
}

func (s *server) compareCasePage(ctx context.Context, r *http.Request) (string, any, error) {
	q := r.URL.Query()
	base, cand, id := q.Get("base"), q.Get("cand"), q.Get("id")
	if base == "" || cand == "" || id == "" {
		return "", nil, badRequest("compare/case needs base, cand and id")
	}
	bc, err := s.src.caseRun(ctx, base)
	if err != nil {
		return "", nil, err
	}
	cc, err := s.src.caseRun(ctx, cand)
	if err != nil {
		return "", nil, err
	}
	bv, bs, bcs, err := s.src.caseViews(bc, id)
	if err != nil {
		return "", nil, err
	}
	cv, cs, ccs, err := s.src.caseViews(cc, id)
	if err != nil {
		return "", nil, err
	}
	return "comparecase", buildCompareCase(bc.run, cc.run, id, bv, bs, bcs, cv, cs, ccs), nil
}

func buildCompareCase(base, cand *assay.Run, id string, bv []report.CaseView, bs *assay.Case, bcs bool, cv []report.CaseView, cs *assay.Case, ccs bool) *compareCaseData {
	b, c := buildCase(base, id, bv, bs, bcs), buildCase(cand, id, cv, cs, ccs)
	d := &compareCaseData{Base: base.RunID, Cand: cand.RunID, ID: id, Query: c.Query, SuiteNote: c.SuiteNote, BaseTrials: b.Trials, CandTrials: c.Trials}
	if d.Query == "" {
		d.Query, d.SuiteNote = b.Query, b.SuiteNote
	}
	if len(b.Trials) > 0 && len(c.Trials) > 0 {
		bt, ct := b.Trials[0], c.Trials[0]
		d.BaseAnswer, d.CandAnswer = &b.Trials[0], &c.Trials[0]
		ba, ca := answerOf(bt), answerOf(ct)
		d.AnswerDiff, d.DiffNote = wordDiff(ba, ca)
		d.AnswersDiffer = ba != ca
		inBase := map[string]int{} // 1 + the rank in the baseline
		for i, r := range bt.Ranking {
			if inBase[r.ID] == 0 {
				inBase[r.ID] = i + 1
			}
		}
		inCand := map[string]bool{}
		for _, r := range ct.Ranking {
			inCand[r.ID] = true
		}
		for i := 0; i < max(len(bt.Ranking), len(ct.Ranking)); i++ {
			p := rankPair{Rank: i + 1}
			if i < len(bt.Ranking) {
				p.Base = &bt.Ranking[i]
			}
			if i < len(ct.Ranking) {
				p.Cand = &ct.Ranking[i]
				switch was := inBase[p.Cand.ID]; {
				case was == 0:
					p.Moved = "new"
				case was > i+1:
					p.Moved = fmt.Sprintf("↑ %d", was-i-1)
				case was < i+1:
					p.Moved = fmt.Sprintf("↓ %d", i+1-was)
				}
			}
			d.RankingPairs = append(d.RankingPairs, p)
		}
		d.SameRanking = len(d.RankingPairs) > 0
		for _, p := range d.RankingPairs {
			if p.Base == nil || p.Cand == nil || p.Base.ID != p.Cand.ID || p.Base.Grade != p.Cand.Grade {
				d.SameRanking = false
			}
		}
	}
	return d
}

func answerOf(t trialView) string {
	var b strings.Builder
	for _, s := range t.Answer {
		b.WriteString(s.Text)
	}
	return b.String()
}

// maxDiffWords bounds the word diff (it is quadratic).
const maxDiffWords = 2000

// wordDiff is the word-level difference of two answers: segments of
// class "" (both), "removed" (base only) and "added" (candidate only).
func wordDiff(a, b string) ([]segment, string) {
	if a == b {
		return []segment{{Text: b}}, "the answers are the same"
	}
	x, y := words(a), words(b)
	if len(x) > maxDiffWords || len(y) > maxDiffWords {
		return nil, fmt.Sprintf("answers longer than %d words are shown side by side, not diffed", maxDiffWords)
	}
	// LCS table.
	n, m := len(x), len(y)
	l := make([][]int32, n+1)
	for i := range l {
		l[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	var out []segment
	add := func(text, class string) {
		if k := len(out) - 1; k >= 0 && out[k].Class == class {
			out[k].Text += text
			return
		}
		out = append(out, segment{text, class})
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case x[i] == y[j]:
			add(x[i], "")
			i, j = i+1, j+1
		case l[i+1][j] >= l[i][j+1]:
			add(x[i], "removed")
			i++
		default:
			add(y[j], "added")
			j++
		}
	}
	for ; i < n; i++ {
		add(x[i], "removed")
	}
	for ; j < m; j++ {
		add(y[j], "added")
	}
	return out, ""
}

// words splits s into words, each with the spaces that follow it.
func words(s string) []string {
	var out []string
	start := 0
	inSpace := false
	for i, r := range s {
		sp := r == ' ' || r == '\n' || r == '\t' || r == '\r'
		if !sp && inSpace {
			out = append(out, s[start:i])
			start = i
		}
		inSpace = sp
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// ---- history page ----

type historyData struct {
	Suite   string
	Case    string
	Runs    []store.Entry // oldest first
	Rows    []histRow
	Total   int
	All     bool // every case, not only the changing ones
	N       int
	Page    int
	Pages   int
	Prev    string
	Next    string
	Head    string
	Suites  []string
	Missing []string // runs that could not be read
}

type histRow struct {
	ID    string
	Cells []histCell
}

type histCell struct {
	RunID string
	Class string // pass, fail, error, ungraded, flaky, absent
	Title string
}

// historyRows is the number of case rows per page of the history grid.
const historyRows = 200

func (s *server) historyPage(ctx context.Context, r *http.Request) (string, any, error) {
	q := r.URL.Query()
	n, err := intParam(r, "n", s.opts.HistoryRuns)
	if err != nil {
		return "", nil, err
	}
	n = min(n, maxHistoryRuns)
	page, err := intParam(r, "page", 1)
	if err != nil {
		return "", nil, err
	}
	d := &historyData{Suite: q.Get("suite"), Case: q.Get("case"), All: q.Get("all") != "", N: n, Page: page}
	all, err := s.src.list(ctx, "", 0)
	if err != nil {
		return "", nil, err
	}
	seen := map[string]bool{}
	for _, e := range all {
		if !seen[e.Suite] {
			seen[e.Suite] = true
			d.Suites = append(d.Suites, e.Suite)
		}
	}
	if d.Suite == "" {
		if len(d.Suites) == 0 {
			return "history", d, nil
		}
		d.Suite = d.Suites[0]
	}
	es, err := s.src.list(ctx, d.Suite, n)
	if err != nil {
		return "", nil, err
	}
	for i := len(es) - 1; i >= 0; i-- {
		d.Runs = append(d.Runs, es[i])
	}
	if len(es) > 0 {
		if h, err := s.src.head(ctx, es[0]); err == nil {
			if names := report.MetricOrder(h); len(names) > 0 {
				d.Head = names[0]
			}
		}
	}
	per := make([]map[string]outcome, len(d.Runs))
	var order []string
	inOrder := map[string]bool{}
	for i, e := range d.Runs {
		var m map[string]outcome
		if d.Case != "" {
			m, err = s.src.caseOutcome(ctx, e, d.Head, d.Case)
		} else {
			m, err = s.src.outcomes(ctx, e, d.Head)
		}
		if err != nil {
			d.Missing = append(d.Missing, e.RunID+": "+err.Error())
			continue
		}
		per[i] = m
		ids := make([]string, 0, len(m))
		for id := range m {
			if !inOrder[id] {
				ids = append(ids, id)
			}
		}
		sort.Slice(ids, func(a, b int) bool { return m[ids[a]].order < m[ids[b]].order })
		for _, id := range ids {
			inOrder[id] = true
			order = append(order, id)
		}
	}
	start := (page - 1) * historyRows
	for _, id := range order {
		if d.Case != "" && id != d.Case {
			continue
		}
		row := histRow{ID: id}
		classes := map[string]bool{}
		for i, e := range d.Runs {
			cell := histCell{RunID: e.RunID, Class: "absent", Title: "run " + report.ShortID(e.RunID) + ": not in the run"}
			if o, ok := per[i][id]; ok {
				cell.Class = o.status
				if strings.Contains(o.status, "/") {
					cell.Class = "flaky"
				}
				cell.Title = "run " + report.ShortID(e.RunID) + " (" + string(e.Status) + "): " + o.status
				if o.hasHead {
					cell.Title += fmt.Sprintf(", %s %.4f", d.Head, o.head)
				}
				classes[cell.Class] = true
			}
			row.Cells = append(row.Cells, cell)
		}
		if !d.All && d.Case == "" && len(classes) <= 1 && !classes["flaky"] {
			continue
		}
		d.Total++
		if d.Total <= start || d.Total > start+historyRows {
			continue
		}
		d.Rows = append(d.Rows, row)
	}
	d.Pages = max(1, (d.Total+historyRows-1)/historyRows)
	if page > 1 {
		d.Prev = pageURL(r.URL, page-1)
	}
	if page < d.Pages {
		d.Next = pageURL(r.URL, page+1)
	}
	return "history", d, nil
}

// caseOutcome is outcomes for the history of one case: the outcome of
// case id in the run e, alone in the map (an empty map when the run does
// not have the case). It reads that case's trials, not the run: from the
// outcomes cached for the grid when the run's are, else through the
// run's case index (store.ReadCase) when the run has files, else the
// store's store.CaseReader; a run with neither, or without case lines (a
// run.json written alone), is read whole (outcomes).
func (s *source) caseOutcome(ctx context.Context, e store.Entry, head, id string) (map[string]outcome, error) {
	k := outKey{s.entryKey(e), head}
	s.mu.Lock()
	m, ok := s.outs[k]
	s.mu.Unlock()
	if ok && k.run.status == assay.StatusComplete {
		if o, ok := m[id]; ok {
			return map[string]outcome{id: o}, nil
		}
		return map[string]outcome{}, nil
	}
	var trials []assay.CaseResult
	add := func(r assay.CaseResult) error {
		trials = append(trials, r)
		return nil
	}
	var err error
	switch cr, isCR := s.st.(store.CaseReader); {
	case k.run.path != "":
		err = store.ReadCase(filepath.Dir(k.run.path), id, false, add)
	case isCR:
		err = cr.CaseTrials(ctx, e.RunID, id, false, add)
	default:
		return s.outcomes(ctx, e, head)
	}
	if errors.Is(err, fs.ErrNotExist) && len(trials) == 0 {
		return s.outcomes(ctx, e, head)
	}
	if err != nil {
		return nil, err
	}
	return outcomes(trials, head), nil
}
