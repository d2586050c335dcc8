package ui

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"html/template"
	"maps"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/internal/aggregate"
	"github.com/assay-eval/assay/redact"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
)

// ---- runs page ----

type runsData struct {
	Suite  string // the suite asked for ("" all)
	Suites []*suiteRuns
	Empty  bool
}

type suiteRuns struct {
	Name       string
	Metrics    []string
	Runs       []runRow
	Charts     []chart
	Base, Cand string // the default comparison: the latest two complete runs
	cut        bool   // the suite has more runs than the page lists
}

type runRow struct {
	E       store.Entry
	Values  []string // one per suiteRuns.Metrics
	Gates   int
	Failed  int
	Commit  string
	Dirty   bool
	Checked string // "base" / "cand": the radio preselected
	// Group is the id of the variant matrix the run is of ("" none), and
	// Variant its variant; the rows of one matrix are listed together.
	Group   string
	Variant string
	// Orderings are, on the first row of a matrix's runs, the matrix's
	// orderings checked over its runs' summaries (nil on other rows).
	Orderings []orderingRow
	head      *assay.Run
}

// orderingRow is one ordering of a variant matrix as the runs page shows
// it: State is "pass", "fail", "open" (the means are out of order and only
// the paired test over the cases, which the page does not read, can say
// whether that fails it) or "unchecked" (a run is missing or incomplete);
// Detail says the values, or why it was not checked.
type orderingRow struct {
	Text   string
	State  string
	Detail string
}

// metric is the run's mean of the metric m.
func (r *runRow) metric(m string) (float64, bool) {
	if r.head == nil {
		return 0, false
	}
	a, ok := r.head.Summary.Metrics[m]
	return a.Mean, ok
}

// maxRuns is the number of runs of a suite the runs page lists and draws.
const maxRuns = 50

func (s *server) runsPage(ctx context.Context, r *http.Request) (string, any, error) {
	suite := r.URL.Query().Get("suite")
	entries, err := s.src.list(ctx, suite, 0)
	if err != nil {
		return "", nil, err
	}
	d := &runsData{Suite: suite, Empty: len(entries) == 0}
	bySuite := map[string]*suiteRuns{}
	for _, e := range entries {
		sr := bySuite[e.Suite]
		if sr == nil {
			sr = &suiteRuns{Name: e.Suite}
			bySuite[e.Suite] = sr
			d.Suites = append(d.Suites, sr)
		}
		if len(sr.Runs) >= maxRuns {
			sr.cut = true
			continue
		}
		row := runRow{E: e}
		if h, err := s.src.head(ctx, e); err == nil {
			row.head = h
			for _, g := range h.Gates {
				row.Gates++
				if !g.Pass {
					row.Failed++
				}
			}
			if h.Git != nil {
				row.Commit, row.Dirty = h.Git.Commit, h.Git.Dirty
			}
			if h.Group != "" {
				row.Group, row.Variant = h.Group, gate.VariantName(h.Variant)
			}
		}
		sr.Runs = append(sr.Runs, row)
	}
	for _, sr := range d.Suites {
		sr.Runs = groupMatrices(sr.Runs)
		checkOrderings(sr.Runs, sr.cut)
		// The metric columns are the newest run's that has metrics: a
		// run still running, or stopped, has none yet and must not hide
		// them.
		for _, row := range sr.Runs {
			if row.head != nil && len(row.head.Summary.Metrics) > 0 {
				sr.Metrics = firstMetrics(row.head, 3)
				break
			}
		}
		for i := range sr.Runs {
			row := &sr.Runs[i]
			for _, m := range sr.Metrics {
				if a, ok := row.metric(m); ok {
					row.Values = append(row.Values, fmt.Sprintf("%.4f", a))
				} else {
					row.Values = append(row.Values, "-")
				}
			}
		}
		for i := range sr.Runs {
			e := sr.Runs[i].E
			if e.Status != assay.StatusComplete {
				continue
			}
			if sr.Cand == "" {
				sr.Cand, sr.Runs[i].Checked = e.RunID, "cand"
			} else if sr.Base == "" {
				sr.Base, sr.Runs[i].Checked = e.RunID, "base"
			}
		}
		sr.Charts = s.trendCharts(ctx, sr)
	}
	return "runs", d, nil
}

// groupMatrices lists the runs of one variant matrix together, where its
// newest run is, each matrix's runs and the others keeping their order.
func groupMatrices(rows []runRow) []runRow {
	out := make([]runRow, 0, len(rows))
	placed := map[string]bool{}
	for _, r := range rows {
		switch {
		case r.Group == "":
			out = append(out, r)
		case !placed[r.Group]:
			placed[r.Group] = true
			for _, o := range rows {
				if o.Group == r.Group {
					out = append(out, o)
				}
			}
		}
	}
	return out
}

// checkOrderings sets, on the first row of each matrix in rows (grouped
// by groupMatrices), the matrix's orderings checked over the headers of
// its runs: the orderings its runs recorded (assay.Run.Orderings), each
// variant's run found by its variant name. No case is read. An ordering
// naming a variant with no run among rows, or whose run is not complete,
// is not checked, and says why; cut says the list of runs was cut short,
// so a missing run may be an older one.
func checkOrderings(rows []runRow, cut bool) {
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && rows[i].Group != "" && rows[j].Group == rows[i].Group {
			j++
		}
		if rows[i].Group != "" {
			rows[i].Orderings = matrixOrderings(rows[i:j], cut)
		}
		i = j
	}
}

// matrixOrderings checks the orderings of one matrix over its rows.
func matrixOrderings(rows []runRow, cut bool) []orderingRow {
	var texts []string
	byName := map[string]*runRow{}
	for k := range rows {
		r := &rows[k]
		if r.head == nil {
			continue
		}
		if texts == nil {
			texts = r.head.Orderings
		}
		// Should a variant have two runs, a complete one is checked.
		if o := byName[r.Variant]; o == nil || o.E.Status != assay.StatusComplete {
			byName[r.Variant] = r
		}
	}
	var out []orderingRow
	for _, text := range texts {
		row := orderingRow{Text: text, State: "unchecked"}
		o, err := gate.ParseOrdering(text, "")
		if err != nil {
			row.Detail = err.Error()
			out = append(out, row)
			continue
		}
		runs := map[string]*assay.Run{}
	variants:
		for _, v := range o.Variants {
			r := byName[v]
			switch {
			case r == nil && cut:
				row.Detail = fmt.Sprintf("no run of variant %s among the %d newest runs listed", v, maxRuns)
			case r == nil:
				row.Detail = fmt.Sprintf("no run of variant %s in this matrix", v)
			case r.E.Status != assay.StatusComplete:
				row.Detail = fmt.Sprintf("the run of variant %s (%s) is %s", v, report.ShortID(r.E.RunID), r.E.Status)
			default:
				runs[v] = r.head
				continue
			}
			break variants
		}
		if row.Detail == "" {
			res := o.Check(runs)
			row.Detail = res.Detail
			switch {
			case res.Pass:
				row.State = "pass"
			case o.Final(res):
				row.State = "fail"
			default:
				row.State = "open"
				row.Detail = "the means are out of order (" + strings.TrimPrefix(res.Detail, "broken: ") + "), and only a significant reversal fails the ordering: the paired test over the cases, which assay run reports, decides"
			}
		}
		out = append(out, row)
	}
	return out
}

// firstMetrics is the run's first n metrics in its metric order.
func firstMetrics(run *assay.Run, n int) []string {
	names := report.MetricOrder(run)
	if len(names) > n {
		names = names[:n]
	}
	if names == nil {
		names = []string{}
	}
	return names
}

// ---- run page ----

