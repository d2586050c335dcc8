package harness

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/suite"
)

// RefCaseViews is CaseDetail's views of the run REF, read by its header
// (loadRefHead) and the case's lines: a run's other cases are not read
// when it has a case index, nor is its record decoded whole.
func RefCaseViews(ctx context.Context, st store.Reader, ref, id string) (*assay.Run, []report.CaseView, error) {
	run, path, err := loadRefHead(ctx, st, ref)
	if err != nil {
		return nil, nil, err
	}
	views, _, _, err := CaseDetail(ctx, st, run, path, id)
	return run, views, err
}

// loadRefHead is LoadRef without the run's cases where it can be read so
// (run.Cases nil): the header of its run.json (store.PeekRun) when it has
// one, else the store's store.HeadLoader; else the run whole, as LoadRef.
func loadRefHead(ctx context.Context, st store.Reader, ref string) (*assay.Run, string, error) {
	var path string
	if st == nil || store.IsPathRef(ref) {
		p, err := store.ResolveRef(ctx, nil, ref)
		if err != nil {
			return nil, "", err
		}
		path = p
	} else if _, ok := st.(store.RunFiler); ok {
		id, err := st.Resolve(ctx, ref)
		if err != nil {
			return nil, "", err
		}
		path = runFile(st, id)
	} else if hl, ok := st.(store.HeadLoader); ok {
		id, err := st.Resolve(ctx, ref)
		if err != nil {
			return nil, "", err
		}
		run, err := hl.LoadHead(ctx, id)
		return run, "", err
	} else {
		return LoadRef(ctx, st, ref)
	}
	run, err := store.PeekRun(path)
	if err != nil {
		return nil, "", err
	}
	return run, path, nil
}

// NoCaseError is the error of CaseViews and CaseDetail for a case id the
// run lacks; it names a few of the ids it has.
type NoCaseError struct {
	ID, RunID string
	Some      []string
}

func (e *NoCaseError) Error() string {
	return fmt.Sprintf("case %q: not in run %s (its cases include %s)", e.ID, report.ShortID(e.RunID), strings.Join(e.Some, ", "))
}

// errStop ends a case scan early.
var errStop = errors.New("stop")

