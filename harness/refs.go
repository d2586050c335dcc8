package harness

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/runner"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/suite"
)

// LoadRef resolves a run REF (store.ResolveRef; st may be nil when ref
// is a path) and loads the run (st.Load for a REF that is not a path),
// returning it with its run.json path: "" for a run of a store without
// files (read its cases with RefCases). A stopped run records no summary:
// it gets one of the cases it recorded.
func LoadRef(ctx context.Context, st store.Reader, ref string) (*assay.Run, string, error) {
	if st == nil || store.IsPathRef(ref) {
		path, err := store.ResolveRef(ctx, nil, ref)
		if err != nil {
			return nil, "", err
		}
		run, err := store.LoadRun(path)
		if err != nil {
			return nil, "", err
		}
		return run, path, nil
	}
	run, err := st.Load(ctx, ref)
	if err != nil {
		return nil, "", err
	}
	return run, runFile(st, run.RunID), nil
}

// LoadBaseline is LoadRef for a baseline compared with a run of suite
// (its name; "" for none at hand): a latest REF (latest, latest~N,
// latest@BRANCH, latest{K=V,...}) names a run of that suite
// (store.ResolveEntryIn), and a baseline of another suite, named any
// other way, is refused (otherSuite).
func LoadBaseline(ctx context.Context, st store.Reader, ref, suite string) (*assay.Run, string, error) {
	load := ref
	if st != nil && !store.IsPathRef(ref) {
		e, err := store.ResolveEntryIn(ctx, st, ref, suite)
		if err != nil {
			return nil, "", inputError(err)
		}
		load = e.RunID
	}
	run, path, err := LoadRef(ctx, st, load)
	if err != nil {
		return nil, "", inputError(err)
	}
	if suite != "" && run.Suite.Name != suite {
		return nil, "", otherSuite(ref, run.RunID, run.Suite.Name, suite)
	}
	return run, path, nil
}

// otherSuite is the error of a baseline (named ref) of another suite than
// the run it would be compared with, of suite: every command that takes a
// baseline refuses it with this one message (a Usage error), since the
// runs of two suites share no case to pair.
func otherSuite(ref, baseID, baseSuite, suite string) error {
	return usageError(fmt.Sprintf("give a baseline run of suite %q (latest, latest@BRANCH and latest{KEY=VALUE} name runs of the suite at hand)", suite),
		"baseline %s (run %s) is a run of suite %q, not of suite %q: runs of two suites share no case to compare", ref, report.ShortID(baseID), baseSuite, suite)
}

// runFile is the run.json of a stored run, "" when the store keeps no
// files (store.RunFiler).
func runFile(st store.Reader, id string) string {
	if f, ok := st.(store.RunFiler); ok {
		return f.RunFile(id)
	}
	return ""
}

// RefCases calls fn for each recorded case trial of run as LoadRef
// returned it: read from the files beside path when it has one
// (store.ReadCases, or store.ReadResults without observations), else from
// the store (Store.Cases).
func RefCases(ctx context.Context, st store.Reader, run *assay.Run, path string, withObservations bool, fn func(assay.CaseResult) error) error {
	if path != "" {
		dir := filepath.Dir(path)
		if withObservations {
			return store.ReadCases(dir, fn)
		}
		return store.ReadResults(dir, fn)
	}
	if st == nil {
		return fmt.Errorf("run %s: no store to read its cases from", report.ShortID(run.RunID))
	}
	return st.Cases(ctx, run.RunID, withObservations, fn)
}

// refCase calls fn for each recorded trial of the case id of run as
// LoadRef returned it, reading that case alone where the run allows it:
// from the files beside path (store.ReadCase: the blocks of
// cases.jsonl.gz that its case index names; a run without one is
// streamed), else with the store's store.CaseReader, else from every
// line the store has (Store.Cases), filtered. A run without the case
// calls fn never.
func refCase(ctx context.Context, st store.Reader, run *assay.Run, path, id string, withObservations bool, fn func(assay.CaseResult) error) error {
	if path != "" {
		return store.ReadCase(filepath.Dir(path), id, withObservations, fn)
	}
	if cr, ok := st.(store.CaseReader); ok {
		return cr.CaseTrials(ctx, run.RunID, id, withObservations, fn)
	}
	return RefCases(ctx, st, run, path, withObservations, func(r assay.CaseResult) error {
		if r.ID != id {
			return nil
		}
		return fn(r)
	})
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
