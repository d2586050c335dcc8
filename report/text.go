package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/width"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/internal/aggregate"
	"github.com/assay-eval/assay/redact"
)

// TextOptions adjust the terminal summary.
type TextOptions struct {
	// MaxFailures caps the failing cases listed (0: all).
	MaxFailures int
	// Queries maps case id to its query, shown beside failing cases.
	Queries map[string]string
}

// TieRule is how assay orders a ranking, named in every report.
const TieRule = "ranking as returned by the target; a repeated id keeps its first position"

// Text writes the readable summary of a run: totals, metrics with n, rates,
// latency, the segment table, gates, then each failing case with its facts.
func Text(w io.Writer, run *assay.Run, o TextOptions) error {
	p := &printer{w: w}
	s := run.Summary
	target := run.Target.Spec
	if target == "" {
		target = run.Target.Kind
	}
	id := ShortID(run.RunID)
	trials := run.Options.Trials
	if trials == 0 {
		trials = 1
	}
	p.f("assay run %s · suite %s · target %s · %s", nonEmpty(id, "(unsaved)"), run.Suite.Name, target, run.Status)
	if !run.StartedAt.IsZero() && !run.FinishedAt.IsZero() {
		p.f(" in %s", run.FinishedAt.Sub(run.StartedAt).Round(time.Millisecond))
	}
	p.nl()
	p.f("cases %d  graded %d  passed %d  failed %d  errors %d  pass rate %s", s.Cases, s.Graded, s.Passed, s.Failed, s.Errors, Percent(s.PassRate))
	if trials > 1 {
		p.f("  (%d trials per case; counts are case×trial)", trials)
	}
	p.nl()

	if len(s.Metrics) > 0 {
		p.nl()
		gain := run.Gain
		if gain == "" {
			gain = assay.GainLinear
		}
		names := MetricOrder(run)
		over := "mean over judged cases"
		if slices.ContainsFunc(names, func(n string) bool { _, ok := s.Metrics[n]; return ok && assay.IsNuggetMetric(n) }) {
			over += ", nugget metrics over the cases with nuggets"
		}
		p.f("metrics (%s; gain %s; %s)\n", over, gain, TieRule)
		width := 8
		for _, n := range names {
			width = max(width, len(n))
		}
		for _, n := range names {
			m, ok := s.Metrics[n]
			if !ok {
				continue
			}
			p.f("  %-*s  %.4f  n=%d\n", width, n, m.Mean, m.N)
		}
	}

	p.nl()
	p.f("rates    no_hit %s  refusal %s  grounded %s  error %s\n", Percent(s.Rates.NoHit), Percent(s.Rates.Refusal), Percent(s.Rates.Grounded), Percent(s.Rates.Error))
	if s.LatencyMs.N > 0 {
		l := s.LatencyMs
		p.f("latency  p50 %s  p95 %s  p99 %s  max %s  (ms, nearest-rank, n=%d)\n", Millis(l.P50), Millis(l.P95), Millis(l.P99), Millis(l.Max), l.N)
	} else {
		p.f("latency  none reported\n")
	}
	for _, name := range StageNames(s.Stages) {
		l := s.Stages[name]
		p.f("  stage  %-8s p50 %s  p95 %s  (ms, n=%d)\n", Escape(name), Millis(l.P50), Millis(l.P95), l.N)
	}
	if s.Retried > 0 {
		p.f("retried  %d of %d cases (latency excludes the backoff waits; latency_total_ms has them)\n", s.Retried, s.Cases)
	}
	if s.Cached > 0 {
		p.f("cached   %d of %d cases answered from the cache, not the system (no latency measured for them)\n", s.Cached, s.Cases)
	}
	if l := CostLine(s); l != "" {
		p.f("cost     %s\n", l)
	}
	if l := NotRunLine(s); l != "" {
		p.f("not run  %s\n", l)
	}
	if len(run.Measures) > 0 {
		p.f("measures")
		for _, k := range sortedMeasures(run.Measures) {
			p.f("  %s %s", Escape(k), measureText(run.Measures[k]))
		}
		p.f("  (reported by the target)\n")
	}
	if nl := nuggetLine(s.Nuggets); nl != "" {
		p.f("nuggets  %s\n", nl)
	}
	if jl := judgeLines(s.Judge); len(jl) > 0 {
		p.f("judge    %s\n", jl[0])
		for _, l := range jl[1:] {
			p.f("         %s\n", l)
		}
	}

	if trials > 1 {
		ts := aggregate.Trials(run.Cases)
		p.nl()
		p.f("trials   %d per case  pass@%d %s  pass^%d %s  flaky %d", ts.Trials, ts.Trials, Percent(ts.PassAny), ts.Trials, Percent(ts.PassAll), len(ts.Flaky))
		if len(ts.Flaky) > 0 {
			p.f(": %s", strings.Join(ts.Flaky, ", "))
		}
		p.nl()
		for _, n := range MetricOrder(run) {
			if m, ok := ts.Metrics[n]; ok {
				p.f("  %s %.4f ± %.4f across trials\n", n, m.Mean, m.SD)
			}
		}
	}

	if len(run.Segments) > 0 {
		p.nl()
		segs := make([]string, 0, len(run.Segments))
		for k := range run.Segments {
			segs = append(segs, k)
		}
		sort.Strings(segs)
		head := headlineMetric(run)
		width := len("segment")
		for _, k := range segs {
			width = max(width, displayWidth(k))
		}
		p.f("%s  %5s  %9s", padRight("segment", width), "cases", "pass rate")
		if head != "" {
			p.f("  %9s", head)
		}
		p.nl()
		for _, k := range segs {
			seg := run.Segments[k]
			p.f("%s  %5d  %9s", padRight(k, width), seg.Cases, Percent(seg.PassRate))
			if head != "" {
				if m, ok := seg.Metrics[head]; ok {
					p.f("  %9.4f", m.Mean)
				} else {
					p.f("  %9s", "-")
				}
			}
			p.nl()
		}
	}

	if len(run.Gates) > 0 {
		p.nl()
		p.f("gates\n")
		for _, g := range run.Gates {
			mark := "✓"
			if !g.Pass {
				mark = "✗"
			}
			val, bound := "n/a", num(g.Bound)
			if g.Value != nil {
				val, bound = gate.FormatPair(*g.Value, g.Bound)
			}
			p.f("  %s %s  (observed %s", mark, g.Expr, val)
			if g.Op != "" {
				p.f(", bound %s %s", g.Op, bound)
			}
			p.f(")")
			if g.Detail != "" {
				p.f(" %s", g.Detail)
			}
			p.nl()
		}
	}

	fl, err := collectFailing(run, o.MaxFailures, func(c assay.CaseResult) bool {
		return (c.Pass != nil && !*c.Pass) || (c.Pass == nil && c.Error != nil)
	})
	if err != nil {
		return err
	}
	if fl.n > 0 {
		p.nl()
		p.f("failing cases (%d%s)\n", fl.n, fl.ungradedNote())
		for _, c := range fl.shown {
			p.f("  %s", c.ID)
			if trials > 1 {
				p.f(" (trial %d)", c.Trial)
			}
			if q := o.Queries[c.ID]; q != "" {
				p.f("  %q", redact.Clip(q, 70))
			}
			p.nl()
			if c.Error != nil {
				p.f("    ✗ error %s: %s\n", c.Error.Class, c.Error.Message)
				if len(c.Checks) > 0 {
					p.f("    (every stated expectation fails with it: %d)\n", len(c.Checks))
				}
				continue
			}
			for _, ch := range c.Checks {
				if ch.Pass {
					continue
				}
				p.f("    ✗ %s: %s\n", ch.Kind, ch.Detail)
			}
		}
		if more := fl.n - len(fl.shown); more > 0 {
			p.f("  … and %d more (see --json)\n", more)
		}
	}

	if len(run.Warnings) > 0 {
		p.nl()
		for _, wn := range run.Warnings {
			p.f("warning: %s\n", wn)
		}
	}
	if run.Status == assay.StatusIncomplete {
		p.nl()
		p.f("run incomplete: not every case was observed; it will not be used as a baseline\n")
	}
	return p.err
}