type runData struct {
	Run      *assay.Run
	Path     string
	Stopped  bool
	Trials   int
	Verdict  runVerdict
	Gates    []gateRow // failing gates first
	Metrics  []metricRow
	Segments []segRow
	Head     string
	Columns  []column // the case table's metric columns
	Filter   caseFilter
	Tags     []string
	Rows     []caseRow
	Total    int // rows matching the filter
	All      int // rows of the run (case trials; cases with several trials)
	Page     int
	Pages    int
	Prev     string // URLs of the neighbour pages ("" none)
	Next     string
	// Note says, in the static report of a large run, which cases have
	// no page of their own and why.
	Note string
	// Continued is, on a page after the first of a static report's
	// paged index, the first page's file: the page then shows the case
	// rows only, not again the gates, summary and metrics.
	Continued string
	Stages    []stageRow
	TrialSum  *trialSummary // several trials per case
}

// runVerdict is the run header: what the gates and the status say, in
// words and as a class (good, bad, warn, none).
type runVerdict struct {
	Class string
	Words string
}

// gateRow is one gate of the run and the query of the case table that
// shows the cases breaking it ("" when none applies).
type gateRow struct {
	assay.GateResult
	Cases string // e.g. "status=failing&tag=lang%3Dde"
	What  string // what the link shows: "failing cases", "slowest cases"
	// Base is, for no_new_failures in a run that records its baseline,
	// that run's id: the gate then links to the comparison's
	// pass-to-fail flips, where the page has one, else to Cases.
	Base string
}

type trialSummary struct {
	N                int
	PassAny, PassAll string
	Flaky            int
	Spread           []spreadRow
}

type spreadRow struct {
	Name     string
	Mean, SD float64
}

type metricRow struct {
	Name string
	Mean float64
	N    int
}

type segRow struct {
	Name     string
	Cases    int
	PassRate *float64
	Head     string
}

// column is a sortable column of the case table.
type column struct {
	Name string // the sort key ("latency", "status", a metric name)
	Sort string // the URL that sorts by it (the other way when it is the current sort)
	Aria string // aria-sort: "ascending", "descending" or ""
}

type caseRow struct {
	ID      string
	Trial   int
	Status  string // pass, fail, error, ungraded
	Trials  string // "2/3 pass" when the case ran several trials
	Facts   []string
	Latency *float64 // the mean over the case's trials that report one
	Values  []string // one per runData.Columns' metrics
	Tags    string
	Flaky   bool
	Source  string
	Each    []trialRow // the trials, when the case ran several
}

type trialRow struct {
	Trial   int
	Status  string
	Latency *float64
	Facts   []string
}

// caseFilter is the case table's filter and order, from the URL.
type caseFilter struct {
	Status string // "", failing, errored, ungraded, flaky, passing
	Tag    string // k=v
	Q      string // text search (case id, facts, error, tags, query, answer)
	Sort   string // "", latency, status, a metric; "-" first: descending
}

var statusFilters = []string{"failing", "errored", "ungraded", "flaky", "passing"}

func (s *server) runPage(ctx context.Context, r *http.Request) (string, any, error) {
	q := r.URL.Query()
	f := caseFilter{Status: q.Get("status"), Tag: q.Get("tag"), Q: q.Get("q"), Sort: q.Get("sort")}
	if f.Status != "" && !slices.Contains(statusFilters, f.Status) {
		return "", nil, badRequest("status=%q: want one of %s", f.Status, strings.Join(statusFilters, ", "))
	}
	page, err := intParam(r, "page", 1)
	if err != nil {
		return "", nil, err
	}
	var d *runData
	if f == (caseFilter{}) && page == 1 {
		// The default view of a run not loaded yet: its first rows.
		c, ok, err := s.src.peek(ctx, r.PathValue("id"), s.opts.PageSize)
		if err != nil {
			return "", nil, err
		}
		if ok && c.run.Options.Trials <= 1 {
			d = buildRun(c, f, nil, page, s.opts.PageSize)
			d.All, d.Total = c.run.Summary.Cases, c.run.Summary.Cases
			d.Pages = max(1, (d.Total+s.opts.PageSize-1)/s.opts.PageSize)
		}
	}
	if d == nil && f.Q == "" && f.Status != "flaky" {
		// A filtered page of a run not loaded yet: one pass over its case
		// lines, each read for the fields the filter needs.
		c, fr, ok, err := s.src.filtered(ctx, r.PathValue("id"), f, page, s.opts.PageSize)
		if err != nil {
			return "", nil, err
		}
		if ok {
			d = buildRun(c, caseFilter{}, nil, 1, 0)
			d.Filter = f
			d.All, d.Total = fr.all, fr.total
			d.Page, d.Pages = max(page, 1), 1
			if s.opts.PageSize > 0 && d.Total > 0 {
				d.Pages = (d.Total + s.opts.PageSize - 1) / s.opts.PageSize
			}
		}
	}
	if d == nil {
		c, err := s.src.load(ctx, r.PathValue("id"))
		if err != nil {
			return "", nil, err
		}
		if err := checkSort(c.run, f.Sort); err != nil {
			return "", nil, err
		}
		var text map[string]bool
		if f.Q != "" {
			if text, err = s.src.textMatches(ctx, c, f.Q); err != nil {
				return "", nil, err
			}
		}
		d = buildRun(c, f, text, page, s.opts.PageSize)
	}
	if d.Page > 1 {
		d.Prev = pageURL(r.URL, d.Page-1)
	}
	if d.Page < d.Pages {
		d.Next = pageURL(r.URL, d.Page+1)
	}
	d.Columns = sortColumns(r.URL, d.Columns, f.Sort)
	return "run", d, nil
}

func pageURL(u *url.URL, page int) string {
	q := u.Query()
	q.Set("page", fmt.Sprint(page))
	return u.Path + "?" + q.Encode()
}

// sortKeys are the case table's sort keys besides the run's metrics.
var sortKeys = []string{"latency", "status", "id"}

func checkSort(run *assay.Run, key string) error {
	k := strings.TrimPrefix(key, "-")
	if k == "" || slices.Contains(sortKeys, k) {
		return nil
	}
	if _, ok := run.Summary.Metrics[k]; ok {
		return nil
	}
	return badRequest("sort=%q: want one of %s or a metric of the run (%s), with - first for descending", key, strings.Join(sortKeys, ", "), strings.Join(report.MetricOrder(run), ", "))
}

// sortColumns sets each column's sort link: ascending first, the other
// way when the table is sorted by it already.
func sortColumns(u *url.URL, cols []column, cur string) []column {
	out := make([]column, len(cols))
	for i, c := range cols {
		q := u.Query()
		q.Del("page")
		next := c.Name
		switch cur {
		case c.Name:
			next, c.Aria = "-"+c.Name, "ascending"
		case "-" + c.Name:
			c.Aria = "descending"
		}
		q.Set("sort", next)
		c.Sort = u.Path + "?" + q.Encode()
		out[i] = c
	}
	return out
}

// verdictOf is the run header: failed gates first, then an incomplete
// run, then passed gates.
func verdictOf(run *assay.Run) runVerdict {
	failed := 0
	for _, g := range run.Gates {
		if !g.Pass {
			failed++
		}
	}
	n := len(run.Gates)
	incomplete := run.Status != assay.StatusComplete
	switch {
	case failed > 0 && incomplete:
		return runVerdict{"bad", fmt.Sprintf("✗ %d of %d gates failed · run %s", failed, n, run.Status)}
	case failed > 0:
		return runVerdict{"bad", fmt.Sprintf("✗ %d of %d gates failed", failed, n)}
	case incomplete:
		return runVerdict{"warn", fmt.Sprintf("run %s: not every case was observed", run.Status)}
	case n > 0:
		return runVerdict{"good", fmt.Sprintf("✓ all %d gates passed", n)}
	}
	return runVerdict{"none", "no gates · pass rate " + report.Percent(run.Summary.PassRate)}
}

