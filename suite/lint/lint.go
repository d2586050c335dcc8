// Package lint checks a suite without running it: everything package suite
// checks as it loads (structure, cases, references, groups, the corpus
// manifest) and, above the loader, the suite's gates against the gate
// grammar and the tags its cases carry. It is what `assay lint` runs.
package lint

import (
	"errors"
	"fmt"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/suite"
)

// Check is suite.Check with the gates checked (Gates). It returns the suite
// as loaded (a streamed suite holds no cases) and the findings in source
// order; the error is non-nil only when the suite cannot be loaded at all.
func Check(path string, o suite.LoadOptions) (*suite.Streamed, []suite.Finding, error) {
	o.LintGates = Gates
	return suite.Check(path, o)
}

// Lint is Check without the suite.
func Lint(path string, o suite.LoadOptions) ([]suite.Finding, error) {
	_, fs, err := Check(path, o)
	return fs, err
}

// Gates returns the findings on a suite's gates: an expression that would
// not parse at run time is an error; a scope no case carries is a warning
// (a run fails such a gate, unless the key names a variant of the target,
// which lint does not know; a key with more than suite.MaxTagValues values
// is not checked); a gate on a ranking metric the suite does not compute
// (metrics, the suite's) is an error, since it fails every run; a gate
// that reads a run-level measure is a note. A gate without a source is
// placed at file. It is a suite.GateLinter.
func Gates(gates []assay.Gate, file string, tags suite.TagValues, metrics []string) []suite.Finding {
	var out []suite.Finding
	for _, g := range gates {
		src := g.Source
		if src == "" {
			src = file
		}
		e, err := gate.Parse(g.Expr, g.Source)
		if err != nil {
			msg := err.Error()
			var pe *gate.ParseError
			if errors.As(err, &pe) {
				msg = fmt.Sprintf("gate %q: %s", pe.Expr, pe.Reason)
			}
			out = append(out, suite.Finding{Source: src, Severity: suite.SeverityError, Message: msg})
			continue
		}
		if e.Scope != nil && e.Scope.Key != "variant" && !tags.Many[e.Scope.Key] && !tags.Values[e.Scope.Key][e.Scope.Value] {
			out = append(out, suite.Finding{Source: src, Severity: suite.SeverityWarning,
				Message: fmt.Sprintf("gate %q: %s: it fails every run unless %s is a variant key of the target", e.Text, gate.NoMatchIn(tags.Values, *e.Scope), e.Scope.Key)})
		}
		if why := gate.NotComputed(e.Metric, metrics); why != "" {
			out = append(out, suite.Finding{Source: src, Severity: suite.SeverityError,
				Message: fmt.Sprintf("gate %q: %s, so the gate fails every run", e.Text, why)})
		}
		if e.Measure {
			out = append(out, suite.Finding{Source: src, Severity: suite.SeverityNote,
				Message: fmt.Sprintf("gate %q reads the run-level measure %s: the target must report it (a setup step's measures:), else the gate fails as undefined", e.Text, e.Metric)})
		}
	}
	return out
}

var _ suite.GateLinter = Gates
