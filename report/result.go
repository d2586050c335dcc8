package report

import (
	"fmt"
	"io"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/gate"
)

// Result is what a run of a plan shows as text (ResultText): its runs
// (one, or the variants of a matrix) and their comparisons with the
// baseline.
type Result struct {
	Runs []*assay.Run
	// Matrix is set for a variant matrix; Orderings is the verdict of its
	// orderings.
	Matrix    bool
	Orderings gate.Verdict
	// NoGates is a line said under a single run when nothing but errors
	// decides its exit status ("" for none).
	NoGates string
	// Baseline is the run compared with, BaselineRef the REF it was named
	// by; Baselines[i] is the run Runs[i] was compared with (nil: not
	// compared) and Comparisons[i] the comparison. Notes say which
	// variants were not compared, and why.
	Baseline    *assay.Run
	BaselineRef string
	Baselines   []*assay.Run
	Comparisons []*compare.Report
	Notes       []string
	// GitHub ends the text with the runs' failures as GitHub Actions
	// workflow commands (RunGitHub).
	GitHub bool
}

// ResultText writes the text summary of r: the run (Text) and its
// NoGates line, or the variants of a matrix (MatrixText); then each
// comparison with the baseline (CompareText); then, with GitHub, the
// failures as workflow commands.
func ResultText(w io.Writer, r Result, o TextOptions) error {
	if err := resultText(w, r, o); err != nil {
		return err
	}
	if !r.GitHub {
		return nil
	}
	for _, run := range r.Runs {
		if err := RunGitHub(w, run); err != nil {
			return err
		}
	}
	return nil
}

func resultText(w io.Writer, r Result, o TextOptions) error {
	if !r.Matrix {
		if err := Text(w, r.Runs[0], o); err != nil {
			return err
		}
		if r.NoGates != "" {
			fmt.Fprintf(w, "\n%s\n", r.NoGates)
		}
		if len(r.Comparisons) > 0 && r.Comparisons[0] != nil {
			fmt.Fprintln(w)
			return CompareText(w, *r.Comparisons[0])
		}
		return nil
	}
	if err := MatrixText(w, r.Runs, r.Orderings, o); err != nil {
		return err
	}
	if r.Baseline == nil {
		return nil
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\n%s\n", n)
	}
	for i, run := range r.Runs {
		if i >= len(r.Baselines) || i >= len(r.Comparisons) {
			break
		}
		base, cmp := r.Baselines[i], r.Comparisons[i]
		if base == nil || cmp == nil {
			continue
		}
		fmt.Fprintf(w, "\nvariant %s vs --baseline %s", gate.VariantName(run.Variant), r.BaselineRef)
		if base != r.Baseline {
			fmt.Fprintf(w, " (its run %s of variant %s)", ShortID(base.RunID), gate.VariantName(base.Variant))
		}
		fmt.Fprintln(w)
		fmt.Fprintln(w)
		if err := CompareText(w, *cmp); err != nil {
			return err
		}
	}
	return nil
}