// latencyGates are the gate metrics that the slowest cases break.
var latencyGates = []string{"p50_latency_ms", "p95_latency_ms", "p99_latency_ms", "max_latency_ms"}

// gateRows are the run's gates, failing first, each with the query of
// the case table that shows what breaks it: the failing cases (of the
// gate's tag, when it has one), the errored ones for the error rate, the
// slowest first for a latency gate, the lowest first for a metric. A
// no_new_failures gate links to the failing cases: the run does not
// record its baseline, and the flipped cases are among them (the compare
// page lists the flips themselves).
func gateRows(run *assay.Run) []gateRow {
	var out []gateRow
	for _, g := range run.Gates {
		row := gateRow{GateResult: g}
		if e, err := gate.Parse(g.Expr, g.Source); err == nil {
			q := url.Values{}
			if e.Scope != nil {
				if _, ok := run.Segments[e.Scope.String()]; ok {
					q.Set("tag", e.Scope.String())
				}
			}
			switch {
			case e.Kind == gate.NoNewFailures:
				q.Set("status", "failing")
				row.What = "failing cases"
				row.Base = run.Baseline
			case slices.Contains(latencyGates, e.Metric):
				q.Set("sort", "-latency")
				row.What = "slowest cases"
			case e.Metric == "error_rate" || e.Metric == "errors":
				q.Set("status", "errored")
				row.What = "errored cases"
			case e.Metric == "flaky_cases":
				q.Set("status", "flaky")
				row.What = "flaky cases"
			case e.Measure:
				q = nil
			default:
				if _, ok := run.Summary.Metrics[e.Metric]; ok {
					q.Set("sort", e.Metric)
					row.What = "lowest " + e.Metric
				} else {
					q.Set("status", "failing")
					row.What = "failing cases"
				}
			}
			if q != nil {
				row.Cases = q.Encode()
			}
		}
		out = append(out, row)
	}
	sort.SliceStable(out, func(i, j int) bool { return !out[i].Pass && out[j].Pass })
	return out
}

// buildRun makes the run page: the summary, and the page of the case
// table that the filter selects (pageSize rows; 0: every row). text holds
// the ids whose query or answer matched f.Q (nil: match on the rows only).
func buildRun(c *cachedRun, f caseFilter, text map[string]bool, page, pageSize int) *runData {
	run := c.run
	d := &runData{Run: run, Path: c.path, Stopped: c.stopped, Filter: f, Trials: max(run.Options.Trials, 1)}
	d.Verdict, d.Gates = verdictOf(run), gateRows(run)
	d.Stages = stages(run)
	names := report.MetricOrder(run)
	for _, n := range names {
		m := run.Summary.Metrics[n]
		d.Metrics = append(d.Metrics, metricRow{n, m.Mean, m.N})
	}
	if len(d.Metrics) > 0 {
		d.Head = d.Metrics[0].Name
	}
	d.Columns = []column{{Name: "status"}, {Name: "latency"}}
	for _, n := range names {
		d.Columns = append(d.Columns, column{Name: n})
	}
	for _, k := range slices.Sorted(maps.Keys(run.Segments)) {
		seg := run.Segments[k]
		row := segRow{Name: k, Cases: seg.Cases, PassRate: seg.PassRate, Head: "-"}
		if m, ok := seg.Metrics[d.Head]; ok {
			row.Head = fmt.Sprintf("%.4f", m.Mean)
		}
		d.Segments = append(d.Segments, row)
	}
	if d.Trials > 1 {
		ts := aggregate.Trials(run.Cases)
		sum := &trialSummary{N: ts.Trials, PassAny: report.Percent(ts.PassAny), PassAll: report.Percent(ts.PassAll), Flaky: len(ts.Flaky)}
		for _, n := range names {
			if m, ok := ts.Metrics[n]; ok {
				sum.Spread = append(sum.Spread, spreadRow{n, m.Mean, m.SD})
			}
		}
		d.TrialSum = sum
	}
	flaky := c.flakyCases()
	for k := range run.Segments {
		d.Tags = append(d.Tags, k)
	}
	sort.Strings(d.Tags)
	keep := f.keep(text, flaky)
	start := 0
	if pageSize > 0 {
		start = (max(page, 1) - 1) * pageSize
	}
	inPage := func() bool { return d.Total > start && (pageSize == 0 || d.Total <= start+pageSize) }
	if d.Trials <= 1 && f.Sort == "" {
		// One row a case trial, in run order: no row is held but the page's.
		d.All = len(run.Cases)
		for _, cr := range run.Cases {
			if !keep(cr) {
				continue
			}
			d.Total++
			if inPage() {
				d.Rows = append(d.Rows, makeRow([]assay.CaseResult{cr}, names, flaky[cr.ID]))
			}
		}
	} else {
		// One row a case (its trials grouped), sorted when asked.
		groups := groupTrials(run.Cases)
		d.All = len(groups)
		var kept [][]assay.CaseResult
		for _, g := range groups {
			if slices.ContainsFunc(g, keep) {
				kept = append(kept, g)
			}
		}
		sortGroups(kept, f.Sort)
		d.Total = len(kept)
		lo, hi := min(start, len(kept)), len(kept)
		if pageSize > 0 {
			hi = min(start+pageSize, len(kept))
		}
		for _, g := range kept[lo:hi] {
			d.Rows = append(d.Rows, makeRow(g, names, flaky[g[0].ID]))
		}
	}
	d.Page, d.Pages = max(page, 1), 1
	if pageSize > 0 && d.Total > 0 {
		d.Pages = (d.Total + pageSize - 1) / pageSize
	}
	return d
}

// keep is the filter f of case rows: its status (flaky holds the flaky
// cases), its tag and its text (text holds the ids whose query or answer
// matched f.Q; nil: match on the rows only).
func (f caseFilter) keep(text, flaky map[string]bool) func(assay.CaseResult) bool {
	var tagK, tagV string
	if f.Tag != "" {
		tagK, tagV, _ = strings.Cut(f.Tag, "=")
	}
	q := strings.ToLower(f.Q)
	return func(cr assay.CaseResult) bool {
		if !matchStatus(cr, f.Status, flaky[cr.ID]) {
			return false
		}
		if f.Tag != "" {
			if v, ok := cr.Tags[tagK]; !ok || v != tagV {
				return false
			}
		}
		return q == "" || text[cr.ID] || matchText(cr, q)
	}
}

// groupTrials groups a run's rows by case id, in the order of each
// case's first row. A case whose rows are adjacent (as a run writes
// them) is a slice of cases, not a copy.
func groupTrials(cases []assay.CaseResult) [][]assay.CaseResult {
	at := map[string]int{}
	var out [][]assay.CaseResult
	end := make([]int, 0, len(cases)) // per group: 1 + the index of its last row, while it is a slice of cases
	for i, cr := range cases {
		gi, ok := at[cr.ID]
		switch {
		case !ok:
			at[cr.ID] = len(out)
			out = append(out, cases[i:i+1:i+1])
			end = append(end, i+1)
		case end[gi] == i:
			first := i - len(out[gi])
			out[gi] = cases[first : i+1 : i+1]
			end[gi] = i + 1
		default:
			out[gi] = append(out[gi], cr) // a copy (cap ended at its last row)
			end[gi] = -1
		}
	}
	return out
}

// statusRank orders statuses for sorting: what needs a look first.
var statusRank = map[string]int{"error": 0, "fail": 1, "ungraded": 2, "pass": 3}

// sortGroups sorts the cases by key (a "-" first: descending); a case
// with no value sorts last either way, and ties keep run order.
func sortGroups(gs [][]assay.CaseResult, key string) {
	if key == "" {
		return
	}
	val := sortValue(key)
	ks := make([]sortKeyed, len(gs))
	for i, g := range gs {
		v, ok := val(g)
		ks[i] = sortKeyed{g[0].ID, v, ok, i}
	}
	slices.SortFunc(ks, sortCompare(key))
	out := slices.Clone(gs)
	for i := range ks {
		gs[i] = out[ks[i].at]
	}
}

