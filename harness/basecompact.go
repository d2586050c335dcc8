package harness

import (
	"context"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/store"
)

// compactBaseline reads the baseline REF in the compact form a comparison
// reads (loadCompact) when no gate reads its case results: the gates that
// compare with it are delta and ratio gates that read its summaries (the
// run's, or a segment it recorded; not a trial statistic), the run is not
// a shard, and the baseline is a complete run of suite kept in a run.json
// (a stopped run's record is completed by the store that loads it). A
// 100,000-case baseline then takes about the memory of its ids and
// measures. nil: load it whole with LoadBaseline, which also words any
// error (a variant matrix reloads it whole too: runMatrix); so does a
// gate that pairs its cases (no_new_failures, non-inferiority).
func (ss *session) compactBaseline(ctx context.Context, ref, suite string) *compare.Compact {
	if ss.shard != nil {
		return nil
	}
	for _, e := range ss.exprs {
		if e.Kind.NeedsBaseline() && !summaryGate(e) {
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
	for _, e := range ss.exprs {
		if e.Kind.NeedsBaseline() && !summarized(e, c.Head) {
			return nil
		}
	}
	return c
}

// summaryGate reports whether a gate that compares with the baseline can
// read the baseline's summaries alone, whatever the baseline: a delta or
// ratio of a measure the target reported or of a metric that is not a
// trial statistic.
func summaryGate(e gate.Expr) bool {
	return (e.Kind == gate.Delta || e.Kind == gate.Ratio) && !e.NeedsCases()
}

// summarized reports whether base's record without its cases is what the
// gate reads of it: no scope, a variant scope, or a tag scope base
// recorded a segment for (without one the gate summarizes the tagged
// cases).
func summarized(e gate.Expr, base *assay.Run) bool {
	if e.Measure || e.Scope == nil || !e.TagScoped(base) {
		return true
	}
	_, ok := base.Segments[e.Scope.String()]
	return ok
}
