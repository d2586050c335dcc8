package harness

import (
	"context"
	"math"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/metric"
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
		r, err := st.Load(ctx, e.RunID)
		if err != nil || !compare.SameSystem(r, base) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// ParseMargins reads equivalence margins written NAME=VALUE (--margin
// ndcg@10=0.01): NAME is pass_rate or a metric (any spelling
// metric.Parse accepts, kept in its canonical form), VALUE a number >= 0.
func ParseMargins(specs []string) (map[string]float64, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	out := map[string]float64{}
	for _, s := range specs {
		name, val, ok := strings.Cut(s, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, usageError("write it as MEASURE=VALUE, for example --margin ndcg@10=0.01", "--margin %q: want MEASURE=VALUE", s)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, usageError("a margin is a number >= 0 in the measure's units, for example --margin ndcg@10=0.01", "--margin %q: %q is not a margin", s, val)
		}
		key := strings.ToLower(name)
		if key != "pass_rate" {
			spec, err := metric.Parse(name)
			if err != nil {
				return nil, usageError("name pass_rate or a metric such as ndcg@10", "--margin %q: %v", s, err)
			}
			key = spec.String()
		}
		out[key] = v
	}
	return out, nil
}
