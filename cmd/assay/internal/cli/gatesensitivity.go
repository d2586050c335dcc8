package cli

import (
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/report"
)

// gateSensitivity is the line `assay gate` prints under gates that compare
// with a baseline (delta and noninferior on a measure compare pairs case
// by case, without a tag scope): the smallest change of each such measure
// that the run and its baseline could have shown (report.Sensitivity).
// It is "" when no such gate was checked.
func gateSensitivity(c *GateCheck) string {
	if c.Base == nil {
		return ""
	}
	rep := compare.Report{Alpha: compare.Defaults.Alpha, Power: compare.Power}
	seen := map[string]bool{}
	for _, e := range c.Exprs {
		if e.Kind != gate.Delta && e.Kind != gate.NonInferior || !e.PairedMeasure() || e.TagScoped(c.Run) ||
			seen[e.Metric] || !gate.AppliesTo(e, c.Run) {
			continue
		}
		seen[e.Metric] = true
		p := compare.PairMeasure(c.Base, c.Run, e.Metric, nil)
		if len(p.Deltas) == 0 {
			continue
		}
		rep.Metrics = append(rep.Metrics, compare.MetricDelta{Name: e.Metric, N: len(p.Deltas), Gated: true,
			Effect: compare.EffectOf(p.Deltas, p.Direction, rep.Alpha)})
	}
	return report.Sensitivity(rep)
}
