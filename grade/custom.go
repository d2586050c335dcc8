package grade

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/assay-eval/assay"
)

// Custom is a check written in Go: Func grades one observation of a case
// and its result is recorded as a check of kind Kind, next to the
// suite's expectations (ApplyCustom). Func is called concurrently, once
// per observation that did not fail, with the raw observation (the
// result is redacted afterwards, as every check is).
type Custom struct {
	Kind string
	Func func(assay.Case, assay.Observation) assay.Check
}

// customKind is what a custom check's kind may be: a lowercase word of
// letters, digits, '_', '-' and '.', as the built-in kinds are spelled.
var customKind = regexp.MustCompile(`^[a-z][a-z0-9_.-]{0,63}$`)

// ValidCustom says why a list of custom checks cannot be used ("" when it
// can): each needs a Func and a kind of its own that no built-in check
// has (an expectation kind, max_turns, cleanup, judge.*).
func ValidCustom(checks []Custom) string {
	seen := map[string]bool{}
	for _, c := range checks {
		switch {
		case c.Func == nil:
			return fmt.Sprintf("check %q has no function", c.Kind)
		case !customKind.MatchString(c.Kind):
			return fmt.Sprintf("check kind %q: want a lowercase name of letters, digits, '_', '-' or '.' (at most 64)", c.Kind)
		case slices.Contains(Kinds, c.Kind) || c.Kind == KindMaxTurns || c.Kind == "cleanup" || strings.HasPrefix(c.Kind, "judge."):
			return fmt.Sprintf("check kind %q is a built-in check's; name it otherwise", c.Kind)
		case seen[c.Kind]:
			return fmt.Sprintf("check kind %q is given twice", c.Kind)
		}
		seen[c.Kind] = true
	}
	return ""
}

// ApplyCustom runs the custom checks on an observation of c and adds
// their checks to r, after its own: each check's Kind is the Custom's
// (whatever Func set), and r.Pass becomes false when one fails. A case
// with no expectation of its own is graded by its custom checks (Pass was
// nil). An observation that failed (obs.Error) is not checked: the case
// fails already. A Func that panics fails its check, the panic as its
// detail.
func ApplyCustom(r *assay.CaseResult, c assay.Case, obs assay.Observation, checks []Custom) {
	if len(checks) == 0 || obs.Error != nil {
		return
	}
	ok := r.Pass == nil || *r.Pass
	for _, cc := range checks {
		ch := runCustom(cc, c, obs)
		ch.Kind = cc.Kind
		r.Checks = append(r.Checks, ch)
		ok = ok && ch.Pass
	}
	r.Pass = &ok
}

func runCustom(cc Custom, c assay.Case, obs assay.Observation) (ch assay.Check) {
	defer func() {
		if v := recover(); v != nil {
			ch = assay.Check{Pass: false, Detail: fmt.Sprintf("check panicked: %v", v)}
		}
	}()
	return cc.Func(c, obs)
}