// sortKeyed is a case's sort key: its id, its value (ok: it has one) and
// where it was (at).
type sortKeyed struct {
	id string
	v  float64
	ok bool
	at int
}

// sortValue is the value a case is sorted by for key (its "-" ignored).
func sortValue(key string) func(g []assay.CaseResult) (float64, bool) {
	k := strings.TrimPrefix(key, "-")
	return func(g []assay.CaseResult) (float64, bool) {
		switch k {
		case "latency":
			return meanOf(g, func(cr assay.CaseResult) (float64, bool) {
				if cr.LatencyMs == nil {
					return 0, false
				}
				return *cr.LatencyMs, true
			})
		case "status":
			return float64(statusRank[groupStatus(g)]), true
		case "id":
			return 0, true
		}
		return meanOf(g, func(cr assay.CaseResult) (float64, bool) { v, ok := cr.Metrics[k]; return v, ok })
	}
}

// sortCompare orders sort keys for key: the cases with no value last,
// descending when key starts with "-", ties in run order (at).
func sortCompare(key string) func(a, b sortKeyed) int {
	k, desc := strings.TrimPrefix(key, "-"), strings.HasPrefix(key, "-")
	return func(a, b sortKeyed) int {
		if a.ok != b.ok {
			if a.ok {
				return -1
			}
			return 1
		}
		var c int
		if k == "id" {
			c = strings.Compare(a.id, b.id)
		} else {
			c = cmp.Compare(a.v, b.v)
		}
		if desc {
			c = -c
		}
		if c == 0 {
			// Ties keep run order: with it the order is total, so an
			// unstable sort is stable.
			return cmp.Compare(a.at, b.at)
		}
		return c
	}
}