// CaseDetail returns every trial of the case id in the run as LoadRef
// returned it (from st, or the files beside path: refCase, which reads
// that case alone where the run has a case index), observations included,
// with the query and judgments as the run keeps them (a run of a files
// store keeps its suite's cases: store.ReadSuiteCase), else read again
// from the suite the run recorded. When that suite cannot be read, or its fingerprint is no
// longer the run's, the views say so (CaseView.SuiteNote) rather than show
// a query the run did not ask. An id the run lacks is a *NoCaseError.
// run may be a header without cases (loadRefHead): it is loaded whole
// only when the case has no lines.
//
// It also returns the case as the suite states it (nil when it could not
// be read: the views' SuiteNote says why) and the suite's default case
// sensitivity, the suite file read once.
func CaseDetail(ctx context.Context, st store.Reader, run *assay.Run, path, id string) ([]report.CaseView, *assay.Case, bool, error) {
	var views []report.CaseView
	err := refCase(ctx, st, run, path, id, true, func(r assay.CaseResult) error {
		views = append(views, report.CaseView{Result: r})
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	if err != nil {
		return nil, nil, false, err
	}
	if len(views) == 0 && run.Cases == nil {
		// A header (loadRefHead): the run's case rows are wanted.
		var full *assay.Run
		if path != "" {
			full, err = store.LoadRun(path)
		} else if st != nil {
			full, err = st.Load(ctx, run.RunID)
		}
		if err != nil {
			return nil, nil, false, err
		}
		if full != nil {
			run = full
		}
	}
	if len(views) == 0 {
		// A run.json written alone (assay run --json) has no cases.jsonl
		// beside it (nor its copy in a store, any case line): its cases,
		// without observations, are all there is.
		for _, r := range run.Cases {
			if r.ID == id {
				views = append(views, report.CaseView{Result: r})
			}
		}
	}
	if len(views) == 0 {
		var some []string
		for _, r := range run.Cases {
			if len(some) == 5 {
				break
			}
			if len(some) == 0 || some[len(some)-1] != r.ID {
				some = append(some, r.ID)
			}
		}
		return nil, nil, false, &NoCaseError{ID: id, RunID: run.RunID, Some: some}
	}
	c, cs, note := runSuiteCase(ctx, st, run, path, id)
	for i := range views {
		views[i].SuiteNote = note
		if c != nil {
			views[i].Query, views[i].Judgments, views[i].Turns = c.Query, c.Judgments, c.Turns
		}
	}
	return views, c, cs, nil
}

// runSuiteCase is the case id as the run asked it: kept with the run
// when it was (one read, no suite file: store.ReadSuiteCase of the files
// beside path, else st's store.SuiteCaseReader), else read again from the
// suite file (SuiteCase).
func runSuiteCase(ctx context.Context, st store.Reader, run *assay.Run, path, id string) (*assay.Case, bool, string) {
	var c *assay.Case
	if path != "" {
		c, _ = store.ReadSuiteCase(filepath.Dir(path), id)
	} else if sr, ok := st.(store.SuiteCaseReader); ok {
		c, _ = sr.SuiteCase(ctx, run.RunID, id)
	}
	if c != nil {
		cs := false
		if c.Expect.CaseSensitive != nil {
			cs = *c.Expect.CaseSensitive
		}
		return c, cs, ""
	}
	return suiteCase(run.Suite, id)
}

// RunSuiteCases calls fn with each case of the run as the run asked it,
// until fn returns false: the cases the run kept (store.ReadSuiteCases of
// the files beside path, else st's store.SuiteCaseReader), so no suite
// file is needed; for a run that kept none (written before runs kept
// them), the cases of the suite file it recorded (suiteCases), with what
// suiteCases returns. Each case a run kept states its own case
// sensitivity (Expect.CaseSensitive).
func RunSuiteCases(ctx context.Context, st store.Reader, run *assay.Run, path string, fn func(assay.Case) bool) (bool, string) {
	kept := 0
	each := func(c assay.Case) error {
		kept++
		if !fn(c) {
			return errStop
		}
		return nil
	}
	err := keptSuiteCases(ctx, st, run, path, each)
	if kept == 0 {
		return suiteCases(run.Suite, fn)
	}
	if err != nil && !errors.Is(err, errStop) {
		return false, "the cases kept with run " + report.ShortID(run.RunID) + " are not readable: " + err.Error()
	}
	return false, ""
}

// keptSuiteCases calls fn with each case the run kept as its suite stated
// it (store.ReadSuiteCases of the files beside path, else st's
// store.SuiteCaseReader); fn never when it kept none.
func keptSuiteCases(ctx context.Context, st store.Reader, run *assay.Run, path string, fn func(assay.Case) error) error {
	if path != "" {
		return store.ReadSuiteCases(filepath.Dir(path), fn)
	}
	if sr, ok := st.(store.SuiteCaseReader); ok {
		return sr.SuiteCases(ctx, run.RunID, fn)
	}
	return nil
}

// suiteCase reads the case id again from the suite file a run recorded
// (suiteCases); nil, with the note, when it cannot.
func suiteCase(ref assay.SuiteRef, id string) (*assay.Case, bool, string) {
	var c *assay.Case
	cs, note := suiteCases(ref, func(x assay.Case) bool {
		if x.ID == id {
			c = &x
			return false
		}
		return true
	})
	if c == nil && note == "" {
		note = "suite " + ref.Path + " has no case " + id
	}
	return c, cs, note
}

// suiteCases calls fn with each case of the suite file a run recorded,
// until fn returns false, only when the file's fingerprint is still the
// run's; it returns the suite's default case sensitivity, or a note that
// says why the cases could not be read (CaseView.SuiteNote).
func suiteCases(ref assay.SuiteRef, fn func(assay.Case) bool) (bool, string) {
	if ref.Path == "" {
		return false, "the run does not record its suite file"
	}
	st, err := suite.Stream(ref.Path, suite.LoadOptions{})
	if err != nil {
		return false, "suite " + ref.Path + " not readable: " + err.Error()
	}
	if st.Fingerprint != ref.Fingerprint {
		return false, "suite " + ref.Path + " changed since the run"
	}
	err = st.Cases(func(x assay.Case) error {
		if !fn(x) {
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return false, "suite " + ref.Path + " not readable: " + err.Error()
	}
	return st.Suite.Defaults.CaseSensitive, ""
}
