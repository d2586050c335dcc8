package report

import (
	"fmt"
	"strconv"

	"github.com/assay-eval/assay"
)

// labelsLines are the judge's agreement with the labels its definition
// names, one line per criterion (docs/judge.md): n, kappa and AC1 with
// their intervals, accuracy, TPR, TNR, the judge's mean and the corrected
// (PPI) mean; with min_kappa, why a criterion's gates are undefined.
func labelsLines(l *assay.JudgeLabels) []string {
	if l == nil {
		return nil
	}
	head := "labels " + nonEmpty(Escape(l.File), "(none)")
	if l.MinKappa != nil {
		head += "  min_kappa " + strconv.FormatFloat(*l.MinKappa, 'g', -1, 64)
	}
	out := []string{head}
	for _, a := range l.Criteria {
		if a.N == 0 {
			if a.Undefined != "" {
				out = append(out, Escape(a.Undefined))
			}
			continue
		}
		line := fmt.Sprintf("%s: n %d  kappa %s  AC1 %s  accuracy %s  TPR %s  TNR %s", a.Criterion, a.N, Interval(a.Kappa), Interval(a.AC1), Fixed4(a.Accuracy), Fixed4(a.TPR), Fixed4(a.TNR))
		if a.JudgeMean != nil {
			line += fmt.Sprintf("  mean %.4f, corrected %s", *a.JudgeMean, Interval(a.PPI))
		}
		out = append(out, line)
		if a.Undefined != "" {
			out = append(out, Escape(a.Undefined))
		}
	}
	return out
}

// Fixed4 is an agreement statistic as the reports show it: four decimals,
// "undefined" when nil.
func Fixed4(p *float64) string {
	if p == nil {
		return "undefined"
	}
	return fmt.Sprintf("%.4f", *p)
}

// Interval is an agreement estimate as the reports show it: four
// decimals and its 95 % interval in brackets when it has one, "undefined"
// when nil.
func Interval(e *assay.JudgeInterval) string {
	if e == nil {
		return "undefined"
	}
	if e.Lo == nil || e.Hi == nil {
		return fmt.Sprintf("%.4f", e.Value)
	}
	return fmt.Sprintf("%.4f [%.4f, %.4f]", e.Value, *e.Lo, *e.Hi)
}