func meanOf(g []assay.CaseResult, f func(assay.CaseResult) (float64, bool)) (float64, bool) {
	sum, n := 0.0, 0
	for _, cr := range g {
		if v, ok := f(cr); ok {
			sum += v
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// groupStatus is a case's status over its trials: pass when every trial
// passed, else fail when one failed, else error when one errored, else
// ungraded.
func groupStatus(g []assay.CaseResult) string {
	seen := map[string]bool{}
	for _, cr := range g {
		seen[status(cr)] = true
	}
	switch {
	case len(seen) == 1:
		return status(g[0])
	case seen["fail"]:
		return "fail"
	case seen["error"]:
		return "error"
	}
	return "ungraded"
}

// makeRow is one row of the case table: a case trial, or a case with
// its trials (g holds them).
func makeRow(g []assay.CaseResult, names []string, flaky bool) caseRow {
	cr := g[0]
	row := caseRow{ID: cr.ID, Trial: cr.Trial, Status: groupStatus(g), Flaky: flaky, Source: cr.Source}
	if v, ok := meanOf(g, func(cr assay.CaseResult) (float64, bool) {
		if cr.LatencyMs == nil {
			return 0, false
		}
		return *cr.LatencyMs, true
	}); ok {
		row.Latency = &v
	}
	for _, n := range names {
		if v, ok := meanOf(g, func(cr assay.CaseResult) (float64, bool) { v, ok := cr.Metrics[n]; return v, ok }); ok {
			row.Values = append(row.Values, fmt.Sprintf("%.4f", v))
		} else {
			row.Values = append(row.Values, "-")
		}
	}
	pass := 0
	for _, t := range g {
		if t.Passed() {
			pass++
		}
		facts := factsOf(t)
		if row.Facts == nil {
			row.Facts = facts
		}
		if len(g) > 1 {
			row.Each = append(row.Each, trialRow{Trial: t.Trial, Status: status(t), Latency: t.LatencyMs, Facts: facts})
		}
	}
	if len(g) > 1 {
		row.Trials = fmt.Sprintf("%d/%d pass", pass, len(g))
	}
	var tags []string
	for _, k := range slices.Sorted(maps.Keys(cr.Tags)) {
		tags = append(tags, k+"="+cr.Tags[k])
	}
	row.Tags = strings.Join(tags, " ")
	return row
}

// factsOf is what failed in a case trial: its error, or its failing checks.
func factsOf(cr assay.CaseResult) []string {
	if cr.Error != nil {
		return []string{"error " + string(cr.Error.Class) + ": " + cr.Error.Message}
	}
	var out []string
	for _, ch := range cr.Checks {
		if !ch.Pass {
			out = append(out, checkLine(ch))
		}
	}
	return out
}

func checkLine(ch assay.Check) string {
	if ch.Detail == "" {
		return ch.Kind
	}
	return ch.Kind + ": " + ch.Detail
}

func status(cr assay.CaseResult) string {
	switch {
	case cr.Error != nil:
		return "error"
	case cr.Pass == nil:
		return "ungraded"
	case *cr.Pass:
		return "pass"
	}
	return "fail"
}

// matchStatus: failing is what the text report lists as failing (graded
// and not passed, or not graded and errored).
func matchStatus(cr assay.CaseResult, st string, flaky bool) bool {
	switch st {
	case "failing":
		return (cr.Pass != nil && !*cr.Pass) || (cr.Pass == nil && cr.Error != nil)
	case "errored":
		return cr.Error != nil
	case "ungraded":
		return cr.Pass == nil
	case "flaky":
		return flaky
	case "passing":
		return cr.Passed()
	}
	return true
}

func matchText(cr assay.CaseResult, q string) bool {
	if strings.Contains(strings.ToLower(cr.ID), q) {
		return true
	}
	if cr.Error != nil && strings.Contains(strings.ToLower(cr.Error.Message), q) {
		return true
	}
	for _, ch := range cr.Checks {
		if strings.Contains(strings.ToLower(ch.Kind+": "+ch.Detail), q) {
			return true
		}
	}
	for k, v := range cr.Tags {
		if strings.Contains(strings.ToLower(k+"="+v), q) {
			return true
		}
	}
	return false
}

// flakyCases are the cases whose graded trials disagree (some passed,
// some did not), as runner.Trials counts them.
func flakyCases(cases []assay.CaseResult) map[string]bool {
	type seen struct{ pass, fail bool }
	m := map[string]*seen{}
	for _, c := range cases {
		if !c.Graded() && c.Error == nil {
			continue
		}
		x := m[c.ID]
		if x == nil {
			x = &seen{}
			m[c.ID] = x
		}
		if c.Passed() {
			x.pass = true
		} else {
			x.fail = true
		}
	}
	out := map[string]bool{}
	for id, x := range m {
		if x.pass && x.fail {
			out[id] = true
		}
	}
	return out
}

// ---- case page ----

type caseData struct {
	Run       *assay.Run
	ID        string
	Query     string
	Guards    string
	SuiteNote string
	// Review is the suite case's review state ("pending": proposed from
	// traces, not checked yet); Provenance where a case proposed from
	// traces came from: the suite case's provenance, else that of the
	// observation (imported from traces), by name.
	Review     string
	Provenance []provenanceRow
	// Turns is the number of turns of a conversation case (0: a case of
	// one query, or the suite could not be read again).
	Turns  int
	Trials []trialView
}

type provenanceRow struct{ Name, Value string }

type trialView struct {
	R         assay.CaseResult
	Status    string
	Answer    []segment
	HasAnswer bool
	Marked    bool   // an expected or forbidden string is highlighted
	Lang      string // the case's lang tag, when it is a language tag
	Refused   string
	Ranking   []rankRow
	Missed    []string
	Citations []citeRow
	Tools     []toolRow
	Checks    []assay.Check // failing first
	Failing   int
	SameAs    int // the trial this one repeats (same status, checks, answer and ranking); 0 none
	Spans     *waterfall
	Metrics   []metricValue
	// Unjudged is the case's unj@k by cutoff, only when its top k holds an
	// unjudged document (report.HasUnjudged).
	Unjudged []metricValue
	Raw      template.HTML // the observation JSON, escaped as text
	NoObs    bool
	// Turns are the turns of a conversation, each shown as a small trial
	// of its own; the trial's other fields are the conversation's.
	Turns []turnView
}

// turnView is one turn of a conversation: its number, the user's message
// (empty when the suite could not be read again) and its result.
type turnView struct {
	N     int
	Query string
	V     trialView
}

type toolRow struct {
	assay.ToolCall
	Forbidden bool // the case says it never calls this tool
}

type segment struct {
	Text  string
	Class string // "", "expected", "forbidden"
}

type rankRow struct {
	Rank  int
	ID    string
	Title string
	Path  string
	Score string
	Grade string
	Cited bool
	Text  string
}

type citeRow struct {
	Name, Title, Path, Quote string
	Surfaced                 bool
}

type metricValue struct {
	Name  string
	Value float64
	// Upper is the value with the unjudged documents counted relevant,
	// when it differs (CaseResult.Upper).
	Upper *float64
}

func (s *server) casePage(ctx context.Context, r *http.Request) (string, any, error) {
	c, err := s.src.caseRun(ctx, r.PathValue("id"))
	if err != nil {
		return "", nil, err
	}
	id := r.PathValue("case")
	views, sc, cs, err := s.src.caseViews(c, id)
	if err != nil {
		return "", nil, err
	}
	return "case", buildCase(c.run, id, views, sc, cs), nil
}

func buildCase(run *assay.Run, id string, views []report.CaseView, sc *assay.Case, cs bool) *caseData {
	d := &caseData{Run: run, ID: id}
	if len(views) > 0 {
		d.Query, d.SuiteNote = views[0].Query, views[0].SuiteNote
	}
	var expect assay.Expect
	if sc != nil {
		expect, d.Guards, d.Turns = sc.Expect, sc.Guards, len(sc.Turns)
		if expect.CaseSensitive != nil {
			cs = *expect.CaseSensitive
		}
	}
	for _, v := range views {
		t := trialOf(v, expect, cs)
		for _, p := range d.Trials {
			if p.SameAs == 0 && sameTrial(p.R, t.R) {
				t.SameAs = p.R.Trial
				break
			}
		}
		d.Trials = append(d.Trials, t)
	}
	d.Provenance = provenanceOf(sc, views)
	if sc != nil {
		d.Review = sc.Review
	}
	return d
}

// provenanceOf is the case's provenance (see caseData.Provenance).
func provenanceOf(sc *assay.Case, views []report.CaseView) []provenanceRow {
	var rows []provenanceRow
	if sc != nil && len(sc.Provenance) > 0 {
		for _, k := range slices.Sorted(maps.Keys(sc.Provenance)) {
			rows = append(rows, provenanceRow{k, sc.Provenance[k]})
		}
		return rows
	}
	for _, v := range views {
		o := v.Result.Observation
		if o == nil || o.Provenance == nil {
			continue
		}
		p := o.Provenance
		add := func(k, v string) {
			if v != "" {
				rows = append(rows, provenanceRow{k, v})
			}
		}
		add("trace_id", p.TraceID)
		add("span_id", p.SpanID)
		add("service", p.Service)
		add("time", p.Time)
		add("session", p.Session)
		add("status", p.Status)
		if f := p.Feedback; f != nil {
			add("feedback", f.Label)
			if f.Score != nil {
				add("feedback_score", fmtFloat(*f.Score))
			}
			add("comment", f.Comment)
		}
		for _, e := range p.Evaluations {
			val := e.Label
			if e.Score != nil {
				val = strings.TrimSpace(fmtFloat(*e.Score) + " " + e.Label)
			}
			add("evaluation "+e.Name, val)
		}
		return rows
	}
	return nil
}

// langTag is v when it can be an HTML lang attribute (a BCP 47 tag such
// as "de" or "pt-BR"), else "".
func langTag(v string) string {
	if len(v) < 2 || len(v) > 35 {
		return ""
	}
	for i, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 1 && (r == '-' || r >= '0' && r <= '9')) {
			return ""
		}
	}
	return v
}

// sameTrial reports whether two trials of a case came out the same: the
// same status, checks, answer and ranking (latency and spans may differ).
func sameTrial(a, b assay.CaseResult) bool {
	if status(a) != status(b) || !slices.Equal(a.Checks, b.Checks) || (a.Error == nil) != (b.Error == nil) {
		return false
	}
	if a.Error != nil && *a.Error != *b.Error {
		return false
	}
	oa, ob := a.Observation, b.Observation
	if oa == nil || ob == nil {
		return oa == ob
	}
	if oa.Answer != ob.Answer || len(oa.Retrieved) != len(ob.Retrieved) {
		return false
	}
	for i := range oa.Retrieved {
		if oa.Retrieved[i].ID != ob.Retrieved[i].ID {
			return false
		}
	}
	return true
}

func trialOf(v report.CaseView, e assay.Expect, cs bool) trialView {
	r := v.Result
	t := trialView{R: r, Status: status(r)}
	for _, ch := range r.Checks {
		if !ch.Pass {
			t.Checks = append(t.Checks, ch)
		}
	}
	t.Failing = len(t.Checks)
	t.Lang = langTag(r.Tags["lang"])
	for _, ch := range r.Checks {
		if ch.Pass {
			t.Checks = append(t.Checks, ch)
		}
	}
	for i, tr := range r.Turns {
		tv := report.CaseView{Result: tr}
		te := assay.Expect{}
		q := ""
		if i < len(v.Turns) {
			tv.Judgments, te, q = v.Turns[i].Judgments, v.Turns[i].Expect, v.Turns[i].Query
		}
		tcs := cs
		if te.CaseSensitive != nil {
			tcs = *te.CaseSensitive
		}
		t.Turns = append(t.Turns, turnView{N: tr.Turn, Query: q, V: trialOf(tv, te, tcs)})
	}
	for _, k := range slices.Sorted(maps.Keys(r.Metrics)) {
		mv := metricValue{Name: k, Value: r.Metrics[k]}
		if u, ok := r.Upper[k]; ok {
			mv.Upper = &u
		}
		t.Metrics = append(t.Metrics, mv)
	}
	if report.HasUnjudged(r) {
		for _, k := range report.UnjudgedCutoffs(r.Unjudged) {
			t.Unjudged = append(t.Unjudged, metricValue{Name: k, Value: r.Unjudged[k]})
		}
	}
	o := r.Observation
	if o == nil {
		t.NoObs = true
		return t
	}
	t.HasAnswer = o.Answer != ""
	t.Answer = highlight(o.Answer, append(append([]string{}, e.AnswerIncludes...), e.AnswerIncludesAny...), e.AnswerExcludes, cs)
	for _, seg := range t.Answer {
		t.Marked = t.Marked || seg.Class != ""
	}
	if o.Refused != nil {
		t.Refused = fmt.Sprintf("%t (reported by the target)", *o.Refused)
	} else {
		t.Refused = fmt.Sprintf("%t (by the refusal markers)", r.Refused)
	}
	seen := map[string]bool{}
	for i, h := range o.Retrieved {
		seen[h.ID] = true
		row := rankRow{Rank: i + 1, ID: h.ID, Title: h.Title, Path: h.Path, Score: fmtFloat(h.Score), Grade: "-", Text: redact.Clip(h.Text, 300)}
		if g, ok := v.Judgments[h.ID]; ok {
			row.Grade = fmt.Sprint(g)
		}
		for _, c := range o.Citations {
			if citeMatches(c, h) {
				row.Cited = true
			}
		}
		t.Ranking = append(t.Ranking, row)
	}
	for _, id := range slices.Sorted(maps.Keys(v.Judgments)) {
		if v.Judgments[id] > 0 && !seen[id] {
			t.Missed = append(t.Missed, id)
		}
	}
	for _, c := range o.Citations {
		row := citeRow{Name: citationName(c), Title: c.Title, Path: c.Path, Quote: c.Quote}
		for _, h := range o.Retrieved {
			if citeMatches(c, h) {
				row.Surfaced = true
			}
		}
		t.Citations = append(t.Citations, row)
	}
	for _, tc := range o.Tools {
		t.Tools = append(t.Tools, toolRow{tc, slices.Contains(e.NeverCalls, tc.Name)})
	}
	t.Spans = spanWaterfall(o.Spans, r.LatencyMs)
	if b, err := rawJSON(o); err == nil {
		t.Raw = textHTML(string(b))
	}
	return t
}

// rawJSON is the observation's JSON with one top-level field a line,
// each value compact: readable, and a third the size of an indented one.
func rawJSON(o *assay.Observation) ([]byte, error) {
	b, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var out bytes.Buffer
	out.WriteString("{")
	for i := 0; dec.More(); i++ {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if i > 0 {
			out.WriteString(",")
		}
		key, _ := json.Marshal(k)
		fmt.Fprintf(&out, "\n %s: %s", key, v)
	}
	out.WriteString("\n}")
	return out.Bytes(), nil
}

// textEscaper escapes text for an element's content: only &, < and >
// mean something there (html/template also escapes quotes, which makes a
// JSON document half again as long).
var textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// textHTML is s escaped as the text of an element (never an attribute).
func textHTML(s string) template.HTML { return template.HTML(textEscaper.Replace(s)) }

// citeMatches is the grader's rule: a citation matches a retrieved
// document by id, path or title.
func citeMatches(c assay.Citation, h assay.Hit) bool {
	for _, v := range []string{c.ID, c.Path, c.Title} {
		if v != "" && (v == h.ID || v == h.Path || v == h.Title) {
			return true
		}
	}
	return false
}

func citationName(c assay.Citation) string {
	switch {
	case c.ID != "":
		return c.ID
	case c.Path != "":
		return c.Path
	}
	return c.Title
}

func fmtFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), ".")
}

