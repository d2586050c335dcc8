package cli

import (
	"io"

	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/report"
)

// WriteText writes the text summary of a result, what `assay run` prints
// (report.ResultText): the run and the no-gates line, or the variants of a
// matrix; then each comparison with the plan's baseline. Under GitHub
// Actions (Getenv("GITHUB_ACTIONS") is "true") it ends with the runs'
// failures as workflow commands, so that they land on their suite lines in
// the pull request.
func WriteText(w io.Writer, r *harness.Result, p harness.Plan, opts report.TextOptions) error {
	return report.ResultText(w, report.Result{
		Runs:        r.Runs,
		Matrix:      r.Matrix,
		Orderings:   r.Orderings,
		NoGates:     NoGates(r, p),
		Baseline:    r.Baseline,
		BaselineRef: p.Baseline,
		Baselines:   r.Baselines,
		Comparisons: r.Comparisons,
		Notes:       r.Notes,
		GitHub:      p.Getenv != nil && p.Getenv("GITHUB_ACTIONS") == "true",
	}, opts)
}
