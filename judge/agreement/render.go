package agreement

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/report"
)

// Validate says why the judge's gates on criterion are undefined under
// the floor minKappa ("" when the judge is validated on it): no labels
// (r nil), none on the criterion, fewer than MinLabels labelled cases the
// judge scored, κ undefined, or κ below the floor.
func (r *Report) Validate(criterion string, minKappa float64) string {
	if r == nil {
		return fmt.Sprintf("the judge is not validated on %s: min_kappa %s needs labels (judge.labels names no file)", criterion, num(minKappa))
	}
	c := r.Criterion(criterion)
	switch {
	case c == nil:
		return fmt.Sprintf("the judge is not validated on %s: %s has no labels for it", criterion, r.Labels)
	case c.N < MinLabels:
		return fmt.Sprintf("the judge is not validated on %s: %d labelled cases it scored, fewer than the %d min_kappa needs", criterion, c.N, MinLabels)
	case c.Kappa == nil:
		return fmt.Sprintf("the judge is not validated on %s: kappa is undefined on its %d labels (judge and people each give one verdict to every case)", criterion, c.N)
	case c.Kappa.Value < minKappa:
		return fmt.Sprintf("the judge is not validated on %s: kappa %s < min_kappa %s on %d labels", criterion, num4(c.Kappa.Value), num(minKappa), c.N)
	}
	return ""
}

// WriteJSON writes the report as one JSON document (docs/judge.md).
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report for people: per criterion n, κ and AC1 with
// their intervals, accuracy, TPR, TNR, the confusion matrix, Spearman's ρ
// (for scores), the PPI estimate beside the judge's mean, the cases that
// disagree most and the labellers' own agreement.
func (r *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "judge agreement with %s: %d labels", report.Escape(r.Labels), r.Rows)
	if r.Unlabelled > 0 {
		fmt.Fprintf(bw, " (%d rows not labelled yet)", r.Unlabelled)
	}
	fmt.Fprintf(bw, "; intervals: 95%% bootstrap over cases, %d resamples, seed %d\n", r.Resamples, r.Seed)
	for _, c := range r.Criteria {
		c.writeText(bw)
	}
	for _, m := range r.Warnings {
		fmt.Fprintf(bw, "warning: %s\n", report.Escape(m))
	}
	return bw.Flush()
}

func (c *Criterion) writeText(w io.Writer) {
	fmt.Fprintf(w, "\n%s (scale %s to %s, a pass is >= %s): n %d, %d %s\n", c.Name, num(c.Min), num(c.Max), num(c.Threshold), c.N, c.Labellers, plural(c.Labellers, "labeller", "labellers"))
	fmt.Fprintf(w, "  kappa     %s\n", est(c.Kappa))
	fmt.Fprintf(w, "  AC1       %s\n", est(c.AC1))
	if c.Spearman != nil {
		fmt.Fprintf(w, "  spearman  %s\n", est(c.Spearman))
	}
	fmt.Fprintf(w, "  accuracy  %s   TPR %s   TNR %s\n", opt(c.Accuracy), opt(c.TPR), opt(c.TNR))
	m := c.Confusion
	fmt.Fprintf(w, "  confusion   people pass  people fail\n")
	fmt.Fprintf(w, "  judge pass  %11d  %11d\n", m.TP, m.FP)
	fmt.Fprintf(w, "  judge fail  %11d  %11d\n", m.FN, m.TN)
	if p := c.PPI; p != nil {
		fmt.Fprintf(w, "  mean      judge %s over %d results; corrected (PPI) %s [%s, %s] with %d labels\n", num4(p.JudgeMean), p.JudgeN, num4(p.Estimate), opt(p.Lo), opt(p.Hi), p.N)
	}
	if len(c.Disagreements) > 0 {
		parts := make([]string, len(c.Disagreements))
		for i, d := range c.Disagreements {
			parts[i] = fmt.Sprintf("%s (judge %s, people %s)", report.Escape(d.Case), num4(d.Judge), num4(d.Human))
		}
		fmt.Fprintf(w, "  disagree most: %s\n", strings.Join(parts, ", "))
	}
	for _, p := range c.Pairs {
		fmt.Fprintf(w, "  labellers %s and %s: n %d, kappa %s, accuracy %s\n", report.Escape(p.A), report.Escape(p.B), p.N, opt(p.Kappa), opt(p.Accuracy))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// num is a number as written in a suite (no trailing zeros).
func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// num4 is a number to 4 decimals at most.
func num4(f float64) string { return strconv.FormatFloat(f, 'f', 4, 64) }

func opt(p *float64) string {
	if p == nil {
		return "undefined"
	}
	return num4(*p)
}

func est(e *Estimate) string {
	if e == nil {
		return "undefined"
	}
	return fmt.Sprintf("%s [%s, %s]", num4(e.Value), opt(e.Lo), opt(e.Hi))
}

// Summary is the report as a run records it (summary.judge.labels), for
// every criterion of rubric: its agreement when it has labels, and with
// minKappa why its gates are undefined (Validate). r nil is min_kappa
// without a labels file.
func (r *Report) Summary(rubric []assay.JudgeCriterion, minKappa *float64) *assay.JudgeLabels {
	out := &assay.JudgeLabels{MinKappa: minKappa, Criteria: []assay.JudgeAgreement{}}
	if r != nil {
		out.File = r.Labels
	}
	for _, rc := range rubric {
		a := assay.JudgeAgreement{Criterion: rc.Name}
		if r != nil {
			if c := r.Criterion(rc.Name); c != nil {
				a.N, a.Kappa, a.AC1 = c.N, interval(c.Kappa), interval(c.AC1)
				a.Accuracy, a.TPR, a.TNR = c.Accuracy, c.TPR, c.TNR
				a.Spearman = interval(c.Spearman)
				for _, d := range c.Disagreements {
					a.Disagreements = append(a.Disagreements, d.Case)
				}
				if p := c.PPI; p != nil {
					m := p.JudgeMean
					a.JudgeMean, a.PPI = &m, &assay.JudgeInterval{Value: p.Estimate, Lo: p.Lo, Hi: p.Hi}
				}
			}
		}
		if minKappa != nil {
			a.Undefined = r.Validate(rc.Name, *minKappa)
		}
		out.Criteria = append(out.Criteria, a)
	}
	return out
}

func interval(e *Estimate) *assay.JudgeInterval {
	if e == nil {
		return nil
	}
	return &assay.JudgeInterval{Value: e.Value, Lo: e.Lo, Hi: e.Hi}
}
