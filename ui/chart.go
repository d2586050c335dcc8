package ui

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/report"
)

// chart is a trend line drawn as inline SVG (no script): one value per
// run, oldest on the left; complete runs are the points of the line,
// incomplete runs are marked on the axis and never drawn as a point.
type chart struct {
	Name       string
	W, H       int
	Line       string // polyline points
	Points     []chartPoint
	Incomplete []chartPoint
	Min, Max   string
	Last       string
}

type chartPoint struct {
	X, Y  float64
	Title string
}

const chartW, chartH, chartPad = 320, 90, 8

// trendCharts are the charts of the runs page: pass rate, then each of
// the suite's listed metrics.
func (s *server) trendCharts(ctx context.Context, sr *suiteRuns) []chart {
	names := append([]string{"pass_rate"}, sr.Metrics...)
	n := len(sr.Runs)
	var out []chart
	for _, name := range names {
		c := chart{Name: name, W: chartW, H: chartH}
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
			h, err := s.src.head(ctx, row.E)
			if err != nil {
				continue
			}
			if m, ok := h.Summary.Metrics[name]; ok {
				pts = append(pts, pt{i, m.Mean, row})
			}
		}
		if len(pts) == 0 {
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range pts {
			lo, hi = math.Min(lo, p.v), math.Max(hi, p.v)
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
		var line []string
		for _, p := range pts {
			cp := chartPoint{X: round1(x(p.i)), Y: round1(y(p.v)), Title: fmt.Sprintf("%s %.4f · run %s · %s", name, p.v, shortID(p.e.E.RunID), p.e.E.StartedAt.UTC().Format("2006-01-02 15:04"))}
			c.Points = append(c.Points, cp)
			line = append(line, fmt.Sprintf("%g,%g", cp.X, cp.Y))
		}
		for _, i := range inc {
			row := sr.Runs[n-1-i]
			c.Incomplete = append(c.Incomplete, chartPoint{X: round1(x(i)), Y: chartH - 4, Title: "run " + shortID(row.E.RunID) + " incomplete: not drawn"})
		}
		c.Line = strings.Join(line, " ")
		c.Min, c.Max = fmt.Sprintf("%.4f", lo), fmt.Sprintf("%.4f", hi)
		c.Last = fmt.Sprintf("%.4f", pts[len(pts)-1].v)
		out = append(out, c)
	}
	return out
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// waterfall is an observation's spans as bars on one time axis, from 0
// to the case's latency (or the last span's end, when that is later), so
// that a span that is a small part of a slow case is drawn small. It is
// drawn in a viewBox and scales to its box; each bar carries its
// duration, a span inside another is indented under it, and the time no
// span covers is shaded.
type waterfall struct {
	W, H    int // the viewBox
	Total   string
	Latency string // the case's latency, "" when it reports none
	Bars    []bar
	Gaps    []gap
	AxisX   float64 // where the time axis starts
	Text    string  // the spans as a sentence, for screen readers
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
	wf := &waterfall{W: waterW, H: len(spans)*waterRow + 6, AxisX: waterLabel}
	if latency != nil {
		wf.Latency = fmtFloat(*latency)
		end = math.Max(end, *latency)
	}
	if end <= 0 {
		end = 1
	}
	wf.Total = fmtFloat(end)
	scale := float64(waterW-waterLabel-waterRight) / end
	type iv struct{ a, b float64 }
	var cover []iv
	var text []string
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
		text = append(text, fmt.Sprintf("%s %s–%s ms", s.Name, b.Start, b.End))
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
	wf.Text = "spans over 0–" + wf.Total + " ms: " + strings.Join(text, "; ")
	if len(wf.Gaps) > 0 {
		var g []string
		for _, x := range wf.Gaps {
			g = append(g, x.Start+"–"+x.End)
		}
		wf.Text += "; no span covers " + strings.Join(g, ", ") + " ms"
	}
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
