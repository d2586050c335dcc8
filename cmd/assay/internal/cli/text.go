package cli

import (
	"fmt"
	"io"

	"github.com/assay-eval/assay/harness"

	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/report"
)

// WriteText writes the text summary of a result, what `assay run` prints:
// the run (report.Text) and the no-gates line, or the variants of a matrix
// (report.MatrixText); then each comparison with the plan's baseline. Under
// GitHub Actions (Getenv("GITHUB_ACTIONS") is "true") it ends with the
// runs' failures as workflow commands (report.RunGitHub), so that they land
// on their suite lines in the pull request.
func WriteText(w io.Writer, r *harness.Result, p harness.Plan, opts report.TextOptions) error {
	if err := writeText(w, r, p, opts); err != nil {
		return err
	}
	if p.Getenv == nil || p.Getenv("GITHUB_ACTIONS") != "true" {
		return nil
	}
	for _, run := range r.Runs {
		if err := report.RunGitHub(w, run); err != nil {
			return err
		}
	}
	return nil
}

func writeText(w io.Writer, r *harness.Result, p harness.Plan, opts report.TextOptions) error {
	if !r.Matrix {
		if err := report.Text(w, r.Runs[0], opts); err != nil {
			return err
		}
		if note := NoGates(r, p); note != "" {
			fmt.Fprintf(w, "\n%s\n", note)
		}
		if cmp := r.Comparisons[0]; cmp != nil {
			fmt.Fprintln(w)
			return report.CompareText(w, *cmp)
		}
		return nil
	}
	if err := report.MatrixText(w, r.Runs, r.Orderings, opts); err != nil {
		return err
	}
	if r.Baseline == nil {
		return nil
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\n%s\n", n)
	}
	for i, run := range r.Runs {
		base, cmp := r.Baselines[i], r.Comparisons[i]
		if base == nil || cmp == nil {
			continue
		}
		fmt.Fprintf(w, "\nvariant %s vs --baseline %s", gate.VariantName(run.Variant), p.Baseline)
		if base != r.Baseline {
			fmt.Fprintf(w, " (its run %s of variant %s)", report.ShortID(base.RunID), gate.VariantName(base.Variant))
		}
		fmt.Fprintln(w)
		fmt.Fprintln(w)
		if err := report.CompareText(w, *cmp); err != nil {
			return err
		}
	}
	return nil
}
