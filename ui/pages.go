package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
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
}

type runRow struct {
	E       store.Entry
	Values  []string // one per suiteRuns.Metrics
	Gates   int
	Failed  int
	Commit  string
	Dirty   bool
	Checked string // "base" / "cand": the radio preselected
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
			continue
		}
		row := runRow{E: e}
		if h, err := s.src.head(ctx, e); err == nil {
			if sr.Metrics == nil {
				sr.Metrics = firstMetrics(h, 3)
			}
			for _, m := range sr.Metrics {
				if a, ok := h.Summary.Metrics[m]; ok {
					row.Values = append(row.Values, fmt.Sprintf("%.4f", a.Mean))
				} else {
					row.Values = append(row.Values, "-")
				}
			}
			for _, g := range h.Gates {
				row.Gates++
				if !g.Pass {
					row.Failed++
				}
			}
			if h.Git != nil {
				row.Commit, row.Dirty = h.Git.Commit, h.Git.Dirty
			}
		}
		sr.Runs = append(sr.Runs, row)
	}
	for _, sr := range d.Suites {
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
	Metrics  []metricRow
	Segments []segRow
	Head     string
	Filter   caseFilter
	Tags     []string
	Rows     []caseRow
	Total    int // rows matching the filter
	All      int // case trials in the run
	Page     int
	Pages    int
	Prev     string // URLs of the neighbour pages ("" none)
	Next     string
	Stages   []stageRow
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

type caseRow struct {
	ID      string
	Trial   int
	Status  string // pass, fail, error, ungraded
	Facts   []string
	Latency *float64
	Head    string
	Tags    string
	Flaky   bool
	Source  string
}

// caseFilter is the case table's filter, from the URL.
type caseFilter struct {
	Status string // "", failing, errored, ungraded, flaky, passing
	Tag    string // k=v
	Q      string // text search (case id, facts, error, tags)
}

var statusFilters = []string{"failing", "errored", "ungraded", "flaky", "passing"}

func (s *server) runPage(ctx context.Context, r *http.Request) (string, any, error) {
	q := r.URL.Query()
	f := caseFilter{Status: q.Get("status"), Tag: q.Get("tag"), Q: q.Get("q")}
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
		if ok {
			d = buildRun(c, f, page, s.opts.PageSize)
			d.All, d.Total = c.run.Summary.Cases, c.run.Summary.Cases
			d.Pages = max(1, (d.Total+s.opts.PageSize-1)/s.opts.PageSize)
		}
	}
	if d == nil {
		c, err := s.src.load(ctx, r.PathValue("id"))
		if err != nil {
			return "", nil, err
		}
		d = buildRun(c, f, page, s.opts.PageSize)
	}
	if d.Page > 1 {
		d.Prev = pageURL(r.URL, d.Page-1)
	}
	if d.Page < d.Pages {
		d.Next = pageURL(r.URL, d.Page+1)
	}
	return "run", d, nil
}

func pageURL(u *url.URL, page int) string {
	q := u.Query()
	q.Set("page", fmt.Sprint(page))
	return u.Path + "?" + q.Encode()
}

// buildRun makes the run page: the summary, and the page of the case
// table that the filter selects (pageSize rows; 0: every row).
func buildRun(c *cachedRun, f caseFilter, page, pageSize int) *runData {
	run := c.run
	d := &runData{Run: run, Path: c.path, Stopped: c.stopped, Filter: f, Trials: max(run.Options.Trials, 1), All: len(run.Cases)}
	d.Stages = stages(run)
	for _, n := range report.MetricOrder(run) {
		m := run.Summary.Metrics[n]
		d.Metrics = append(d.Metrics, metricRow{n, m.Mean, m.N})
	}
	if len(d.Metrics) > 0 {
		d.Head = d.Metrics[0].Name
	}
	for _, k := range slices.Sorted(maps.Keys(run.Segments)) {
		seg := run.Segments[k]
		row := segRow{Name: k, Cases: seg.Cases, PassRate: seg.PassRate, Head: "-"}
		if m, ok := seg.Metrics[d.Head]; ok {
			row.Head = fmt.Sprintf("%.4f", m.Mean)
		}
		d.Segments = append(d.Segments, row)
	}
	flaky := c.flakyCases()
	for k := range run.Segments {
		d.Tags = append(d.Tags, k)
	}
	sort.Strings(d.Tags)
	var tagK, tagV string
	if f.Tag != "" {
		tagK, tagV, _ = strings.Cut(f.Tag, "=")
	}
	q := strings.ToLower(f.Q)
	start := 0
	if pageSize > 0 {
		start = (max(page, 1) - 1) * pageSize
	}
	for _, cr := range run.Cases {
		if !matchStatus(cr, f.Status, flaky[cr.ID]) {
			continue
		}
		if f.Tag != "" {
			if v, ok := cr.Tags[tagK]; !ok || v != tagV {
				continue
			}
		}
		if q != "" && !matchText(cr, q) {
			continue
		}
		d.Total++
		if d.Total <= start || (pageSize > 0 && d.Total > start+pageSize) {
			continue
		}
		d.Rows = append(d.Rows, makeRow(cr, d.Head, flaky[cr.ID]))
	}
	d.Page, d.Pages = max(page, 1), 1
	if pageSize > 0 && d.Total > 0 {
		d.Pages = (d.Total + pageSize - 1) / pageSize
	}
	return d
}