// MetricOrder is the order the reports list a run's metrics in: the run's
// metric list, then any other metric present, alphabetically.
func MetricOrder(run *assay.Run) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range run.Options.Metrics {
		if _, ok := run.Summary.Metrics[n]; ok && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	var rest []string
	for n := range run.Summary.Metrics {
		if !seen[n] {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// headlineMetric is the first metric of the run that has values.
func headlineMetric(run *assay.Run) string {
	names := MetricOrder(run)
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// printer writes formatted output and keeps the first write error. Every
// string argument goes through Escape (EscapeLines when lines is set, for
// the JUnit bodies that keep their newlines), so no control byte of a case
// id, answer, stderr or server message reaches the output; the format
// strings are the renderer's own.
type printer struct {
	w     io.Writer
	err   error
	lines bool
}

func (p *printer) f(format string, args ...any) {
	if p.err != nil {
		return
	}
	copied := false
	for i, a := range args {
		if s, ok := a.(string); ok {
			if e := escape(s, p.lines); e != s {
				if !copied { // never write into a caller's slice
					args, copied = append([]any(nil), args...), true
				}
				args[i] = e
			}
		}
	}
	_, p.err = fmt.Fprintf(p.w, format, args...)
}

func (p *printer) nl() { p.f("\n") }

// Percent is a rate as the reports show it (95.7%), "n/a" when undefined.
func Percent(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return PercentOf(*v)
}

// PercentOf is Percent of a defined rate.
func PercentOf(v float64) string { return fmt.Sprintf("%.1f%%", v*100) }

// Millis is a latency in ms as the reports show it: three significant
// digits at most (0.59, 12.1, 2300), "n/a" for NaN.
func Millis(v float64) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func num(v float64) string {
	s := fmt.Sprintf("%.4f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "" || s == "-" {
		return "0"
	}
	return s
}

// measureText writes a measure in full (1200000, 830.5), in exponent form
// only beyond 1e15.
func measureText(v float64) string {
	if v > -1e15 && v < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// sortedMeasures returns the measure names in order.
func sortedMeasures(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// failingCases is the failing cases of a run as a report lists them: how
// many there are, how many of those were not graded, and the first few.
type failingCases struct {
	n        int                // failing cases
	ungraded int                // of which not graded (pass null, errored)
	shown    []assay.CaseResult // the first ones, at most the cap
}

// collectFailing reads the run's cases once through EachCase and keeps the
// first max cases failing says are failing (all of them when max is 0), so
// a report holds no more cases than it prints.
func collectFailing(run *assay.Run, max int, failing func(assay.CaseResult) bool) (failingCases, error) {
	var fl failingCases
	// Both callers' rules list only a result that failed (graded, not
	// passed) or errored, which the summary counts: when it counts none,
	// a streamed run is not read again.
	if len(run.Cases) == 0 && run.CaseStream != nil && run.Summary.Failed == 0 && run.Summary.Errors == 0 {
		return fl, nil
	}
	err := run.EachCase(func(c assay.CaseResult) error {
		if !failing(c) {
			return nil
		}
		fl.n++
		if c.Pass == nil {
			fl.ungraded++
		}
		if max <= 0 || len(fl.shown) < max {
			c = c.WithoutObservation()
			fl.shown = append(fl.shown, c)
		}
		return nil
	})
	return fl, err
}

// ungradedNote explains a failing-cases count that differs from the
// summary's "failed": cases with no expectations (pass null) are listed
// when their observation errored, but are not counted as failed.
func (fl failingCases) ungradedNote() string {
	if fl.ungraded == 0 {
		return ""
	}
	return fmt.Sprintf(": %d failed, %d errored with nothing to grade", fl.n-fl.ungraded, fl.ungraded)
}

// displayWidth is the number of terminal columns s takes: two for each
// East Asian wide or full-width rune (中文, ｱ), one for the others.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		switch width.LookupRune(r).Kind() {
		case width.EastAsianWide, width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}

// padRight pads s with spaces to w columns (displayWidth), so that table
// columns line up whatever script a name is written in.
func padRight(s string, w int) string {
	if d := w - displayWidth(s); d > 0 {
		return s + strings.Repeat(" ", d)
	}
	return s
}
