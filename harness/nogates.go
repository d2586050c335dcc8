package harness

import (
	"fmt"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
)

// baselineOnly is the failure of a plan without a baseline whose every
// gate compares with one (delta, ratio, no_new_failures): no gate would
// be checked, so the run cannot pass on its gates. nil when a gate is
// checked or when there is no gate (NoGates says so). The caller lets it
// pass with AllowNoBaseline (a first run, before there is a baseline).
func baselineOnly(exprs []gate.Expr) error {
	if len(exprs) == 0 {
		return nil
	}
	for _, e := range exprs {
		if !e.Kind.NeedsBaseline() {
			return nil
		}
	}
	return &Error{Kind: GateFailed, Err: &PlanError{Field: "Baseline",
		Format: "no gate was checked: all %d gate(s) compare with a baseline run, and none was given", Args: []any{len(exprs)},
		Hint: "pass {Baseline} REF (for example {Baseline} latest), or {AllowNoBaseline} to accept a run that no gate checked (a first run)"}}
}

// AllErrored is the failure of a run in which every case errored: it
// observed nothing, so it never passes, whatever its gates say (nil
// otherwise). A shard is left to assay merge, which decides on the whole
// run, as it checks the gates.
func AllErrored(run *assay.Run) error {
	s := run.Summary
	if run.Shard != nil || s.Cases == 0 || s.Errors < s.Cases {
		return nil
	}
	return &Error{Kind: GateFailed,
		Err:  fmt.Errorf("every case errored (%d of %d): a run that observed nothing never passes, whatever its gates", s.Errors, s.Cases),
		Hint: "the cases' errors say why; check that the target is up and answers"}
}
