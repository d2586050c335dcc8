package harness

import (
	"fmt"

	"github.com/assay-eval/assay/gate"
)

// WithoutBaseline drops the gates that compare with a baseline run, for
// a run or check that has none: such a gate can neither hold nor fail.
// One written in a suite (or recorded from one) applies when a baseline is
// given, so it is left out with a warning, and the first run of a suite
// with a delta() gate can be made. One given with --gate asks for a
// comparison there is nothing to make: a usage error (exit 2), not the
// exit 1 of a regression. recorded says the gates are those a stored run
// recorded (assay gate RUN with no --gate): one given with --gate then was
// given to that run, not to this check, so it is left out with a warning too.
func WithoutBaseline(exprs []gate.Expr, recorded bool) ([]gate.Expr, []string, error) {
	var keep []gate.Expr
	var warnings []string
	for _, e := range exprs {
		switch {
		case !e.Kind.NeedsBaseline():
			keep = append(keep, e)
		case e.Source == "--gate" && !recorded:
			return nil, nil, usageError("pass --baseline REF (for example --baseline latest), or drop the gate",
				"--gate %q compares with a baseline run, and none was given", e.Text)
		default:
			warnings = append(warnings, fmt.Sprintf("gate %q (%s) not checked: it compares with a baseline run, and none was given (--baseline REF)", e.Text, e.Source))
		}
	}
	return keep, warnings, nil
}
