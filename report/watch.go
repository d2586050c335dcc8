package report

import (
	"fmt"
	"io"

	"github.com/assay-eval/assay/compare"
)

// WatchChanges writes the short comparison assay run --watch prints after
// a re-run: what changed against the previous run, one line per measure
// whose mean moved (baseline → candidate, delta, and the compare mark:
// better, worse, changed or ~ for not significant), then the flipped cases
// (pass/fail and refused/answered). Measures that did not move and empty
// flip lists are left out; when nothing moved it says so in one line. The
// full comparison is assay compare's.
func WatchChanges(w io.Writer, rep compare.Report) error {
	p := &printer{w: w}
	var moved []compare.MetricDelta
	for _, m := range rep.Metrics {
		if m.Delta != 0 {
			moved = append(moved, m)
		}
	}
	fl := rep.Flips
	flips := []struct {
		what string
		ids  []string
	}{
		{"pass → fail", fl.PassToFail}, {"fail → pass", fl.FailToPass},
		{"answered → refused", fl.AnsweredToRefused}, {"refused → answered", fl.RefusedToAnswered},
	}
	nflips := 0
	for _, f := range flips {
		nflips += len(f.ids)
	}
	prev := nonEmpty(ShortID(rep.Baseline), "?")
	if len(moved) == 0 && nflips == 0 {
		p.f("no change since the previous run %s (%s)\n", prev, count(rep.PairedCases, "paired case", "paired cases"))
		return p.err
	}
	p.f("changes since the previous run %s (%s):\n", prev, count(rep.PairedCases, "paired case", "paired cases"))
	nameW := 0
	for _, m := range moved {
		nameW = max(nameW, len(m.Name))
	}
	for _, m := range moved {
		p.f("  %-*s  %.4f → %.4f  %+.4f  %s\n", nameW, m.Name, m.Baseline, m.Candidate, m.Delta, string(m.Change))
	}
	for _, f := range flips {
		if len(f.ids) > 0 {
			p.f("  %s (%d)%s\n", f.what, len(f.ids), idList(f.ids))
		}
	}
	return p.err
}

// WatchRerun is the line assay run --watch prints before it runs again:
// the inputs that changed (at most three named).
func WatchRerun(w io.Writer, changed []string) error {
	p := &printer{w: w}
	names := changed
	more := ""
	if len(names) > 3 {
		names, more = names[:3], fmt.Sprintf(" and %d more", len(changed)-3)
	}
	list := ""
	for i, n := range names {
		if i > 0 {
			list += ", "
		}
		list += n
	}
	p.f("\nwatch: %s%s changed: running again\n\n", list, more)
	return p.err
}
