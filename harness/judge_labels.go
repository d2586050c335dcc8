package harness

import (
	"fmt"
	"maps"
	"slices"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/harness/seam"
	"github.com/assay-eval/assay/judge/agreement"
)

// judgeCheck measures a run's judge against the labels its definition
// names (judge.labels) and applies its agreement floor (judge.min_kappa):
// it collects the labelled cases' scores and the criteria the cases bound
// while the run goes, and at its end records summary.judge.labels and the
// floor's gate results.
type judgeCheck struct {
	src      string // the definition's "file:line"
	rubric   []assay.JudgeCriterion
	labels   *agreement.Labels // nil: min_kappa without labels
	minKappa *float64
	scores   *agreement.Scores
	bounded  map[string]bool // criteria a case's expect.judge (or defaults) bounds
	sum      *assay.JudgeLabels
}

// openLabels reads the definition's labels file and checks it against the
// judge's rubric, before any case is run.
func (js *judgeSetup) openLabels() error {
	if js.cfg.Labels == "" {
		return nil
	}
	l, err := agreement.ReadLabelsFile(js.cfg.Labels)
	if err != nil {
		return inputError(err)
	}
	j, err := js.make(js.cfg, js.opts)
	if err != nil {
		return inputError(err)
	}
	if err := agreement.CheckLabels(j.Rubric(), l); err != nil {
		return inputError(err)
	}
	js.labels = l
	return nil
}

// newCheck is the check of one run's judge j (nil without labels and
// min_kappa).
func (js *judgeSetup) newCheck(j seam.Judge) *judgeCheck {
	if js == nil || j == nil || (js.labels == nil && js.cfg.MinKappa == nil) {
		return nil
	}
	c := &judgeCheck{src: js.cfg.Source, rubric: j.Rubric(), labels: js.labels, minKappa: js.cfg.MinKappa, bounded: map[string]bool{}}
	keep := map[string]bool{}
	if js.labels != nil {
		keep = agreement.KeepLabelled(js.labels)
	}
	c.scores = agreement.NewScores(keep)
	return c
}

// add counts one result of case cs.
func (c *judgeCheck) add(cs assay.Case, defaults map[string]float64, r *assay.CaseResult) {
	if c == nil {
		return
	}
	for k := range assay.JudgeBounds(defaults, cs.Expect.Judge) {
		c.bounded[k] = true
	}
	c.scores.Add(r)
}

// finish records the agreement in the judge's summary; its warnings are
// the report's.
func (c *judgeCheck) finish(s *assay.JudgeSummary) ([]string, error) {
	if c == nil || s == nil {
		return nil, nil
	}
	var rep *agreement.Report
	if c.labels != nil {
		var err error
		if rep, err = agreement.Compute(c.rubric, c.scores, c.labels, agreement.Options{}); err != nil {
			return nil, inputError(err)
		}
	}
	c.sum = rep.Summary(c.rubric, c.minKappa)
	s.Labels = c.sum
	var warns []string
	if rep != nil {
		for _, w := range rep.Warnings {
			warns = append(warns, "judge labels: "+w)
		}
	}
	return warns, nil
}

// gate adds to v one result per criterion the cases bound under the
// floor: it holds when the judge is validated on the criterion and fails
// with the reason when not (the bounds' checks are then not to be
// trusted). Gates on judge metrics are undefined by gate itself.
func (c *judgeCheck) gate(v gate.Verdict) gate.Verdict {
	if c == nil || c.minKappa == nil || c.sum == nil {
		return v
	}
	for _, name := range slices.Sorted(maps.Keys(c.bounded)) {
		var a *assay.JudgeAgreement
		for i := range c.sum.Criteria {
			if c.sum.Criteria[i].Criterion == name {
				a = &c.sum.Criteria[i]
			}
		}
		if a == nil {
			continue // a bound on no criterion of the rubric fails its own check
		}
		res := assay.GateResult{Expr: fmt.Sprintf("min_kappa(%s) >= %v", name, *c.minKappa), Op: ">=", Bound: *c.minKappa, Source: c.src}
		if a.Kappa != nil {
			k := a.Kappa.Value
			res.Value = &k
		}
		if a.Undefined != "" {
			res.Detail = a.Undefined + ": the cases' judge bounds on it cannot gate"
		} else {
			res.Pass = true
		}
		v.Results = append(v.Results, res)
		v.Pass = v.Pass && res.Pass
	}
	return v
}
