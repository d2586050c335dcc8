package report

import (
	"fmt"
	"io"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
)

// GateMatrixText writes what `assay gate` shows of the runs of a variant
// matrix: each run with the gates that apply to its variant
// (verdicts[i] is runs[i]'s), then the orderings (nil: none), on out; the
// warnings of each verdict go to warn.
func GateMatrixText(out, warn io.Writer, runs []*assay.Run, verdicts []gate.Verdict, orderings *gate.Verdict) {
	for i, run := range runs {
		fmt.Fprintf(out, "variant %s  run %s  suite %s  %s\n", Escape(gate.VariantName(run.Variant)), run.RunID, Escape(run.Suite.Name), run.Status)
		if i >= len(verdicts) {
			continue
		}
		for _, r := range verdicts[i].Results {
			fmt.Fprintf(out, "  %s\n", Escape(gate.Line(r)))
		}
		Warnings(warn, verdicts[i].Warnings)
	}
	if orderings != nil {
		fmt.Fprintf(out, "orderings\n")
		for _, r := range orderings.Results {
			fmt.Fprintf(out, "  %s\n", Escape(gate.Line(r)))
		}
	}
}
