package gate

import "github.com/assay-eval/assay"

// changedCases is the set of case ids whose results carry a hash in both
// runs and the hashes differ (the case's query, expectations or judgments
// changed): no_new_failures does not pair them, as compare does not. A
// result without a hash (an older run) leaves its case paired.
func changedCases(run, baseline *assay.Run) map[string]bool {
	hashes := map[string]string{}
	for _, r := range baseline.Cases {
		if r.Hash != "" {
			hashes[r.ID] = r.Hash
		}
	}
	var changed map[string]bool
	for _, r := range run.Cases {
		if h, ok := hashes[r.ID]; ok && r.Hash != "" && r.Hash != h {
			if changed == nil {
				changed = map[string]bool{}
			}
			changed[r.ID] = true
		}
	}
	return changed
}
