package ui

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/report"
)

// chart is a trend drawn as inline SVG (no script): one value per run,
// oldest on the left, a line per target so that runs of unlike systems
// are not joined; complete runs are the points (each a link to its run),
// incomplete runs are marked on the axis and never drawn as a point. The
// newest run's threshold gate on the value, when it has one, is a dashed
// line; the x axis carries the dates of the oldest and newest runs; the
// values are also written out as text for screen readers.
type chart struct {
	Name       string
	W, H       int
	PlotH      int // the height of the plot, above the date axis
	Lines      []chartLine
	Incomplete []chartPoint
	Min, Max   string
	Last       string
	Threshold  *chartRule
	Ticks      []chartTick
	Text       []string // one sentence a point
}

type chartLine struct {
	Target string
	Class  string // t0 … t5: the line's colour
	Line   string // polyline points
	Points []chartPoint
}

type chartPoint struct {
	X, Y  float64
	Title string
	Run   string // the run's id
}

type chartRule struct {
	Y     float64
	Label string
}

type chartTick struct {
	X      float64
	Label  string
	Anchor string
}

const chartW, chartH, chartPad, chartAxis = 320, 90, 8, 14

// maxLines is the number of targets drawn in their own colour; the
// others share the last.
const maxLines = 6

// trendCharts are the charts of the runs page: pass rate, then each of
// the suite's listed metrics.
func (s *server) trendCharts(ctx context.Context, sr *suiteRuns) []chart {
	names := append([]string{"pass_rate"}, sr.Metrics...)
	n := len(sr.Runs)
	var newest *assay.Run // the newest complete run with a header
	for i := range sr.Runs {
		if sr.Runs[i].E.Status == assay.StatusComplete && sr.Runs[i].head != nil {
			newest = sr.Runs[i].head
			break
		}
	}
	targets := map[string]int{}
	for k := n - 1; k >= 0; k-- {
		if _, ok := targets[sr.Runs[k].E.Target]; !ok {
			targets[sr.Runs[k].E.Target] = len(targets)
		}
	}
	var out []chart
	for _, name := range names {
		c := chart{Name: name, W: chartW, H: chartH + chartAxis, PlotH: chartH}
		type pt struct {
			i int
			v float64
			e *runRow
		}
		var pts []pt
		var inc []int
		for k := n - 1; k >= 0; k-- { // oldest first
			i := n - 1 - k
			row := &sr.Runs[k]
			if row.E.Status != assay.StatusComplete {
				inc = append(inc, i)
				continue
			}
			if name == "pass_rate" {
				if row.E.PassRate != nil {
					pts = append(pts, pt{i, *row.E.PassRate, row})
				}
				continue
			}
			if v, ok := row.metric(name); ok {
				pts = append(pts, pt{i, v, row})
			}
		}
		if len(pts) == 0 {
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range pts {
			lo, hi = math.Min(lo, p.v), math.Max(hi, p.v)
		}
		bound, hasBound := thresholdOf(newest, name)
		if hasBound {
			lo, hi = math.Min(lo, bound), math.Max(hi, bound)
		}
		if hi-lo < 1e-9 {
			lo, hi = lo-0.05, hi+0.05
		}
		x := func(i int) float64 {
			if n <= 1 {
				return chartW / 2
			}
			return chartPad + float64(i)*(chartW-2*chartPad)/float64(n-1)
		}
		y := func(v float64) float64 { return chartPad + (hi-v)*(chartH-2*chartPad)/(hi-lo) }
		lines := map[string]*chartLine{}
		var order []string
		for _, p := range pts {
			date := p.e.E.StartedAt.UTC().Format("2006-01-02 15:04")
			cp := chartPoint{X: round1(x(p.i)), Y: round1(y(p.v)), Title: fmt.Sprintf("%s %.4f · run %s · %s · %s", name, p.v, report.ShortID(p.e.E.RunID), date, p.e.E.Target), Run: p.e.E.RunID}
			t := p.e.E.Target
			l := lines[t]
			if l == nil {
				l = &chartLine{Target: t, Class: fmt.Sprintf("t%d", min(targets[t], maxLines-1))}
				lines[t] = l
				order = append(order, t)
			}
			l.Points = append(l.Points, cp)
			c.Text = append(c.Text, fmt.Sprintf("run %s, %s, %s: %.4f", report.ShortID(p.e.E.RunID), date, t, p.v))
		}
		for _, t := range order {
			l := lines[t]
			var pl []string
			for _, p := range l.Points {
				pl = append(pl, fmt.Sprintf("%g,%g", p.X, p.Y))
			}
			if len(pl) > 1 {
				l.Line = strings.Join(pl, " ")
			}
			c.Lines = append(c.Lines, *l)
		}
		for _, i := range inc {
			row := sr.Runs[n-1-i]
			c.Incomplete = append(c.Incomplete, chartPoint{X: round1(x(i)), Y: chartH - 4, Title: "run " + report.ShortID(row.E.RunID) + " incomplete: not drawn", Run: row.E.RunID})
			c.Text = append(c.Text, "run "+report.ShortID(row.E.RunID)+" incomplete: no value")
		}
		if hasBound {
			c.Threshold = &chartRule{Y: round1(y(bound)), Label: fmt.Sprintf("gate %s", gate.FormatValue(bound))}
		}
		oldest, latest := sr.Runs[n-1].E.StartedAt, sr.Runs[0].E.StartedAt
		c.Ticks = []chartTick{{X: 2, Label: oldest.UTC().Format("2006-01-02"), Anchor: "start"}}
		if n > 1 {
			c.Ticks = append(c.Ticks, chartTick{X: chartW - 2, Label: latest.UTC().Format("2006-01-02"), Anchor: "end"})
		}
		c.Min, c.Max = fmt.Sprintf("%.4f", lo), fmt.Sprintf("%.4f", hi)
		c.Last = fmt.Sprintf("%.4f", pts[len(pts)-1].v)
		out = append(out, c)
	}
	return out
}

// thresholdOf is the bound of the run's unscoped threshold gate on the
// metric name, if it has one.
func thresholdOf(run *assay.Run, name string) (float64, bool) {
	if run == nil {
		return 0, false
	}
	for _, g := range run.Gates {
		e, err := gate.Parse(g.Expr, g.Source)
		if err == nil && e.Kind == gate.Threshold && e.Scope == nil && e.Metric == name {
			return e.Bound, true
		}
	}
	return 0, false
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// waterfall is an observation's spans as bars on one time axis, from 0
// to the case's latency (or the last span's end, when that is later), so
// that a span that is a small part of a slow case is drawn small. It is
// drawn in a viewBox and scales to its box; each bar carries its
// duration as text (read by screen readers with the span's name), a span
// inside another is indented under it, and the time no span covers is
// shaded and listed under the chart.
type waterfall struct {
	W, H  int // the viewBox
	Total string
	Bars  []bar
	Gaps  []gap
}

type bar struct {
	Name       string
	X, Y, W    float64
	TextY      float64 // the label's baseline
	LabelX     float64
	Start, End string
	Dur        string
	DurX       float64 // the duration's label, after the bar
	Depth      int     // the spans it lies inside
}

type gap struct {
	X, W       float64
	Start, End string
}

const waterW, waterRow, waterLabel, waterRight = 640, 18, 160, 64

func spanWaterfall(spans []assay.Span, latency *float64) *waterfall {
	if len(spans) == 0 {
		return nil
	}
	end := 0.0
	for _, s := range spans {
		end = math.Max(end, math.Max(s.EndMs, s.StartMs))
	}
	wf := &waterfall{W: waterW, H: len(spans)*waterRow + 6}
	if latency != nil {
		end = math.Max(end, *latency)
	}
	if end <= 0 {
		end = 1
	}
	wf.Total = fmtFloat(end)
	scale := float64(waterW-waterLabel-waterRight) / end
	type iv struct{ a, b float64 }
	var cover []iv
	for i, s := range spans {
		st, en := math.Max(s.StartMs, 0), math.Max(s.EndMs, s.StartMs)
		depth := 0
		for j, o := range spans {
			if j != i && o.StartMs <= s.StartMs && s.EndMs <= o.EndMs && (o.EndMs-o.StartMs > s.EndMs-s.StartMs || j < i) {
				depth++
			}
		}
		b := bar{Name: s.Name, X: round1(waterLabel + st*scale), Y: float64(i*waterRow + 3), TextY: float64(i*waterRow + 15),
			LabelX: float64(2 + 10*depth), W: math.Max(round1((en-st)*scale), 1), Start: fmtFloat(s.StartMs), End: fmtFloat(s.EndMs),
			Dur: fmtFloat(en - st), Depth: depth}
		b.DurX = round1(b.X + b.W + 3)
		cover = append(cover, iv{st, en})
		wf.Bars = append(wf.Bars, b)
	}
	// The time no span covers: the gaps of the spans' union in [0, end].
	slices.SortFunc(cover, func(x, y iv) int { return cmp.Compare(x.a, y.a) })
	at := 0.0
	addGap := func(a, b float64) {
		if b-a > end/1000 {
			wf.Gaps = append(wf.Gaps, gap{X: round1(waterLabel + a*scale), W: math.Max(round1((b-a)*scale), 1), Start: fmtFloat(a), End: fmtFloat(b)})
		}
	}
	for _, c := range cover {
		if c.a > at {
			addGap(at, c.a)
		}
		at = math.Max(at, c.b)
	}
	addGap(at, end)
	return wf
}

// stageRow is one stage of the run's latency by stage.
type stageRow struct {
	Name string
	L    assay.Latency
}

// stages is the run's latency by stage (assay.Summary.Stages, from the
// observations' spans), in the order the text report lists them.
func stages(run *assay.Run) []stageRow {
	var out []stageRow
	for _, name := range report.StageNames(run.Summary.Stages) {
		out = append(out, stageRow{name, run.Summary.Stages[name]})
	}
	return out
}
