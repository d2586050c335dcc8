package compare

import (
	"fmt"
	"slices"

	"github.com/assay-eval/assay"
)

// Changed cases: a case whose query, expectations or judgments changed
// between two runs (assay.CaseResult.Hash differs) asks the system another
// question, so its two results are not paired; the runs' grading rules
// (assay.Run.GradingVersion) are compared too.

// dropChanged removes from pairs the case trials whose results both carry
// a hash and the hashes differ, and returns the ids of those cases, sorted
// and once each. A pair where either result has no hash (a run made
// before assay recorded them) is kept: its change is unknown.
func dropChanged(base, cand *Compact, pairs []cpair) (kept []cpair, changed []string) {
	kept = pairs[:0] // filtered in place: each pair is read before its slot is written
	seen := map[string]bool{}
	for _, p := range pairs {
		if base.hasHash(p.bi) && cand.hasHash(p.ci) && !sameHash(base, p.bi, cand, p.ci) {
			if !seen[p.key.id] {
				seen[p.key.id] = true
				changed = append(changed, p.key.id)
			}
			continue
		}
		kept = append(kept, p)
	}
	slices.Sort(changed)
	if changed == nil {
		changed = []string{}
	}
	return kept, changed
}

// changeWarnings words what the case hashes and grading versions say as
// remedies: the changed cases left unpaired; runs made by an assay that
// recorded neither (GradingVersion 0: their cases were paired by id, a
// change unknown); different grading rules (compared anyway: the figures
// may move because assay's rules did).
func changeWarnings(base, cand *assay.Run, changed []string) []string {
	var w []string
	if n := len(changed); n > 0 {
		w = append(w, fmt.Sprintf("%d %s changed (query, expectations or judgments) between the runs and %s not compared: %s; rerun the baseline on this suite to compare %s",
			n, plural(n, "case", "cases"), plural(n, "was", "were"), idSample(changed), plural(n, "it", "them")))
	}
	bv, cv := base.GradingVersion, cand.GradingVersion
	var old string
	switch {
	case bv == 0 && cv == 0:
		old = fmt.Sprintf("both runs (%s, %s) were", short(base.RunID), short(cand.RunID))
	case bv == 0:
		old = fmt.Sprintf("the baseline run %s was", short(base.RunID))
	case cv == 0:
		old = fmt.Sprintf("the candidate run %s was", short(cand.RunID))
	case bv != cv:
		w = append(w, fmt.Sprintf("grading rules differ (baseline version %d, candidate version %d): a change may come from assay's rules, not the system; rerun the baseline with this assay", bv, cv))
	}
	if old != "" {
		w = append(w, old+" made by an assay that recorded neither case hashes nor grading rules: cases were paired by id, so a case changed since cannot be told apart; rerun with this assay to compare only unchanged cases")
	}
	return w
}

// idSample lists up to 10 ids: "q1, q2, ... (3 more)".
func idSample(ids []string) string {
	const show = 10
	out := ""
	for i, id := range ids[:min(len(ids), show)] {
		if i > 0 {
			out += ", "
		}
		out += id
	}
	if len(ids) > show {
		out += fmt.Sprintf(", ... (%d more)", len(ids)-show)
	}
	return out
}
