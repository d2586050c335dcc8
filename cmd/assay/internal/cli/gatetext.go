package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/runner"
)

// RunGate is `assay gate`: one run (CheckGate), or, with several refs or
// orderings, the runs of a variant matrix (CheckMatrix), checked and shown
// as text on p.Stdout (p.Stderr when an output is written to stdout),
// warnings on p.Stderr; then the outputs are written and, with Ratchet,
// the floors raised (now is the time logged with every raise). It returns
// the outcome (GateCheck.Err, MatrixCheck.Err).
func RunGate(ctx context.Context, p GatePlan, now time.Time) error {
	if len(p.Refs) > 1 || len(p.Orderings) > 0 {
		m, err := CheckMatrix(ctx, p)
		if err != nil {
			return err
		}
		m.WriteText(p.Stdout, p.Stderr)
		return m.Err()
	}
	c, err := CheckGate(ctx, p)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.report(now)
}

// report shows the check, writes the outputs, ratchets and returns the
// outcome.
func (c *GateCheck) report(now time.Time) error {
	p := c.p
	run, verdict := c.Run, c.Verdict
	out := p.Stdout
	if p.JUnit == "-" || p.Markdown == "-" || p.Badge == "-" || p.JSON == "-" {
		out = p.Stderr // stdout holds that document alone
	}
	fmt.Fprintf(out, "run %s  suite %s  %s\n", run.RunID, report.Escape(run.Suite.Name), run.Status)
	if note, err := c.NoFloors(); note != "" {
		fmt.Fprintln(out, note)
		if err != nil {
			return err
		}
	}
	if st := runner.Trials(run.Cases); st.Trials > 1 {
		fmt.Fprintf(out, "trials %d: pass@%d %s  pass^%d %s  flaky %d", st.Trials, st.Trials, rateText(st.PassAny), st.Trials, rateText(st.PassAll), len(st.Flaky))
		if len(st.Flaky) > 0 {
			fmt.Fprintf(out, ": %s", strings.Join(st.Flaky, ", "))
		}
		fmt.Fprintln(out)
	}
	for _, r := range verdict.Results {
		fmt.Fprintln(out, report.Escape(gate.Line(r)))
	}
	// A gate scoped to another variant than the run's does not apply to
	// it: say so, rather than leave it out without a word.
	for _, e := range c.NotApplied() {
		fmt.Fprintf(out, "– %s  not checked: the run is variant %s\n", e.Text, gate.VariantName(run.Variant))
	}
	if err := c.NothingApplies(); err != nil {
		return err
	}
	nFail := len(verdict.Failed())
	fmt.Fprintf(out, "gates: %d held, %d failed\n", len(verdict.Results)-nFail, nFail)
	if s := gateSensitivity(c); s != "" {
		fmt.Fprintln(out, s)
	}
	report.Warnings(p.Stderr, verdict.Warnings)
	if err := c.WriteOutputs(); err != nil {
		return inputError(err)
	}
	r, err := c.Ratchet(now)
	if err != nil {
		return err
	}
	switch {
	case !p.Ratchet:
	case r.NotRaised != "":
		fmt.Fprintf(out, "floors not raised: %s\n", r.NotRaised)
	case len(r.Changes) == 0:
		fmt.Fprintf(out, "floors unchanged: nothing rose above its floor\n")
	default:
		for _, ch := range r.Changes {
			verb := "raised"
			if ch.Old == nil {
				verb = "set"
			}
			fmt.Fprintf(out, "%s floor %s\n", verb, ch)
		}
		fmt.Fprintf(out, "wrote %s\n", p.Floors)
	}
	return c.Err()
}

// WriteText shows each run of the matrix with the gates that apply to its
// variant, then the orderings, on out; the warnings go to warn
// (report.GateMatrixText).
func (m *MatrixCheck) WriteText(out, warn io.Writer) {
	report.GateMatrixText(out, warn, m.Runs, m.Verdicts, m.Orderings)
}

func rateText(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return gate.FormatValue(*p)
}
