package harness

import (
	"context"
	"fmt"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/suite"
)

// failedSelection turns Plan.Failed into the case ids to run: the cases
// of that run that failed (a trial whose pass is false) or errored, in the
// run's order, each once. A latest REF (latest, latest@BRANCH, ...) names
// a run of the suite at hand; any REF must name one (the same
// name; the suite may have changed since, which is why the cases are
// re-run). A failed case the suite no longer has is left out with a
// warning; a run with no failed or errored case is an error, as there is
// nothing to re-run.
func (ss *session) failedSelection(ctx context.Context, st *suite.Streamed) ([]string, error) {
	f := ss.f
	if len(f.Cases) > 0 {
		return nil, planError("Failed", "drop {Cases}: {Failed} picks the cases", "{Failed} and {Cases} both pick the cases to run")
	}
	var rd store.Store
	if f.StoreDir != "" && !store.IsPathRef(f.Failed) {
		var err error
		if rd, err = store.Open(f.StoreDir, f.StoreOptions); err != nil {
			return nil, inputError(err)
		}
		defer rd.Close()
	} else if !store.IsPathRef(f.Failed) {
		return nil, planError("Failed", "give the run's run.json path, or drop {NoStore} to find it in the store", "{Failed} %s: no run store to look it up in ({NoStore})", f.Failed)
	}
	// A latest REF names a run of this suite (as a baseline's does).
	load := f.Failed
	if rd != nil && !store.IsPathRef(f.Failed) {
		e, err := store.ResolveEntryIn(ctx, rd, f.Failed, st.Suite.Name)
		if err != nil {
			return nil, inputError(err)
		}
		load = e.RunID
	}
	run, _, err := LoadRef(ctx, rd, load)
	if err != nil {
		return nil, inputError(err)
	}
	if run.Suite.Name != st.Suite.Name {
		return nil, planError("Failed", "give a run of suite "+st.Suite.Name, "{Failed} %s is a run of suite %q, not of %q", f.Failed, run.Suite.Name, st.Suite.Name)
	}
	var ids []string
	seen := map[string]bool{}
	err = run.EachCase(func(c assay.CaseResult) error {
		if seen[c.ID] || (c.Error == nil && (c.Pass == nil || *c.Pass)) {
			return nil
		}
		seen[c.ID] = true
		ids = append(ids, c.ID)
		return nil
	})
	if err != nil {
		return nil, inputError(err)
	}
	if len(ids) == 0 {
		return nil, planError("Failed", "", "{Failed} %s: no case failed or errored in run %s: nothing to re-run", f.Failed, report.ShortID(run.RunID))
	}
	have := map[string]bool{}
	if err := st.Cases(func(c assay.Case) error {
		if seen[c.ID] {
			have[c.ID] = true
		}
		return nil
	}); err != nil {
		return nil, inputError(err)
	}
	kept := ids[:0]
	for _, id := range ids {
		if have[id] {
			kept = append(kept, id)
		} else {
			ss.warnings = append(ss.warnings, fmt.Sprintf("case %q failed in run %s and is no longer in the suite: not run", id, report.ShortID(run.RunID)))
		}
	}
	if len(kept) == 0 {
		return nil, planError("Failed", "", "{Failed} %s: none of the %d case(s) that failed in run %s is in the suite any more", f.Failed, len(ids), report.ShortID(run.RunID))
	}
	return kept, nil
}
