package harness

import (
	"context"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/store"
)

// compactBaseline reads the baseline REF in the compact form a comparison
// reads (loadCompact) when only the comparison reads it: no gate compares
// with it (delta, ratio, no_new_failures, non-inferiority), the run is not
// a shard, and the baseline is a complete run of suite kept in a run.json
// (a stopped run's record is completed by the store that loads it). A
// 100,000-case baseline then takes about the memory of its ids and
// measures. nil: load it whole with LoadBaseline, which also words any
// error (a variant matrix reloads it whole too: runMatrix).
func (ss *session) compactBaseline(ctx context.Context, ref, suite string) *compare.Compact {
	if ss.shard != nil {
		return nil
	}
	for _, e := range ss.exprs {
		if e.Kind.NeedsBaseline() {
			return nil
		}
	}
	var path string
	if ss.st == nil || store.IsPathRef(ref) {
		p, err := store.ResolveRef(ctx, nil, ref)
		if err != nil {
			return nil
		}
		path = p
	} else {
		e, err := store.ResolveEntryIn(ctx, ss.st, ref, suite)
		if err != nil {
			return nil
		}
		path = runFile(ss.st, e.RunID)
	}
	if path == "" {
		return nil
	}
	c, err := loadCompact(path)
	if err != nil || c.Head.Status != assay.StatusComplete || (suite != "" && c.Head.Suite.Name != suite) {
		return nil
	}
	return c
}
