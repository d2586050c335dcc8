package harness

import (
	"fmt"

	"github.com/assay-eval/assay/gate"
)

// WithoutBaseline drops the gates that compare with a baseline run, for
// a run or check that has none: such a gate can neither hold nor fail.
// One written in a suite (or recorded from one) applies when a baseline is
// given, so it is left out with a warning, and the first run of a suite
// with a delta() gate can be made. One given by the caller (its Source is
// given; "" when the gates are those a stored run recorded) asks for a
// comparison there is nothing to make: a Usage error (a PlanError of
// Gates), not a regression. names names the plan's fields in the
// warnings and the error (Plan.Names; nil: the Go names).
func WithoutBaseline(exprs []gate.Expr, given string, names func(string) string) ([]gate.Expr, []string, error) {
	var keep []gate.Expr
	var warnings []string
	for _, e := range exprs {
		switch {
		case !e.Kind.NeedsBaseline():
			keep = append(keep, e)
		case given != "" && e.Source == given:
			return nil, nil, planError("Gates", "pass {Baseline} REF (for example {Baseline} latest), or drop the gate",
				"{Gates} %q compares with a baseline run, and none was given", e.Text)
		default:
			warnings = append(warnings, fmt.Sprintf(fill("gate %q (%s) not checked: it compares with a baseline run, and none was given ({Baseline} REF)", names), e.Text, e.Source))
		}
	}
	return keep, warnings, nil
}
