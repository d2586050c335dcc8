package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/assay-eval/assay"
)

// judgeLines are the judge's totals, one phrase per line: what judged,
// how many were not (and why), the usage and cost, and with repeats the
// agreement per criterion and the unstable results (docs/judge.md). None
// when no judge ran.
func judgeLines(s *assay.JudgeSummary) []string {
	if s == nil {
		return nil
	}
	total := s.Judged + s.NotJudged + s.Errors
	line := fmt.Sprintf("%s (prompt %s): judged %d of %d  not judged %d  judge errors %d  cached %d", Escape(s.Model), s.Prompt, s.Judged, total, s.NotJudged, s.Errors, s.Cached)
	out := []string{line}
	if s.PartlyJudged > 0 {
		out = append(out, fmt.Sprintf("partly judged %d: no passage text for the criteria that read the passages", s.PartlyJudged))
	}
	if s.Budget != "" {
		out = append(out, "judging stopped: budget "+s.Budget)
	}
	if s.Breaker != "" {
		out = append(out, "judging stopped: the judge endpoint is down: "+Escape(s.Breaker))
	}
	usage := fmt.Sprintf("calls %d  tokens %d prompt + %d completion", s.Calls, s.PromptTokens, s.CompletionTokens)
	if s.Cost != nil {
		usage += fmt.Sprintf("  cost %s", trimFloat(*s.Cost))
	}
	out = append(out, usage)
	if s.Repeats > 1 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(s.Agreement)) {
			parts = append(parts, fmt.Sprintf("%s %.2f (spread %.2f)", k, s.Agreement[k], s.Spread[k]))
		}
		out = append(out, fmt.Sprintf("repeats %d  agreement %s", s.Repeats, nonEmpty(strings.Join(parts, ", "), "none measured")))
		if s.UnstableCases > 0 {
			u := fmt.Sprintf("unstable %d: %s", s.UnstableCases, Escape(strings.Join(s.Unstable, ", ")))
			if more := s.UnstableCases - len(s.Unstable); more > 0 {
				u += fmt.Sprintf(" and %d more", more)
			}
			out = append(out, u)
		}
	}
	for _, p := range s.Probes {
		line := fmt.Sprintf("probe %s on %s: effect %+.4f [%+.4f, %+.4f] n=%d", p.Probe, p.Criterion, p.Effect, p.Lo, p.Hi, p.N)
		if p.Flagged {
			line += fmt.Sprintf("  FLAGGED: |effect| > %s", trimFloat(p.Threshold))
		}
		out = append(out, line)
	}
	return out
}

// trimFloat prints a cost: up to 6 decimals, trailing zeros trimmed.
func trimFloat(f float64) string {
	s := strings.TrimRight(fmt.Sprintf("%.6f", f), "0")
	return strings.TrimSuffix(s, ".")
}
