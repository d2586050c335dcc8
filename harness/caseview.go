package harness

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/suite"
)

// RefCaseViews is CaseViews of the run REF (LoadRef).
func RefCaseViews(ctx context.Context, st store.Reader, ref, id string) (*assay.Run, []report.CaseView, error) {
	run, path, err := LoadRef(ctx, st, ref)
	if err != nil {
		return nil, nil, err
	}
	views, err := CaseViews(ctx, st, run, path, id)
	return run, views, err
}

// errStop ends a case scan early.
var errStop = errors.New("stop")

// CaseViews returns every trial of the case id in the run as LoadRef
// returned it (from st, or the files beside path: RefCases), observations included, with the query and
// judgments read again from the suite the run recorded. When that suite
// cannot be read, or its fingerprint is no longer the run's, the views say
// so (CaseView.SuiteNote) rather than show a query the run did not ask.
// An id the run lacks is an error naming a few of the ids it has.
func CaseViews(ctx context.Context, st store.Reader, run *assay.Run, path, id string) ([]report.CaseView, error) {
	var views []report.CaseView
	var some []string
	lines := 0
	take := func(r assay.CaseResult) error {
		lines++
		if r.ID == id {
			views = append(views, report.CaseView{Result: r})
		} else if len(some) < 5 && (len(some) == 0 || some[len(some)-1] != r.ID) {
			some = append(some, r.ID)
		}
		return nil
	}
	err := RefCases(ctx, st, run, path, true, take)
	if errors.Is(err, fs.ErrNotExist) || err == nil && lines == 0 {
		// A run.json written alone (assay run --json) has no cases.jsonl beside
		// it (nor its copy in a store, any case line): its cases, without
		// observations, are all there is.
		err = nil
		for _, r := range run.Cases {
			take(r)
		}
	}
	if err != nil {
		return nil, err
	}
	if len(views) == 0 {
		return nil, fmt.Errorf("case %q: not in run %s (its cases include %s)", id, ShortID(run.RunID), strings.Join(some, ", "))
	}
	c, _, note := SuiteCase(run.Suite, id)
	for i := range views {
		views[i].SuiteNote = note
		if c != nil {
			views[i].Query, views[i].Judgments, views[i].Turns = c.Query, c.Judgments, c.Turns
		}
	}
	return views, nil
}

// SuiteCase reads the case id again from the suite file a run recorded
// (SuiteCases); nil, with the note, when it cannot.
func SuiteCase(ref assay.SuiteRef, id string) (*assay.Case, bool, string) {
	var c *assay.Case
	cs, note := SuiteCases(ref, func(x assay.Case) bool {
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

// SuiteCases calls fn with each case of the suite file a run recorded,
// until fn returns false, only when the file's fingerprint is still the
// run's; it returns the suite's default case sensitivity, or a note that
// says why the cases could not be read (CaseView.SuiteNote).
func SuiteCases(ref assay.SuiteRef, fn func(assay.Case) bool) (bool, string) {
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
