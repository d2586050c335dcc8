package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/assay-eval/assay/compare"
)

// SignificanceRule is what "~" means, printed by the compare renderers
// under the measures: how the CI and the "~" are decided (compare's
// package doc).
func SignificanceRule(alpha float64) string {
	return fmt.Sprintf("not significant: p ≥ %.2f in a two-sided paired sign-flip test; the 95%% CI is that test's own interval, so it excludes 0 exactly when a change is significant", alpha)
}

// CompareText writes a comparison for the terminal, in the style of
// benchstat: one row per measure with baseline, candidate, delta, the 95%
// CI of the mean delta and p, marked "~" when not significant (else better,
// worse or changed); then latency, the flipped cases, the verdict with its
// reasons, and the warnings as numbered footnotes. The cases that changed
// between the runs (not paired) are listed after the flips.
func CompareText(w io.Writer, rep compare.Report) error {
	p := &printer{w: w}
	p.f("baseline  %s (%s)\n", nonEmpty(ShortID(rep.Baseline), "?"), rep.BaselineStatus)
	p.f("candidate %s (%s)\n", nonEmpty(ShortID(rep.Candidate), "?"), rep.CandidateStatus)
	p.f("suite %s · %s", nonEmpty(rep.Suite, "?"), count(rep.PairedCases, "paired case", "paired cases"))
	if rep.PairedValues != rep.PairedCases {
		p.f(" (%s)", count(rep.PairedValues, "case trial", "case trials"))
	}
	p.f("%s", ClusterNote(rep))
	p.f("\n\n")
	if len(rep.Metrics) == 0 && rep.Cost != nil {
		c := rep.Cost
		p.f("cost per case %s ($%s -> $%s, n=%d)  tokens per case %s (%.1f -> %.1f)\n\n", RelativeText(c.Relative), USD(c.Baseline), USD(c.Candidate), c.N, RelativeText(c.RelativeTokens), c.BaselineTokens, c.CandidateTokens)
	}
	if len(rep.Metrics) > 0 {
		nameW := len("latency p95")
		if rep.Cost != nil {
			nameW = len("tokens per case")
		}
		for _, m := range rep.Metrics {
			nameW = max(nameW, len(m.Name))
		}
		rows := [][]string{{"", "baseline", "candidate", "delta", "95% CI", "p", "p adj", ""}}
		for _, m := range rep.Metrics {
			rows = append(rows, []string{m.Name, fmt.Sprintf("%.4f", m.Baseline), fmt.Sprintf("%.4f", m.Candidate),
				fmt.Sprintf("%+.4f", m.Delta), fmt.Sprintf("[%+.4f, %+.4f]", m.CI95[0], m.CI95[1]), pval(m.P), padj(m.PAdjusted), string(m.Change)})
		}
		if l := rep.Latency; l.N > 0 {
			rows = append(rows, nil,
				[]string{"latency p50", Millis(l.Baseline.P50) + "ms", Millis(l.Candidate.P50) + "ms", SignedMillis(l.DeltaP50), "", "", "", ""},
				[]string{"latency p95", Millis(l.Baseline.P95) + "ms", Millis(l.Candidate.P95) + "ms", SignedMillis(l.DeltaP95), "", "", "", ""})
		}
		if c := rep.Cost; c != nil {
			rows = append(rows, nil,
				[]string{"cost per case", "$" + USD(c.Baseline), "$" + USD(c.Candidate), RelativeText(c.Relative), fmt.Sprintf("n=%d", c.N), "", "", ""},
				[]string{"tokens per case", fmt.Sprintf("%.1f", c.BaselineTokens), fmt.Sprintf("%.1f", c.CandidateTokens), RelativeText(c.RelativeTokens), "", "", "", ""})
		}
		widths := make([]int, 8)
		widths[0] = nameW
		for _, r := range rows {
			for i := 1; i < len(r); i++ {
				widths[i] = max(widths[i], len(r[i]))
			}
		}
		for _, r := range rows {
			if r == nil {
				p.nl()
				continue
			}
			line := fmt.Sprintf("%-*s", widths[0], r[0])
			for i := 1; i <= 6; i++ {
				line += "  " + fmt.Sprintf("%*s", widths[i], r[i])
			}
			if r[7] != "" {
				line += "  " + r[7]
			}
			p.f("%s\n", strings.TrimRight(line, " "))
		}
		p.f("\n~: %s\n", SignificanceRule(rep.Alpha))
		p.nl()
		compareEffectText(p, rep)
	}
	p.f("pass → fail (%d)%s\n", len(rep.Flips.PassToFail), idList(rep.Flips.PassToFail))
	p.f("fail → pass (%d)%s\n", len(rep.Flips.FailToPass), idList(rep.Flips.FailToPass))
	if ids := rep.Flips.AnsweredToRefused; len(ids) > 0 {
		p.f("answered → refused (%d)%s\n", len(ids), idList(ids))
	}
	if ids := rep.Flips.RefusedToAnswered; len(ids) > 0 {
		p.f("refused → answered (%d)%s\n", len(ids), idList(ids))
	}
	if ids := rep.ChangedCases; len(ids) > 0 {
		p.f("changed, not paired (%d)%s\n", len(ids), idList(ids))
	}
	if len(rep.TopScores) > 0 {
		p.f("top score changed (%d):%s\n", len(rep.TopScores), scoreList(rep.TopScores, func(s string) string { return s }))
	}
	if ev := rep.FlipEvidence; ev != nil && ev.PassToFail+ev.FailToPass > 0 {
		p.f("flips: McNemar p %s, adjusted %s; %s\n", pval(ev.P), pval(ev.PAdjusted), ev.Basis)
		for _, g := range flipGroups(ev) {
			p.f("  %s (%d)%s\n", g.label, len(g.cases), idList(caseIDs(g.cases)))
		}
		if ev.Advice != "" {
			p.f("  %s\n", ev.Advice)
		}
	}
	p.nl()
	p.f("verdict: %s", rep.Verdict)
	if len(rep.Reasons) > 0 {
		p.f(" (%s)", strings.Join(rep.Reasons, "; "))
	}
	p.nl()
	if rep.Method != "" {
		p.f("method: %s\n", rep.Method)
	}
	if len(rep.Warnings) > 0 {
		p.f("\nwarnings:\n")
		for i, wn := range rep.Warnings {
			p.f("  %d. %s\n", i+1, wn)
		}
	}
	return p.err
}

