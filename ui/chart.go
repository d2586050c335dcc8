package ui

import (
	"context"
	"fmt"
	"math"
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

// waterfall is an observation's spans as bars on one time axis.
type waterfall struct {
	W, H  int
	Total string
	Bars  []bar
}

type bar struct {
	Name       string
	X, Y, W    float64
	TextY      float64 // the label's baseline
	Start, End string
	LabelX     float64
}

const waterW, waterRow = 480, 18

func spanWaterfall(spans []assay.Span) *waterfall {
	if len(spans) == 0 {
		return nil
	}
	end := 0.0
	for _, s := range spans {
		end = math.Max(end, math.Max(s.EndMs, s.StartMs))
	}
	if end <= 0 {
		end = 1
	}
	wf := &waterfall{W: waterW, H: len(spans)*waterRow + 4, Total: fmtFloat(end)}
	const labelW = 140
	scale := float64(waterW-labelW-4) / end
	for i, s := range spans {
		st, en := math.Max(s.StartMs, 0), math.Max(s.EndMs, s.StartMs)
		b := bar{Name: s.Name, X: round1(labelW + st*scale), Y: float64(i*waterRow + 2), TextY: float64(i*waterRow + 14), W: math.Max(round1((en-st)*scale), 1), Start: fmtFloat(s.StartMs), End: fmtFloat(s.EndMs)}
		wf.Bars = append(wf.Bars, b)
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