// highlight splits the answer into segments, marking each occurrence of
// an expected string and of a forbidden one (case-insensitively unless
// cs), as the substring graders find them. A forbidden match wins where
// the two overlap.
func highlight(answer string, expected, forbidden []string, cs bool) []segment {
	if answer == "" {
		return nil
	}
	marks := make([]string, len(answer))
	mark := func(list []string, class string) {
		for _, s := range list {
			if s == "" {
				continue
			}
			pat := regexp.QuoteMeta(s)
			if !cs {
				pat = "(?i)" + pat
			}
			re, err := regexp.Compile(pat)
			if err != nil {
				continue
			}
			for _, loc := range re.FindAllStringIndex(answer, 1000) {
				for i := loc[0]; i < loc[1]; i++ {
					if marks[i] == "" || class == "forbidden" {
						marks[i] = class
					}
				}
			}
		}
	}
	mark(expected, "expected")
	mark(forbidden, "forbidden")
	var out []segment
	start := 0
	for i := 1; i <= len(answer); i++ {
		if i == len(answer) || marks[i] != marks[start] {
			out = append(out, segment{answer[start:i], marks[start]})
			start = i
		}
	}
	return out
}

// ---- compare page ----

type compareData struct {
	Rep  compare.Report
	Base string
	Cand string
	// Sensitivity and ClusterNote are the text report's lines
	// (report.Sensitivity, report.ClusterNote).
	Sensitivity string
	ClusterNote string
	Diffs       []diffRow
	DiffTotal   int
	Head        string
	Gates       []gateChange
	Segments    []segChange
	// Lists are the flip lists by kind (flipKinds), each bounded to
	// maxListedIDs ids unless it is All, the one list shown whole (paged
	// at flipPageSize, page Page).
	Lists map[string]*idList
	// ListedNote says which changed cases Diffs lists when it is not the
	// first ones ("" when it is).
	ListedNote string
	All        string
	Page       int
}

// idList is one list of case ids as a page shows it: IDs the ids on the
// page, More the ids left out after them (the page links to the whole
// list), Page and Pages the place of IDs in a list shown whole.
type idList struct {
	Kind        string
	IDs         []string
	Total, More int
	Page, Pages int
}

// maxListedIDs is the most case ids a flip list of the compare page names
// before "and N more" (as a gate's detail does).
const maxListedIDs = gate.MaxListedCases

// flipPageSize is the ids a page of one whole flip list shows.
const flipPageSize = 200

// flipKinds are the compare page's flip lists, by the name a link to the
// whole list carries.
var flipKinds = []string{"pass-to-fail", "fail-to-pass", "answered-to-refused", "refused-to-answered", "changed-not-paired", "new-failures", "flaky", "unconfirmed"}

// boundLists makes d.Lists from the report's flip lists: every list cut
// at maxListedIDs but d.All, which shows page d.Page (from 1) of
// flipPageSize ids.
func (d *compareData) boundLists() {
	ev := func(cs []compare.CaseEvidence) []string {
		ids := make([]string, len(cs))
		for i, c := range cs {
			ids[i] = c.ID
		}
		return ids
	}
	f := d.Rep.Flips
	all := map[string][]string{
		"pass-to-fail": f.PassToFail, "fail-to-pass": f.FailToPass,
		"answered-to-refused": f.AnsweredToRefused, "refused-to-answered": f.RefusedToAnswered,
		"changed-not-paired": d.Rep.ChangedCases,
	}
	if e := d.Rep.FlipEvidence; e != nil {
		all["new-failures"], all["flaky"], all["unconfirmed"] = ev(e.Confirmed), ev(e.Flaky), ev(e.Unconfirmed)
	}
	d.Lists = map[string]*idList{}
	for _, k := range flipKinds {
		ids := all[k]
		l := &idList{Kind: k, Total: len(ids), IDs: ids}
		if k == d.All {
			l.Pages = max(1, (len(ids)+flipPageSize-1)/flipPageSize)
			l.Page = min(max(d.Page, 1), l.Pages)
			lo := (l.Page - 1) * flipPageSize
			l.IDs = ids[lo:min(lo+flipPageSize, len(ids))]
		} else if len(ids) > maxListedIDs {
			l.IDs, l.More = ids[:maxListedIDs], len(ids)-maxListedIDs
		}
		d.Lists[k] = l
	}
}

type diffRow struct {
	ID         string
	Base, Cand string // statuses (pass/fail/error/ungraded; several trials joined)
	BaseTrials string // "2/3 pass" when the case ran several trials
	CandTrials string
	BaseHead   string
	CandHead   string
	Delta      string
	Flip       string // "pass → fail", "fail → pass" or ""
	Tags       string
	Why        string // the candidate's first failing check (or error)
	delta      float64
}

// gateChange is one gate as the baseline and the candidate evaluated it.
type gateChange struct {
	Expr       string
	Base, Cand *assay.GateResult // nil: the run has no such gate
	Change     string            // "✓ → ✗", "✗ → ✓", "" unchanged
}

// segChange is one tag's paired comparison: pass rate and the head
// metric over the cases carrying it, each tested as assay compare tests a
// measure (compare.PairMeasure, compare.DeltaInterval), the p-values of
// a measure adjusted over the segments by Holm's method.
type segChange struct {
	Name     string
	Measures []segMeasure
}

type segMeasure struct {
	N          int
	Base, Cand string
	Delta      string
	P, PAdj    float64
	Change     string // "worse", "better" or "" (adjusted p at or above alpha)
}

