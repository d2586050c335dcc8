package harness

import (
	"context"
	"fmt"
	"os"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/runner"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/suite"
)

// OpenRefStore opens the run store at dir for reading when one of refs
// needs it (store.NeedsIndex: anything but a path); paths work with no
// store at all, and the store is then nil. A missing store is an error
// that says how to make one.
func OpenRefStore(dir string, o store.OpenOptions, refs ...string) (store.Store, error) {
	if !store.NeedsIndex(refs...) {
		return nil, nil
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("no run store at %s: run 'assay run SUITE' first, give a run.json path, or pass --store DIR", dir)
	}
	o.ForReading = true
	return store.Open(dir, o) // its errors name the store
}

// LoadRef resolves a run REF (store.ResolveRef; st may be nil when ref
// is a path) and loads the run, returning it with its run.json path. A
// stopped run records no summary: it gets one of the cases it recorded.
func LoadRef(ctx context.Context, st store.Store, ref string) (*assay.Run, string, error) {
	var l store.Lister
	if st != nil {
		l = st
	}
	path, err := store.ResolveRef(ctx, l, ref)
	if err != nil {
		return nil, "", err
	}
	run, err := store.LoadRun(path)
	if err != nil {
		return nil, "", err
	}
	return run, path, nil
}

// Summarized fills in the summary of a stopped run (one whose run.json
// lists cases but no summary) from the cases it recorded, and reports
// whether it did.
func Summarized(run *assay.Run) bool {
	if run.Status == assay.StatusIncomplete && run.Summary.Cases == 0 && len(run.Cases) > 0 {
		run.Summary = runner.Summarize(run.Cases, run.Options.Metrics)
		return true
	}
	return false
}

// CaseIDs returns the ids of a suite's cases in suite order (its
// positioned error when the suite is invalid).
func CaseIDs(path string) ([]string, error) {
	st, err := suite.Stream(path, suite.LoadOptions{})
	if err != nil {
		return nil, inputError(err)
	}
	var ids []string
	seen := map[string]bool{}
	err = st.Cases(func(c assay.Case) error {
		if !seen[c.ID] {
			seen[c.ID] = true
			ids = append(ids, c.ID)
		}
		return nil
	})
	if err != nil {
		return nil, inputError(err)
	}
	return ids, nil
}
