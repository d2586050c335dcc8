package gate

import (
	"fmt"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
)

// Step evidence states (Ordering.Check).
const (
	StepShown    = "shown"
	StepReversed = "reversed"
	StepNotShown = "not shown"
)

// stepEvidence is the paired test of one adjacent step of an ordering.
type stepEvidence struct {
	n        int
	diff     float64 // mean paired difference in the ordering's direction (b - a for <=)
	p, adj   float64 // two-sided p of "the difference is -tolerance", Holm-adjusted
	state    string
	from, to string
	op       Op
}

// evidence tests each adjacent step of o over the cases the two variants'
// runs share (paired by case id, package compare's PairMeasure): the mean
// paired difference d in the ordering's direction (b - a for "a <= b" and
// "a < b", a - b for ">=" and ">") is tested against -tolerance by the
// two-sided sign-flip test of the shifted differences (compare's
// DeltaInterval), and the steps' p-values are adjusted by Holm's step-down
// procedure (compare.Holm), which controls the family-wise error rate over
// the steps of the ordering. A step is shown when its adjusted p < 0.05 and
// d > -tolerance, reversed when its adjusted p < 0.05 and d < -tolerance,
// not shown otherwise. It reports false when a run lacks cases with the
// metric (a run read without its cases, a metric not paired per case).
func (o Ordering) evidence(runs map[string]*assay.Run) ([]stepEvidence, bool) {
	if !(Expr{Metric: o.Metric}).PairedMeasure() {
		return nil, false
	}
	steps := make([]stepEvidence, len(o.Ops))
	ps := make([]float64, len(o.Ops))
	for i, op := range o.Ops {
		a, b := runs[o.Variants[i]], runs[o.Variants[i+1]]
		if a == nil || b == nil || len(a.Cases) == 0 || len(b.Cases) == 0 {
			return nil, false
		}
		d := compare.PairMeasure(a, b, o.Metric, nil).Deltas
		if len(d) == 0 {
			return nil, false
		}
		if op == GE || op == GT {
			for k := range d {
				d[k] = -d[k]
			}
		}
		shifted := make([]float64, len(d))
		for k := range d {
			shifted[k] = d[k] + o.Tolerance
		}
		iv := compare.DeltaInterval(shifted, compare.Defaults.Alpha, compare.Options{})
		steps[i] = stepEvidence{n: len(d), diff: iv.Delta - o.Tolerance, p: iv.P, from: o.Variants[i], to: o.Variants[i+1], op: op}
		ps[i] = iv.P
	}
	for i, adj := range compare.Holm(ps) {
		s := &steps[i]
		s.adj = adj
		switch {
		case adj < compare.Defaults.Alpha && s.diff > -o.Tolerance:
			s.state = StepShown
		case adj < compare.Defaults.Alpha && s.diff < -o.Tolerance:
			s.state = StepReversed
		default:
			s.state = StepNotShown
		}
	}
	return steps, true
}

// evidenceText is the detail of the steps' evidence: "evidence (paired
// cases, Holm over 2 steps): fast <= balanced shown (+0.06, p 0.004),
// balanced <= thorough not shown (+0.01, p 0.38)".
func evidenceText(steps []stepEvidence) string {
	parts := make([]string, len(steps))
	for i, s := range steps {
		parts[i] = fmt.Sprintf("%s %s %s %s (%s over %d %s, Holm p %s)", s.from, s.op, s.to, s.state, signed(s.diff), s.n, plural(s.n, "case", "cases"), formatP(s.adj))
	}
	return fmt.Sprintf("evidence (paired sign-flip, Holm over %d %s): %s", len(steps), plural(len(steps), "step", "steps"), strings.Join(parts, "; "))
}

func formatP(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

// applyEvidence sets the result of an ordering from its steps' evidence:
// a step significantly reversed fails it; otherwise it holds, whether every
// step is shown or some are not shown. A step whose means are out of order
// but whose reversal is not significant is noise as far as the data can tell,
// so it does not fail the ordering (a point rule would cry wolf on every
// noisy pair); the detail says the means are out of order and which steps
// are not shown. The evidence is appended to the detail either way.
func applyEvidence(res *assay.GateResult, steps []stepEvidence) {
	reversed := false
	for _, s := range steps {
		reversed = reversed || s.state == StepReversed
	}
	res.Pass = !reversed
	if !reversed {
		if rest, ok := strings.CutPrefix(res.Detail, "broken: "); ok {
			res.Detail = "means out of order, no step significantly reversed: " + rest
		}
	}
	res.Detail += "; " + evidenceText(steps)
}