func makeRow(cr assay.CaseResult, head string, flaky bool) caseRow {
	row := caseRow{ID: cr.ID, Trial: cr.Trial, Status: status(cr), Latency: cr.LatencyMs, Flaky: flaky, Source: cr.Source, Head: "-"}
	if v, ok := cr.Metrics[head]; ok {
		row.Head = fmt.Sprintf("%.4f", v)
	}
	if cr.Error != nil {
		row.Facts = append(row.Facts, "error "+string(cr.Error.Class)+": "+cr.Error.Message)
	} else {
		for _, ch := range cr.Checks {
			if !ch.Pass {
				row.Facts = append(row.Facts, checkLine(ch))
			}
		}
	}
	var tags []string
	for _, k := range slices.Sorted(maps.Keys(cr.Tags)) {
		tags = append(tags, k+"="+cr.Tags[k])
	}
	row.Tags = strings.Join(tags, " ")
	return row
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
	// Turns is the number of turns of a conversation case (0: a case of
	// one query, or the suite could not be read again).
	Turns  int
	Trials []trialView
}

type trialView struct {
	R         assay.CaseResult
	Status    string
	Answer    []segment
	HasAnswer bool
	Marked    bool // an expected or forbidden string is highlighted
	Refused   string
	Ranking   []rankRow
	Missed    []string
	Citations []citeRow
	Tools     []assay.ToolCall
	Spans     *waterfall
	Metrics   []metricValue
	Raw       template.HTML // the observation JSON, escaped as text
	NoObs     bool
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
}

func (s *server) casePage(ctx context.Context, r *http.Request) (string, any, error) {
	c, err := s.src.load(ctx, r.PathValue("id"))
	if err != nil {
		return "", nil, err
	}
	id := r.PathValue("case")
	views, sc, cs, err := s.src.caseViews(c.run, c.path, id)
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
		d.Trials = append(d.Trials, trialOf(v, expect, cs))
	}
	return d
}

func trialOf(v report.CaseView, e assay.Expect, cs bool) trialView {
	r := v.Result
	t := trialView{R: r, Status: status(r)}
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
		t.Metrics = append(t.Metrics, metricValue{k, r.Metrics[k]})
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
	t.Tools = o.Tools
	t.Spans = spanWaterfall(o.Spans)
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
	Rep       compare.Report
	Base      string
	Cand      string
	Diffs     []diffRow
	DiffTotal int
	Head      string
}

type diffRow struct {
	ID         string
	Base, Cand string // statuses (pass/fail/error/ungraded; several trials joined)
	BaseHead   string
	CandHead   string
	Delta      string
	Flip       string // "pass → fail", "fail → pass" or ""
	delta      float64
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
	// The comparison (assay compare's, from the files) and the two runs'
	// rows for the changed-case table are read at once.
	// Each REF is resolved once: the comparison and the rows read the
	// same two runs even when latest moves meanwhile.
	bk, err := s.src.resolve(ctx, base)
	if err != nil {
		return "", nil, err
	}
	ck, err := s.src.resolve(ctx, cand)
	if err != nil {
		return "", nil, err
	}
	var rep compare.Report
	var repErr error
	done := make(chan struct{})
	go func() { rep, repErr = s.src.compare(ctx, bk, ck); close(done) }()
	bc, err := s.src.loadKey(ctx, bk)
	var cc *cachedRun
	if err == nil {
		cc, err = s.src.loadKey(ctx, ck)
	}
	<-done
	if err != nil {
		return "", nil, err
	}
	if repErr != nil {
		return "", nil, repErr
	}
	return "compare", buildCompare(rep, bc.run, cc.run, maxDiffs), nil
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
	d := &compareData{Rep: rep, Base: base.RunID, Cand: cand.RunID}
	if names := report.MetricOrder(cand); len(names) > 0 {
		d.Head = names[0]
	}
	flip := map[string]string{}
	for _, id := range rep.Flips.PassToFail {
		flip[id] = "pass → fail"
	}
	for _, id := range rep.Flips.FailToPass {
		flip[id] = "fail → pass"
	}
	b, c := outcomes(base.Cases, d.Head), outcomes(cand.Cases, d.Head)
	for _, id := range caseOrder(cand.Cases) {
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
		row := diffRow{ID: id, Base: bo.status, Cand: co.status, BaseHead: "-", CandHead: "-", Flip: flip[id]}
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
	// Flips first, then the rest in suite order.
	sort.SliceStable(d.Diffs, func(i, j int) bool { return d.Diffs[i].Flip != "" && d.Diffs[j].Flip == "" })
	return d
}

// outcome is one case of a run over its trials: the statuses joined
// ("pass", "pass/fail") and the mean of one metric.
type outcome struct {
	status  string
	head    float64
	hasHead bool
	n       int
	order   int // 1 + the index of the case's first row in the run
}

func outcomes(cases []assay.CaseResult, head string) map[string]outcome {
	acc := map[string]*outcome{}
	var statuses = map[string][]string{}
	for _, c := range cases {
		o := acc[c.ID]
		if o == nil {
			o = &outcome{}
			acc[c.ID] = o
		}
		st := status(c)
		if !slices.Contains(statuses[c.ID], st) {
			statuses[c.ID] = append(statuses[c.ID], st)
		}
		if v, ok := c.Metrics[head]; ok {
			o.head += v
			o.n++
			o.hasHead = true
		}
	}
	out := make(map[string]outcome, len(acc))
	for i, c := range cases {
		if o := acc[c.ID]; o.order == 0 {
			o.order = i + 1
		}
	}
	for id, o := range acc {
		if o.n > 0 {
			o.head /= float64(o.n)
		}
		o.status = strings.Join(statuses[id], "/")
		out[id] = *o
	}
	return out
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