// maxDiffs is the number of per-case diff rows the compare page lists.
const maxDiffs = 500

func (s *server) comparePage(ctx context.Context, r *http.Request) (string, any, error) {
	q := r.URL.Query()
	base, cand := q.Get("base"), q.Get("cand")
	if base == "" || cand == "" {
		b, c, err := s.defaultPair(ctx, q.Get("suite"))
		if err != nil {
			return "", nil, err
		}
		if base == "" {
			base = b
		}
		if cand == "" {
			cand = c
		}
	}
	// The comparison and the changed-case table are made from the two
	// runs the run cache holds. Each REF is resolved once: the comparison and the rows read the
	// same two runs even when latest moves meanwhile.
	bk, err := s.src.resolve(ctx, base)
	if err != nil {
		return "", nil, err
	}
	ck, err := s.src.resolve(ctx, cand)
	if err != nil {
		return "", nil, err
	}
	rep, forms, err := s.src.compareForms(ctx, bk, ck)
	if err != nil {
		return "", nil, err
	}
	d, err := buildCompareOf(rep, forms[0], forms[1], maxDiffs, func() (*assay.Run, *assay.Run, error) {
		bc, err := s.src.loadKey(ctx, bk)
		if err != nil {
			return nil, nil, err
		}
		cc, err := s.src.loadKey(ctx, ck)
		if err != nil {
			return nil, nil, err
		}
		return bc.run, cc.run, nil
	})
	if err != nil {
		return "", nil, err
	}
	if all := q.Get("flips"); all != "" {
		if !slices.Contains(flipKinds, all) {
			return "", nil, badRequest("flips=%q: want one of %s", all, strings.Join(flipKinds, ", "))
		}
		page, err := intParam(r, "page", 1)
		if err != nil {
			return "", nil, err
		}
		d.All, d.Page = all, page
		d.boundLists()
	}
	return "compare", d, nil
}

// defaultPair is the latest two complete runs of suite (of the suite of
// the latest complete run when suite is "").
func (s *server) defaultPair(ctx context.Context, suite string) (string, string, error) {
	if suite == "" {
		es, err := s.src.list(ctx, "", 0)
		if err != nil {
			return "", "", err
		}
		for _, e := range es {
			if e.Status == assay.StatusComplete {
				suite = e.Suite
				break
			}
		}
	}
	es, err := s.src.list(ctx, suite, 0)
	if err != nil {
		return "", "", err
	}
	var ids []string
	for _, e := range es {
		if e.Status == assay.StatusComplete && e.Suite == suite {
			ids = append(ids, e.RunID)
			if len(ids) == 2 {
				return ids[1], ids[0], nil
			}
		}
	}
	return "", "", notFound("compare needs two complete runs of a suite; the store has %d of suite %q: pick two runs on the runs page", len(ids), suite)
}

func buildCompare(rep compare.Report, base, cand *assay.Run, limit int) *compareData {
	forms := [2]*cmpRun{}
	for i, run := range [2]*assay.Run{base, cand} {
		forms[i] = &cmpRun{}
		if names := report.MetricOrder(cand); len(names) > 0 {
			forms[i].head = names[0]
		}
		forms[i].fromRun(run, "")
	}
	d, _ := buildCompareOf(rep, forms[0], forms[1], limit, nil)
	return d
}

// buildCompareOf is the compare page of the runs base and cand in
// compact form (their outcomes for cand's head metric). full loads both
// runs whole, for a segment table whose runs tag a case differently
// (sameTags); it is not called when both were loaded whole already.
func buildCompareOf(rep compare.Report, base, cand *cmpRun, limit int, full func() (*assay.Run, *assay.Run, error)) (*compareData, error) {
	d := &compareData{Rep: rep, Base: base.run.RunID, Cand: cand.run.RunID, Sensitivity: report.Sensitivity(rep), ClusterNote: report.ClusterNote(rep)}
	d.Head = cand.head
	flip := map[string]string{}
	for _, id := range rep.Flips.PassToFail {
		flip[id] = "pass → fail"
	}
	for _, id := range rep.Flips.FailToPass {
		flip[id] = "fail → pass"
	}
	b, c := base.outs, cand.outs
	for _, id := range cand.ids {
		co := c[id]
		bo, ok := b[id]
		if !ok {
			continue
		}
		if bo.status == co.status && bo.head == co.head && flip[id] == "" {
			continue
		}
		d.DiffTotal++
		if limit > 0 && len(d.Diffs) >= limit {
			continue
		}
		row := diffRow{ID: id, Base: bo.status, Cand: co.status, BaseHead: "-", CandHead: "-", Flip: flip[id], BaseTrials: bo.trials(), CandTrials: co.trials()}
		if bo.hasHead {
			row.BaseHead = fmt.Sprintf("%.4f", bo.head)
		}
		if co.hasHead {
			row.CandHead = fmt.Sprintf("%.4f", co.head)
		}
		if bo.hasHead && co.hasHead {
			row.Delta, row.delta = fmt.Sprintf("%+.4f", co.head-bo.head), co.head-bo.head
		}
		d.Diffs = append(d.Diffs, row)
	}
	// pass → fail first, then fail → pass, then the rest in suite order.
	rank := func(f string) int {
		switch f {
		case "pass → fail":
			return 0
		case "fail → pass":
			return 1
		}
		return 2
	}
	sort.SliceStable(d.Diffs, func(i, j int) bool { return rank(d.Diffs[i].Flip) < rank(d.Diffs[j].Flip) })
	listed := map[string]*diffRow{}
	want := map[string]bool{}
	for i := range d.Diffs {
		listed[d.Diffs[i].ID] = &d.Diffs[i]
		want[d.Diffs[i].ID] = true
	}
	err := cand.rowsOf(want, func(cr assay.CaseResult) {
		row := listed[cr.ID]
		if row.Tags == "" {
			var tags []string
			for _, k := range slices.Sorted(maps.Keys(cr.Tags)) {
				tags = append(tags, k+"="+cr.Tags[k])
			}
			row.Tags = strings.Join(tags, " ")
		}
		if f := factsOf(cr); row.Why == "" && len(f) > 0 {
			row.Why = f[0]
		}
	})
	if err != nil {
		return nil, err
	}
	d.Gates = gateChanges(base.run.Gates, cand.run.Gates)
	if d.Segments, err = segChanges(base, cand, d.Head, rep.Alpha, full); err != nil {
		return nil, err
	}
	d.boundLists()
	return d, nil
}

// gateChanges pairs the two runs' gates by expression, in the
// candidate's order (then the baseline's gates it lacks), newly failing
// first.
func gateChanges(base, cand []assay.GateResult) []gateChange {
	var out []gateChange
	at := map[string]int{}
	for i := range cand {
		at[cand[i].Expr] = len(out)
		out = append(out, gateChange{Expr: cand[i].Expr, Cand: &cand[i]})
	}
	for i := range base {
		if j, ok := at[base[i].Expr]; ok {
			out[j].Base = &base[i]
		} else {
			out = append(out, gateChange{Expr: base[i].Expr, Base: &base[i]})
		}
	}
	mark := func(g *assay.GateResult) string {
		switch {
		case g == nil:
			return "-"
		case g.Pass:
			return "✓"
		}
		return "✗"
	}
	for i := range out {
		if b, c := mark(out[i].Base), mark(out[i].Cand); b != c {
			out[i].Change = b + " → " + c
		}
	}
	rank := func(g gateChange) int {
		switch {
		case g.Change == "✓ → ✗":
			return 0
		case g.Cand != nil && !g.Cand.Pass:
			return 1
		case g.Change != "":
			return 2
		}
		return 3
	}
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i]) < rank(out[j]) })
	return out
}

// maxSegments bounds the segments the compare page tests.
const maxSegments = 50

