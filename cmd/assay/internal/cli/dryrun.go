package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/assay-eval/assay/harness"
	// Registers the openers of target specs and the model judge (package
	// seam's registry), which every plan of the command uses.
	_ "github.com/assay-eval/assay/harness/opener"
	"github.com/assay-eval/assay/report"
)

// DryRun is assay run --dry-run: the plan's estimate (harness.DryRun),
// written to w. No target is opened and no request is sent.
func DryRun(ctx context.Context, p RunPlan, w io.Writer) error {
	hp := p.Plan
	hp.Names = FlagName
	e, err := harness.DryRun(ctx, hp)
	if err != nil {
		return err
	}
	return WriteDryRun(w, e)
}

// WriteDryRun renders an estimate as the dry run's text.
func WriteDryRun(w io.Writer, e *harness.Estimate) error {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	add("dry run · suite %s · nothing was sent", report.Escape(e.Suite))
	if e.Turns > e.Cases {
		add("requests %d %s (%d turns) × %d %s = %d %s to the system", e.Cases, plural(e.Cases, "case", "cases"), e.Turns, e.Trials, plural(e.Trials, "trial", "trials"), e.Requests, plural(e.Requests, "request", "requests"))
	} else {
		add("requests %d %s × %d %s = %d %s to the system", e.Cases, plural(e.Cases, "case", "cases"), e.Trials, plural(e.Trials, "trial", "trials"), e.Requests, plural(e.Requests, "request", "requests"))
	}
	from := "no stored run recorded the cases' usage"
	if e.History != "" {
		from = "recorded by run " + report.ShortID(e.History)
	}
	add("tokens   ~%d input (%d of %d cases recorded, the rest characters/%d)  ~%d output (%d of %d cases recorded)  %s",
		e.InputTokens, e.InputRecorded, e.Cases, e.CharsPerToken, e.OutputTokens, e.OutputKnown, e.Cases, from)
	if e.CostUSD != nil {
		add("cost     system ~$%s", report.USD(*e.CostUSD))
	} else {
		add("cost     system unknown: %s", report.Escape(e.CostNote))
	}
	if e.JudgeModel != "" {
		line := fmt.Sprintf("judge    %s: %d %s", report.Escape(e.JudgeModel), e.JudgeCalls, plural(e.JudgeCalls, "call", "calls"))
		if e.JudgePromptTokens > 0 || e.JudgeOutputTokens > 0 {
			line += fmt.Sprintf(" (~%d prompt + ~%d completion tokens)", e.JudgePromptTokens, e.JudgeOutputTokens)
		}
		if e.JudgeCostUSD != nil {
			line += fmt.Sprintf("  ~$%s (apart)", report.USD(*e.JudgeCostUSD))
		} else {
			line += "  cost unknown: " + report.Escape(e.JudgeNote)
		}
		out = append(out, line)
	}
	for _, l := range out {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}
