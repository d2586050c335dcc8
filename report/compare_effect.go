package report

import (
	"fmt"
	"strings"

	"github.com/assay-eval/assay/compare"
)

// Sensitivity is the sentence that says how small a change of the gated
// measures the comparison could have seen: each one's minimum detectable
// effect (MDE at compare.Power and the report's alpha, from this pair's
// paired deltas), e.g. "this suite cannot see changes below ndcg@10 0.0412,
// pass_rate 0.1180 (MDE at 80% power, α 0.05, from this pair's paired
// deltas)". When no gated measure's deltas vary it says so; it is "" when
// no gated measure has 2 paired cases.
func Sensitivity(rep compare.Report) string {
	if rep.Power == 0 {
		return ""
	}
	var parts, unknown []string
	for _, m := range rep.Metrics {
		switch {
		case !m.Gated:
		case m.MDE != nil:
			parts = append(parts, fmt.Sprintf("%s %.4f", m.Name, *m.MDE))
		case m.N >= 2:
			unknown = append(unknown, m.Name)
		}
	}
	if len(parts) == 0 {
		if len(unknown) == 0 {
			return ""
		}
		return "the MDE is not estimated: no gated measure moved differently from case to case in this pair, so it shows no noise to size a change against"
	}
	s := fmt.Sprintf("this suite cannot see changes below %s (MDE at %.0f%% power, α %s, from this pair's paired deltas)",
		strings.Join(parts, ", "), 100*rep.Power, alphaText(rep.Alpha))
	if len(unknown) > 0 {
		s += "; not estimated for " + strings.Join(unknown, ", ") + " (no case moved differently from the others)"
	}
	return s
}

func alphaText(a float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", a), "0"), ".")
}

// dz prints a standardised effect, or "—" when it is undefined.
func dz(p *float64) string {
	if p == nil {
		return "—"
	}
	return fmt.Sprintf("%+.2f", *p)
}

func mde(p *float64) string {
	if p == nil {
		return "—"
	}
	return fmt.Sprintf("%.4f", *p)
}

// EffectCells are a measure's effect-size cells as the reports print them:
// d_z, wins/ties/losses and the MDE ("—" when undefined).
func EffectCells(m compare.MetricDelta) [3]string {
	return [3]string{dz(m.DZ), wtl(m), mde(m.MDE)}
}

// wtl prints wins/ties/losses.
func wtl(m compare.MetricDelta) string { return fmt.Sprintf("%d/%d/%d", m.Wins, m.Ties, m.Losses) }

// varianceText is one measure's variance split: "62% between cases, 38%
// within (3 trials): more cases".
func varianceText(v *compare.VarianceSplit) string {
	if v.Advice == "" {
		return fmt.Sprintf("no variance (%s trials)", trialsText(v.Trials))
	}
	return fmt.Sprintf("%.0f%% between cases, %.0f%% within cases (%s trials): %s",
		100*v.BetweenShare, 100*v.WithinShare, trialsText(v.Trials), v.Advice)
}

func trialsText(t float64) string {
	if t == float64(int(t)) {
		return fmt.Sprintf("%d", int(t))
	}
	return fmt.Sprintf("%.1f", t)
}

// compareEffectText writes the effect table (d_z, wins/ties/losses, MDE
// of every measure), the sensitivity sentence and, with trials, the
// variance split of each measure.
func compareEffectText(p *printer, rep compare.Report) {
	if len(rep.Metrics) == 0 || rep.Power == 0 { // a report written before effects were
		return
	}
	rows := [][]string{{"", "d_z", "win/tie/loss", "MDE"}}
	for _, m := range rep.Metrics {
		rows = append(rows, []string{m.Name, dz(m.DZ), wtl(m), mde(m.MDE)})
	}
	widths := make([]int, 4)
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	p.f("effect size and power (MDE: the smallest true change this pair detects %.0f%% of the time at α %s)\n", 100*rep.Power, alphaText(rep.Alpha))
	for _, r := range rows {
		line := fmt.Sprintf("  %-*s", widths[0], r[0])
		for i := 1; i < len(r); i++ {
			line += "  " + strings.Repeat(" ", widths[i]-len([]rune(r[i]))) + r[i]
		}
		p.f("%s\n", strings.TrimRight(line, " "))
	}
	if s := Sensitivity(rep); s != "" {
		p.f("%s\n", s)
	}
	var split []compare.MetricDelta
	for _, m := range rep.Metrics {
		if m.Variance != nil && m.Variance.Advice != "" {
			split = append(split, m)
		}
	}
	if len(split) > 0 {
		p.f("\nvariance of the paired deltas, between and within cases:\n")
		for _, m := range split {
			p.f("  %-*s  %s\n", widths[0], m.Name, varianceText(m.Variance))
		}
	}
	p.nl()
}

// compareEffectMarkdown is compareEffectText for a pull request comment.
func compareEffectMarkdown(p *printer, rep compare.Report) {
	if len(rep.Metrics) == 0 || rep.Power == 0 {
		return
	}
	if s := Sensitivity(rep); s != "" {
		p.f("%s\n\n", mdEscape(s))
	}
	p.f("<details><summary>effect size and power</summary>\n\n")
	p.f("| measure | d_z | win/tie/loss | MDE | variance between / within cases |\n|---|---:|---:|---:|---|\n")
	for _, m := range rep.Metrics {
		v := ""
		if m.Variance != nil {
			v = varianceText(m.Variance)
		}
		p.f("| %s | %s | %s | %s | %s |\n", mdEscape(m.Name), dz(m.DZ), wtl(m), mde(m.MDE), mdEscape(v))
	}
	p.f("\nMDE: the smallest true change this pair detects %.0f%% of the time at α %s, from the paired deltas' spread.\n\n</details>\n\n", 100*rep.Power, alphaText(rep.Alpha))
}

// ClusterNote says how many clusters decided a clustered comparison:
// " · tested as 8 clusters by doc" (the most any measure had), "" when the
// cases were the units.
func ClusterNote(rep compare.Report) string {
	if rep.Cluster == "" {
		return ""
	}
	n := 0
	for _, m := range rep.Metrics {
		n = max(n, m.Clusters)
	}
	return fmt.Sprintf(" · tested as %s by %s", count(n, "cluster", "clusters"), rep.Cluster)
}
