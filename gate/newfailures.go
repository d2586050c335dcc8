package gate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
)

// flipAlpha is the level at which no_new_failures weighs its flips.
const flipAlpha = 0.05

// weighNewFailures is no_new_failures (not strict) once some case went
// pass -> fail: the flips are weighed as compare weighs them
// (compare.AssessFlips: a deterministic system's flips are all new
// failures; otherwise each case's exact test against its record and
// McNemar's test over all flips, Holm over that family). The gate fails
// when a new failure is confirmed or the flips as a whole show more
// pass -> fail than chance; flaky and unconfirmed flips are named in the
// detail with the advice that would confirm them.
func weighNewFailures(res assay.GateResult, run, baseline *assay.Run, history []*assay.Run, scope *Scope, flips []string) assay.GateResult {
	keep := func(r *assay.CaseResult) bool { return scope == nil || r.Tags[scope.Key] == scope.Value }
	ff := compare.AssessFlips(compare.FlipInput{
		Base: baseline, Cand: run, History: history,
		PassToFail: flips, FailToPass: fixes(run, baseline, scope), Keep: keep,
	}, 0, flipAlpha)
	ff.Settle(compare.Holm(ff.Members()), flipAlpha)
	ev := ff.Evidence
	var confirmed []string
	for _, c := range ev.Confirmed {
		if slices.Contains(flips, c.ID) {
			confirmed = append(confirmed, c.ID)
		}
	}
	aggregate := ev.PAdjusted < flipAlpha && ev.PassToFail > ev.FailToPass
	n := float64(len(confirmed))
	if aggregate {
		n = float64(len(flips))
	}
	res.Value = &n
	res.Pass = n == 0
	var parts []string
	if len(confirmed) > 0 {
		parts = append(parts, "pass -> fail: "+caseList(confirmed))
	}
	if aggregate {
		parts = append(parts, fmt.Sprintf("%d pass -> fail vs %d fail -> pass (McNemar p %.3g)", ev.PassToFail, ev.FailToPass, ev.PAdjusted))
	}
	var open []string
	for _, c := range append(slices.Clone(ev.Flaky), ev.Unconfirmed...) {
		open = append(open, c.ID)
	}
	if len(open) > 0 {
		slices.Sort(open)
		parts = append(parts, fmt.Sprintf("not confirmed (%s): %s; no_new_failures(strict) fails on any flip", ev.Advice, caseList(open)))
	}
	res.Detail = strings.Join(parts, "; ")
	return res
}

// fixes are the cases that went fail -> pass, by NewFailures' rule.
func fixes(run, baseline *assay.Run, scope *Scope) []string {
	base := caseOutcomes(baseline.Cases, scope)
	cand := caseOutcomes(run.Cases, scope)
	var out []string
	for _, id := range slices.Sorted(maps.Keys(cand)) {
		if b, ok := base[id]; ok && !b && cand[id] {
			out = append(out, id)
		}
	}
	return out
}
