package compare

import "github.com/assay-eval/assay"

// SameSystem reports whether the run h is an earlier run of the same suite
// and target as base, so that its case outcomes say something about the
// noise of the system under test: the suite fingerprints are equal, and so
// are the target fingerprints (or, for a target that reports none, its kind
// and spec). Incomplete runs and shard runs are never history.
func SameSystem(h, base *assay.Run) bool {
	if h == nil || base == nil || h.Status != assay.StatusComplete || h.Shard != nil {
		return false
	}
	if h.RunID != "" && h.RunID == base.RunID {
		return false
	}
	if h.Suite.Fingerprint == "" || h.Suite.Fingerprint != base.Suite.Fingerprint {
		return false
	}
	ht, bt := h.Target, base.Target
	if ht.Fingerprint != "" || bt.Fingerprint != "" {
		return ht.Fingerprint == bt.Fingerprint
	}
	return ht.Kind == bt.Kind && ht.Spec == bt.Spec
}

// history keeps the runs of o.History that are runs of base's system
// (SameSystem), leaving out base and cand themselves.
func history(base, cand *assay.Run, hs []*assay.Run) []*assay.Run {
	var out []*assay.Run
	seen := map[string]bool{base.RunID: true, cand.RunID: true}
	for _, h := range hs {
		if !SameSystem(h, base) || (h.RunID != "" && seen[h.RunID]) {
			continue
		}
		seen[h.RunID] = true
		out = append(out, h)
	}
	return out
}
