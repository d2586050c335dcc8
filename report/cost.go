package report

import (
	"fmt"
	"strings"

	"github.com/assay-eval/assay"
)

// CostLine is the system's usage and cost in one line (docs/cost.md):
// `$0.0123 total, $0.00123 per case (10 cases)  tokens 1200 in (200
// cached) + 300 out`, with the judge's cost apart when it has one; a cost
// that is undefined says why. "" when no result reported usage and no
// judge cost is known.
func CostLine(s assay.Summary) string { return costLine(s, Escape) }

// costLine is CostLine with the system's text (a model name) escaped by
// esc.
func costLine(s assay.Summary, esc func(string) string) string {
	c := s.Cost
	if c == nil {
		return ""
	}
	line := ""
	{
		if c.CostUSD != nil && c.CostPerCaseUSD != nil {
			line = fmt.Sprintf("system $%s total, $%s per case (%d %s)", USD(*c.CostUSD), USD(*c.CostPerCaseUSD), c.Priced, plural(c.Priced, "case", "cases"))
		} else {
			line = fmt.Sprintf("system cost undefined: %s (%d of %d answered cases priced)", esc(c.Unpriced), c.Priced, c.Answered)
		}
		line += fmt.Sprintf("  tokens %d in", c.InputTokens)
		if c.CachedTokens > 0 {
			line += fmt.Sprintf(" (%d cached)", c.CachedTokens)
		}
		line += fmt.Sprintf(" + %d out", c.OutputTokens)
	}
	if s.Judge != nil && s.Judge.Cost != nil {
		line += "  ·  " + fmt.Sprintf("judge $%s (apart)", USD(*s.Judge.Cost))
	}
	return line
}

// NotRunLine says how many results a budget left not run ("" when none).
func NotRunLine(s assay.Summary) string {
	if s.NotRun == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d cases: the budget for the system under test was reached (never a pass; the run is incomplete)", s.NotRun, s.Cases)
}

// RelativeText prints a relative change as a signed percentage, "+12.0 %";
// "undefined" when it has none (the baseline was 0).
func RelativeText(r *float64) string {
	if r == nil {
		return "undefined"
	}
	return fmt.Sprintf("%+.1f %%", *r*100)
}

// USD prints US dollars with up to 8 decimals (a case may cost a
// fraction of a cent), trailing zeros trimmed: 0.0005775.
func USD(v float64) string {
	s := strings.TrimRight(fmt.Sprintf("%.8f", v), "0")
	return strings.TrimSuffix(s, ".")
}
