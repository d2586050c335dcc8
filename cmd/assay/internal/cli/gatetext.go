package cli

import (
	"context"
	"io"
	"time"

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

// report shows the check (report.GateHead, GateBody, GateTally), writes
// the outputs, ratchets and returns the outcome.
func (c *GateCheck) report(now time.Time) error {
	p := c.p
	out := p.Stdout
	if p.JUnit == "-" || p.Markdown == "-" || p.Badge == "-" || p.JSON == "-" {
		out = p.Stderr // stdout holds that document alone
	}
	g := report.GateRun{Run: c.Run, Verdict: c.Verdict}
	note, err := c.NoFloors()
	g.Note = note
	report.GateHead(out, g)
	if err != nil {
		return err
	}
	g.Trials = runner.Trials(c.Run.Cases)
	g.NotApplied = c.NotApplied()
	report.GateBody(out, g)
	if err := c.NothingApplies(); err != nil {
		return err
	}
	g.Sensitivity = gateSensitivity(c)
	report.GateTally(out, g)
	report.Warnings(p.Stderr, c.Verdict.Warnings)
	if err := c.WriteOutputs(); err != nil {
		return inputError(err)
	}
	r, err := c.Ratchet(now)
	if err != nil {
		return err
	}
	if p.Ratchet {
		report.Ratchet(out, r.NotRaised, r.Changes, p.Floors)
	}
	return c.Err()
}

// WriteText shows each run of the matrix with the gates that apply to its
// variant, then the orderings, on out; the warnings go to warn
// (report.GateMatrixText).
func (m *MatrixCheck) WriteText(out, warn io.Writer) {
	report.GateMatrixText(out, warn, m.Runs, m.Verdicts, m.Orderings)
}
