package harness

import (
	"context"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/store"
)

// DefaultHistory is the number of earlier runs History loads.
const DefaultHistory = 5

// History loads up to limit (DefaultHistory when 0, none when negative)
// of the newest complete runs in st of base's suite and target
// (compare.SameSystem), started no later than cand, leaving out base and
// cand themselves: the record compare and the no_new_failures gate weigh
// flips against (compare.Options.History, gate.EvaluateHistory). A nil
// store has no history. A run that cannot be read is skipped: history
// only sharpens the evidence, so its absence is never an error.
func History(ctx context.Context, st store.Reader, base, cand *assay.Run, limit int) []*assay.Run {
	if st == nil || base == nil || limit < 0 {
		return nil
	}
	if limit == 0 {
		limit = DefaultHistory
	}
	entries, err := st.List(ctx, store.Filter{Suite: base.Suite.Name, Status: assay.StatusComplete, NoShards: true})
	if err != nil {
		return nil
	}
	var out []*assay.Run
	for _, e := range entries {
		if len(out) == limit {
			break
		}
		if e.RunID == base.RunID || (cand != nil && e.RunID == cand.RunID) {
			continue
		}
		if e.Fingerprint != "" && e.Fingerprint != base.Suite.Fingerprint {
			continue
		}
		if cand != nil && !cand.StartedAt.IsZero() && e.StartedAt.After(cand.StartedAt) {
			continue
		}
		// The header first: a run of another system is left out without
		// reading its cases (at 100,000 cases each, loading the runs it
		// then dropped whole cost more memory than the comparison).
		if h, _, err := loadRefHead(ctx, st, e.RunID); err == nil && !compare.SameSystem(h, base) {
			continue
		}
		r, err := st.Load(ctx, e.RunID)
		if err != nil || !compare.SameSystem(r, base) {
			continue
		}
		out = append(out, r)
	}
	return out
}