// CompareMarkdown writes a comparison as a GitHub-flavoured markdown pull
// request comment: the verdict headline, the measure table, latency, the
// flipped cases and the warnings.
func CompareMarkdown(w io.Writer, rep compare.Report) error {
	p := &printer{w: w}
	icon := map[compare.Verdict]string{compare.Regressed: "❌", compare.Better: "✅", compare.Same: "➖", compare.Inconclusive: "❔"}[rep.Verdict]
	p.f("## %s assay compare · %s — %s\n\n", icon, mdEscape(nonEmpty(rep.Suite, "suite")), rep.Verdict)
	p.f("baseline `%s` (%s) → candidate `%s` (%s) · %s\n\n",
		mdCode(ShortID(rep.Baseline)), rep.BaselineStatus, mdCode(ShortID(rep.Candidate)), rep.CandidateStatus, count(rep.PairedCases, "paired case", "paired cases")+mdEscape(ClusterNote(rep)))
	if len(rep.Reasons) > 0 {
		p.f("**%s**\n\n", mdEscape(strings.Join(rep.Reasons, "; ")))
	}
	if len(rep.Metrics) > 0 {
		p.f("| measure | baseline | candidate | delta | 95%% CI | p | p adj | |\n|---|---:|---:|---:|---:|---:|---:|---|\n")
		for _, m := range rep.Metrics {
			mark := string(m.Change)
			switch m.Change {
			case compare.Worsened:
				mark = "🔻 worse"
			case compare.Improved:
				mark = "🔺 better"
			}
			p.f("| %s | %.4f | %.4f | %+.4f | [%+.4f, %+.4f] | %s | %s | %s |\n",
				mdEscape(m.Name), m.Baseline, m.Candidate, m.Delta, m.CI95[0], m.CI95[1], mdEscape(pval(m.P)), mdEscape(padj(m.PAdjusted)), mdEscape(mark))
		}
		if l := rep.Latency; l.N > 0 {
			p.f("| latency p50 | %sms | %sms | %s | | | | |\n", Millis(l.Baseline.P50), Millis(l.Candidate.P50), SignedMillis(l.DeltaP50))
			p.f("| latency p95 | %sms | %sms | %s | | | | |\n", Millis(l.Baseline.P95), Millis(l.Candidate.P95), SignedMillis(l.DeltaP95))
		}
		if c := rep.Cost; c != nil {
			p.f("| cost per case | $%s | $%s | %s | n=%d | | | |\n", USD(c.Baseline), USD(c.Candidate), RelativeText(c.Relative), c.N)
			p.f("| tokens per case | %.1f | %.1f | %s | | | | |\n", c.BaselineTokens, c.CandidateTokens, RelativeText(c.RelativeTokens))
		}
		p.f("\n`~`: %s\n\n", mdEscape(SignificanceRule(rep.Alpha)))
		compareEffectMarkdown(p, rep)
	}
	if rep.Method != "" {
		p.f("<sub>method: %s</sub>\n\n", mdEscape(rep.Method))
	}
	mdFlips := func(label string, ids []string) {
		if len(ids) == 0 {
			return
		}
		quoted := make([]string, len(ids))
		for i, id := range ids {
			quoted[i] = "`" + mdCode(id) + "`"
		}
		p.f("**%s (%d):** %s\n\n", label, len(ids), strings.Join(quoted, ", "))
	}
	mdFlips("pass → fail", rep.Flips.PassToFail)
	mdFlips("fail → pass", rep.Flips.FailToPass)
	mdFlips("answered → refused", rep.Flips.AnsweredToRefused)
	mdFlips("refused → answered", rep.Flips.RefusedToAnswered)
	mdFlips("changed, not paired", rep.ChangedCases)
	if ev := rep.FlipEvidence; ev != nil && ev.PassToFail+ev.FailToPass > 0 {
		p.f("flips: McNemar p %s, adjusted %s; %s\n\n", mdEscape(pval(ev.P)), mdEscape(pval(ev.PAdjusted)), mdEscape(ev.Basis))
		for _, g := range flipGroups(ev) {
			mdFlips(g.label, caseIDs(g.cases))
		}
		if ev.Advice != "" {
			p.f("%s\n\n", mdEscape(ev.Advice))
		}
	}
	if len(rep.TopScores) > 0 {
		p.f("**top score changed (%d):**%s\n\n", len(rep.TopScores), scoreList(rep.TopScores, func(id string) string { return "`" + mdCode(id) + "`" }))
	}
	for _, wn := range rep.Warnings {
		p.f("> ⚠️ %s\n", mdEscape(wn))
	}
	if len(rep.Warnings) > 0 {
		p.nl()
	}
	return p.err
}