// segChanges compares pass_rate and head over each segment (tag value)
// both runs have. A segment keeps the pairs whose trials carry its tag in
// both runs (compare.PairMeasure's keep of both sides): of two runs in
// compact form that tag every case alike (sameTags), those whose
// candidate trial carries it (compare.PairCompactEach, the cases paired
// once for all segments); of others, the pairs
// of the runs loaded whole (full).
func segChanges(base, cand *cmpRun, head string, alpha float64, full func() (*assay.Run, *assay.Run, error)) ([]segChange, error) {
	bs, cs := base.run.Segments, cand.run.Segments
	var names []string
	for _, k := range slices.Sorted(maps.Keys(cs)) {
		if _, ok := bs[k]; ok && len(names) < maxSegments {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	if alpha == 0 {
		alpha = compare.Defaults.Alpha
	}
	// pair pairs measure m over each segment.
	var pair func(m string) []compare.Paired
	switch {
	case base.cases != nil && cand.cases != nil, !sameTags(base, cand):
		b, c := &assay.Run{Cases: base.cases}, &assay.Run{Cases: cand.cases}
		if base.cases == nil || cand.cases == nil {
			var err error
			if b, c, err = full(); err != nil {
				return nil, err
			}
		}
		pair = func(m string) []compare.Paired {
			out := make([]compare.Paired, len(names))
			for i, n := range names {
				k, v, _ := strings.Cut(n, "=")
				out[i] = compare.PairMeasure(b, c, m, func(r *assay.CaseResult) bool { x, ok := r.Tags[k]; return ok && x == v })
			}
			return out
		}
	default:
		keeps := make([]func(int) bool, len(names))
		for i, n := range names {
			k, v, _ := strings.Cut(n, "=")
			keeps[i] = func(i int) bool { x, ok := cand.c.Tag(i, k); return ok && x == v }
		}
		pair = func(m string) []compare.Paired { return compare.PairCompactEach(base.c, cand.c, m, keeps) }
	}
	measures := []string{"pass_rate"}
	if head != "" {
		measures = append(measures, head)
	}
	out := make([]segChange, len(names))
	for i, n := range names {
		out[i].Name = n
	}
	// Each measure's segments are paired at once, the measures side by
	// side, then every segment's test is run on the cores (the tests are
	// most of the table's time; each is fixed by its deltas alone).
	pairs := make([][]compare.Paired, len(measures))
	var wg sync.WaitGroup
	for j, m := range measures {
		wg.Go(func() { pairs[j] = pair(m) })
	}
	wg.Wait()
	var ds [][]float64
	for _, pms := range pairs {
		for _, pm := range pms {
			ds = append(ds, pm.Deltas)
		}
	}
	ivs := compare.DeltaIntervals(ds, alpha, compare.Options{})
	for j, m := range measures {
		ps := make([]float64, len(names))
		ms := make([]segMeasure, len(names))
		pms := pairs[j]
		for i, n := range names {
			pm := pms[i]
			iv := ivs[j*len(names)+i]
			ms[i] = segMeasure{N: iv.N, P: iv.P, Base: "-", Cand: "-", Delta: "-"}
			ps[i] = iv.P
			if iv.N == 0 {
				ps[i] = math.NaN()
			} else {
				ms[i].Delta = fmt.Sprintf("%+.4f", iv.Delta)
			}
			ms[i].Base, ms[i].Cand = segValue(bs[n], m), segValue(cs[n], m)
			if iv.N > 0 {
				switch {
				case pm.Direction == "higher" && iv.Delta < 0, pm.Direction == "lower" && iv.Delta > 0:
					ms[i].Change = "worse"
				case pm.Direction == "higher" && iv.Delta > 0, pm.Direction == "lower" && iv.Delta < 0:
					ms[i].Change = "better"
				}
			}
		}
		adj := compare.Holm(ps)
		for i := range ms {
			ms[i].PAdj = adj[i]
			if math.IsNaN(adj[i]) || adj[i] >= alpha {
				ms[i].Change = ""
			}
			out[i].Measures = append(out[i].Measures, ms[i])
		}
	}
	return out, nil
}

// segValue is a segment's pass rate (a percentage) or mean of a metric.
func segValue(s assay.Segment, m string) string {
	if m == "pass_rate" {
		return report.Percent(s.PassRate)
	}
	if a, ok := s.Metrics[m]; ok {
		return fmt.Sprintf("%.4f", a.Mean)
	}
	return "-"
}

// outcome is one case of a run over its trials: the statuses joined
// ("pass", "pass/fail") and the mean of one metric.
type outcome struct {
	status  string
	head    float64
	hasHead bool
	n       int
	order   int // 1 + the index of the case's first row in the run
	rows    int // trials
	passed  int // trials that passed
	// tags is a hash of the first trial's tags; mixedTags says another
	// trial's differ (the segment table pairs compact runs by it).
	tags      uint64
	mixedTags bool
}

// trials is "2/3 pass" for a case of several trials, "" for one.
func (o outcome) trials() string {
	if o.rows <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d pass", o.passed, o.rows)
}

func outcomes(cases []assay.CaseResult, head string) map[string]outcome {
	a := newOutcomeAcc(head, len(cases))
	for i := range cases {
		a.add(&cases[i])
	}
	out, _ := a.done()
	return out
}

// outcomeAcc makes the outcomes of a run's cases added one trial at a
// time (a run read as a stream): one pass, each case's outcome in a
// slice found through one map lookup a row (at 100,000 cases this is a
// good part of the compare page's own time).
type outcomeAcc struct {
	head string
	idx  map[string]int
	acc  []outcome
	ids  []string
	rows int
	h    maphash.Hash
}

func newOutcomeAcc(head string, n int) *outcomeAcc {
	a := &outcomeAcc{head: head, idx: make(map[string]int, n), acc: make([]outcome, 0, n), ids: make([]string, 0, n)}
	a.h.SetSeed(tagSeed)
	return a
}

// tagSeed seeds the hashes of case tags (outcome.tags).
var tagSeed = maphash.MakeSeed()

// add counts the case trial c.
func (a *outcomeAcc) add(c *assay.CaseResult) {
	a.rows++
	j, ok := a.idx[c.ID]
	if !ok {
		j = len(a.acc)
		a.idx[c.ID] = j
		a.acc = append(a.acc, outcome{order: a.rows})
		a.ids = append(a.ids, c.ID)
	}
	o := &a.acc[j]
	o.rows++
	if c.Passed() {
		o.passed++
	}
	switch st := status(*c); {
	case o.status == "":
		o.status = st
	case !slices.Contains(strings.Split(o.status, "/"), st):
		o.status += "/" + st
	}
	if v, ok := c.Metrics[a.head]; ok {
		o.head += v
		o.n++
		o.hasHead = true
	}
	// The tags' hash, whatever their order: a sum of each pair's.
	var th uint64
	for k, v := range c.Tags {
		a.h.Reset()
		a.h.WriteString(k)
		a.h.WriteByte(0)
		a.h.WriteString(v)
		th += a.h.Sum64()
	}
	if o.rows == 1 {
		o.tags = th
	} else if o.tags != th {
		o.mixedTags = true
	}
}

// done returns the outcomes by case id and the distinct case ids in
// their order (caseOrder).
func (a *outcomeAcc) done() (map[string]outcome, []string) {
	out := make(map[string]outcome, len(a.acc))
	for j, id := range a.ids {
		o := a.acc[j]
		if o.n > 0 {
			o.head /= float64(o.n)
		}
		out[id] = o
	}
	return out, a.ids
}

// caseOrder is the distinct case ids of a run in their order.
func caseOrder(cases []assay.CaseResult) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cases {
		if !seen[c.ID] {
			seen[c.ID] = true
			out = append(out, c.ID)
		}
	}
	return out
}
