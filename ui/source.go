package ui

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
)

// source is every read of the store the pages make: runs are listed with
// store.Store.List, loaded with harness.LoadRef (what `assay runs show`
// loads), compared with harness.CompareRefs (what `assay compare` prints)
// and their cases read with harness.CaseViews and store.ReadCases. Nothing
// here writes.
//
// A loaded run (its case rows without observations, as run.json holds
// them) is kept in a small cache keyed by its run.json's path, size and
// modification time, so that paging and filtering the case table of a
// large run reads the file once; the cache holds at most cacheRuns runs.
type source struct {
	st store.Store

	mu    sync.Mutex
	runs  []*cachedRun // most recently used last
	heads map[string]*cachedHead
	// outs holds, per run.json, each case's outcome over its trials for
	// one metric (the history grid), so the grid does not load its runs
	// through the small run cache again on each request.
	outs map[outKey]map[string]outcome
}

type outKey struct {
	path string
	key  fileKey
	head string
}

// cacheRuns bounds the runs kept loaded.
const cacheRuns = 4

type fileKey struct {
	size  int64
	mtime time.Time
}

type cachedRun struct {
	path string
	key  fileKey
	run  *assay.Run
	// stopped: the run's summary was made from the cases it recorded
	// (harness.Summarized).
	stopped bool
	ready   chan struct{}
	err     error

	flakyOnce sync.Once
	flaky     map[string]bool
}

// flakyCases are the run's flaky cases (computed once).
func (c *cachedRun) flakyCases() map[string]bool {
	c.flakyOnce.Do(func() { c.flaky = flakyCases(c.run.Cases) })
	return c.flaky
}

type cachedHead struct {
	key fileKey
	run *assay.Run
}

func newSource(st store.Store) *source {
	return &source{st: st, heads: map[string]*cachedHead{}, outs: map[outKey]map[string]outcome{}}
}

func statKey(path string) fileKey {
	fi, err := os.Stat(path)
	if err != nil {
		return fileKey{}
	}
	return fileKey{fi.Size(), fi.ModTime()}
}

// list returns the runs of the store (of one suite when suite is set),
// newest first, at most limit (0: all).
func (s *source) list(ctx context.Context, suite string, limit int) ([]store.Entry, error) {
	if s.st == nil {
		return nil, nil
	}
	return s.st.List(ctx, store.Filter{Suite: suite, Limit: limit})
}

// resolve turns a REF into the path of its run.json, as every command does.
func (s *source) resolve(ctx context.Context, ref string) (string, error) {
	var l store.Lister
	if s.st != nil {
		l = s.st
	}
	return store.ResolveRef(ctx, l, ref)
}

// load returns the run REF with its case rows (no observations), and its
// run.json path; a stopped run gets the summary of the cases it recorded.
// The returned run is shared: callers must not change it.
func (s *source) load(ctx context.Context, ref string) (*cachedRun, error) {
	path, err := s.resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	key := statKey(path)
	s.mu.Lock()
	for i, c := range s.runs {
		if c.path == path && c.key == key {
			s.runs = append(append(s.runs[:i:i], s.runs[i+1:]...), c)
			s.mu.Unlock()
			<-c.ready
			return c, c.err
		}
	}
	c := &cachedRun{path: path, key: key, ready: make(chan struct{})}
	for i := 0; i < len(s.runs); i++ {
		if s.runs[i].path == path {
			s.runs = append(s.runs[:i], s.runs[i+1:]...)
			i--
		}
	}
	if len(s.runs) >= cacheRuns {
		s.runs = s.runs[1:]
	}
	s.runs = append(s.runs, c)
	s.mu.Unlock()
	var run *assay.Run
	run, _, c.err = harness.LoadRef(ctx, s.st, path)
	if c.err == nil {
		c.stopped = harness.Summarized(run)
		c.run = run
	} else {
		s.mu.Lock()
		for i, x := range s.runs {
			if x == c {
				s.runs = append(s.runs[:i], s.runs[i+1:]...)
				break
			}
		}
		s.mu.Unlock()
	}
	close(c.ready)
	return c, c.err
}