// CompareJSON writes the assay.compare/v1 document.
func CompareJSON(w io.Writer, rep compare.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(rep)
}

// ShortID is a run id as the reports show it: its first 13 characters
// (the time part of a UUIDv7), unique among the runs of a store in
// practice and enough to name one as a REF.
func ShortID(id string) string {
	if len(id) > 13 {
		return id[:13]
	}
	return id
}

// padj is an adjusted p, or "" for a measure outside the family.
func padj(p *float64) string {
	if p == nil {
		return ""
	}
	return pval(*p)
}

type flipGroup struct {
	label string
	cases []compare.CaseEvidence
}

// flipGroups are the non-empty groups of weighed flips: confirmed new
// failures, flaky flips, unconfirmed flips.
func flipGroups(ev *compare.FlipEvidence) []flipGroup {
	var out []flipGroup
	for _, g := range []flipGroup{{"new failures", ev.Confirmed}, {"flaky", ev.Flaky}, {"not confirmed", ev.Unconfirmed}} {
		if len(g.cases) > 0 {
			out = append(out, g)
		}
	}
	return out
}

func caseIDs(cs []compare.CaseEvidence) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

func pval(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

// SignedMillis is a latency delta: +2.25ms, -0.10ms.
func SignedMillis(v float64) string {
	if v < 0 {
		return "-" + Millis(-v) + "ms"
	}
	return "+" + Millis(v) + "ms"
}

func idList(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	const show = 20
	if len(ids) > show {
		return fmt.Sprintf(": %s, ... (%d more)", strings.Join(ids[:show], ", "), len(ids)-show)
	}
	return ": " + strings.Join(ids, ", ")
}

// scoreList lists the first 10 top-score changes (largest first, as
// compare sorts them): ": q1 0.4162 → 0.3900 (-0.0262), ...".
func scoreList(ds []compare.ScoreDelta, id func(string) string) string {
	const show = 10
	parts := make([]string, 0, min(len(ds), show))
	for _, d := range ds[:min(len(ds), show)] {
		parts = append(parts, fmt.Sprintf("%s %.4f → %.4f (%+.4f)", id(d.ID), d.Baseline, d.Candidate, d.Delta))
	}
	out := " " + strings.Join(parts, ", ")
	if len(ds) > show {
		out += fmt.Sprintf(", ... (%d more)", len(ds)-show)
	}
	return out
}

// count writes n and the noun, singular when n is 1: "1 paired case".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
