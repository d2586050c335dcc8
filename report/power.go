package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/assay-eval/assay/compare"
)

// PowerText writes what a suite can see (`assay power`): the runs the
// figures come from, then one row per measure with its cases, the sd of
// the paired deltas and where it comes from, the MDE, and for each
// --delta the paired cases needed to detect it; then the rule.
func PowerText(w io.Writer, sp compare.SuitePower) error {
	p := &printer{w: w}
	p.f("suite %s · latest run %s", nonEmpty(sp.Suite, "?"), ShortID(sp.Latest))
	if sp.Previous != "" {
		p.f(" · previous run %s", ShortID(sp.Previous))
	}
	p.nl()
	rows := [][]string{{"", "cases", "sd", "from", "MDE", "delta", "cases needed"}}
	for _, m := range sp.Measures {
		from := "paired deltas"
		if m.Basis == "spread" {
			from = "√2 × case spread"
		}
		sd := fmt.Sprintf("%.4f", m.SD)
		if m.N < 2 {
			sd, from = "—", "—"
		}
		delta, need := "", ""
		if m.Delta != nil {
			delta = fmt.Sprintf("%.4f", *m.Delta)
			need = "—"
			if m.CasesNeeded != nil {
				need = strconv.Itoa(*m.CasesNeeded)
			}
		}
		rows = append(rows, []string{m.Name, strconv.Itoa(m.N), sd, from, mde(m.MDE), delta, need})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		line := fmt.Sprintf("%-*s", widths[0], r[0])
		for i := 1; i < len(r); i++ {
			line += "  " + strings.Repeat(" ", widths[i]-len([]rune(r[i]))) + r[i]
		}
		p.f("%s\n", strings.TrimRight(line, " "))
	}
	p.f("\nMDE: the smallest true mean change that a paired comparison of these cases detects %.0f%% of the time at α %s (two-sided, normal approximation); cases needed: the paired cases that detect the --delta as often.\n",
		100*sp.Power, alphaText(sp.Alpha))
	p.f("sd from: paired deltas = between the latest run and the one before it; √2 × case spread = as if the two runs of a comparison were independent (an upper bound for paired runs; used without a previous run, or when its deltas do not vary).\n")
	return p.err
}