// peek is the first page of a run that is not loaded yet: its header
// (PeekRun, which holds the summary) and its first n case rows in
// run.json order (store.ReadRunCases, plus the other trials of the last
// case), while the whole run loads in the background for the pages that
// filter or page further. ok is false when the run is loaded already or
// the header has no summary (a stopped run, whose cases come from
// cases.jsonl): then load serves it.
func (s *source) peek(ctx context.Context, ref string, n int) (c *cachedRun, ok bool, err error) {
	path, err := s.resolve(ctx, ref)
	if err != nil {
		return nil, false, err
	}
	key := statKey(path)
	s.mu.Lock()
	loading := false
	for _, c := range s.runs {
		if c.path == path && c.key == key {
			select {
			case <-c.ready:
				s.mu.Unlock()
				return nil, false, nil
			default:
				loading = true
			}
		}
	}
	s.mu.Unlock()
	head, err := s.head(path)
	if err != nil {
		return nil, false, err
	}
	if head.Status == assay.StatusIncomplete && head.Summary.Cases == 0 {
		return nil, false, nil
	}
	if !loading {
		go s.load(context.Background(), path)
	}
	run := *head
	var last string
	err = store.ReadRunCases(path, func(r assay.CaseResult) error {
		if len(run.Cases) >= n && r.ID != last {
			return store.ErrStop
		}
		last = r.ID
		run.Cases = append(run.Cases, r)
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return &cachedRun{path: path, key: key, run: &run}, true, nil
}

// outcomes returns the outcome of each case of the run at path (status
// over its trials, the mean of metric head) and the case ids in run
// order, loading the run (harness.LoadRef) when they are not cached.
func (s *source) outcomes(ctx context.Context, path, head string) (map[string]outcome, error) {
	k := outKey{path, statKey(path), head}
	s.mu.Lock()
	m, ok := s.outs[k]
	s.mu.Unlock()
	if ok {
		return m, nil
	}
	run, _, err := harness.LoadRef(ctx, s.st, path)
	if err != nil {
		return nil, err
	}
	m = outcomes(run.Cases, head)
	s.mu.Lock()
	if len(s.outs) >= 64 {
		clear(s.outs)
	}
	s.outs[k] = m
	s.mu.Unlock()
	return m, nil
}

// head returns the header of the run.json at path (store.PeekRun: the
// summary, no cases), cached by size and modification time: the runs
// page's trend reads one per run.
func (s *source) head(path string) (*assay.Run, error) {
	key := statKey(path)
	s.mu.Lock()
	if h, ok := s.heads[path]; ok && h.key == key {
		s.mu.Unlock()
		return h.run, nil
	}
	s.mu.Unlock()
	run, err := store.PeekRun(path)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(s.heads) > 4096 {
		clear(s.heads)
	}
	s.heads[path] = &cachedHead{key: key, run: run}
	s.mu.Unlock()
	return run, nil
}

// caseViews returns every trial of case id of the run at path, whole
// (harness.CaseViews), and the case as the suite states it (nil, with a
// note, when the suite file is gone or changed).
func (s *source) caseViews(run *assay.Run, path, id string) ([]report.CaseView, *assay.Case, bool, error) {
	views, err := harness.CaseViews(context.Background(), s.st, run, path, id)
	if err != nil {
		return nil, nil, false, err
	}
	c, cs, _ := harness.SuiteCase(run.Suite, id)
	return views, c, cs, nil
}

// allCaseViews calls fn with the trials of every case of the run at path,
// observations included, in one pass over its cases.jsonl (for the static
// report), and returns the suite's cases by id.
func (s *source) allCaseViews(run *assay.Run, path string) (map[string][]assay.CaseResult, map[string]*assay.Case, bool, string, error) {
	byID := map[string][]assay.CaseResult{}
	err := store.ReadCases(filepath.Dir(path), func(r assay.CaseResult) error {
		byID[r.ID] = append(byID[r.ID], r)
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
		for _, r := range run.Cases {
			byID[r.ID] = append(byID[r.ID], r)
		}
	}
	if err != nil {
		return nil, nil, false, "", err
	}
	cases := map[string]*assay.Case{}
	cs, note := harness.SuiteCases(run.Suite, func(c assay.Case) bool {
		if _, ok := byID[c.ID]; ok {
			cases[c.ID] = &c
		}
		return true
	})
	return byID, cases, cs, note, nil
}

// compare is `assay compare BASE CAND`.
func (s *source) compare(ctx context.Context, base, cand string) (compare.Report, error) {
	return harness.CompareRefs(ctx, s.st, base, cand)
}
