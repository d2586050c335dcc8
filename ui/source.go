package ui

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
)

// Store is what the UI reads of a run store: it lists runs, resolves a
// REF, loads a run and reads its cases. A store.Store is one; the UI never
// writes. Its optional capabilities (store.RunFiler, store.HeadLoader) are
// used when the value has them.
type Store interface {
	List(ctx context.Context, f store.Filter) ([]store.Entry, error)
	Resolve(ctx context.Context, ref string) (string, error)
	Load(ctx context.Context, ref string) (*assay.Run, error)
	Cases(ctx context.Context, runID string, withObservations bool, fn func(assay.CaseResult) error) error
}

var _ Store = store.Store(nil)

// source is every read of the store the pages make, through Store
// only, so the pages are the same on every backend: runs are listed with
// Store.List, loaded with harness.LoadRef (what `assay runs show` loads),
// compared with harness.CompareRefs (what `assay compare` prints) and
// their cases read with harness.CaseViews and harness.RefCases. Nothing
// here writes.
//
// Caches are keyed by run id, status and finished_at (runKey), never by a
// path: a complete run never changes, and a run that finishes is loaded
// again. An incomplete run (still written, or stopped) is kept for
// incompleteTTL at most, so its pages catch up with the cases it records.
// A loaded run (its case rows without observations) is kept in a small
// cache, at most cacheRuns runs, so that paging and filtering the case
// table of a large run reads it once.
//
// Stores that keep files (store.RunFiler) have one fast path: a run's
// header is read with store.PeekRun and the first page of a run not yet
// loaded with store.ReadRunCases, without decoding all of run.json.
type source struct {
	st Store
	// strict: REFs come from a URL (the server): a run of st only
	// (uiRef), never a path; what ResolveEntry could not resolve is a
	// 404 or 400 page with its message.
	strict bool

	mu    sync.Mutex
	runs  []*cachedRun // most recently used last
	heads map[string]*cachedHead
	// outs holds, per run, each case's outcome over its trials for one
	// metric (the history grid), so the grid does not load its runs
	// through the small run cache again on each request.
	outs map[outKey]map[string]outcome
	// reports are the last comparisons (compareForms), most recent last.
	reports []cachedReport
	// cmps are the runs last compared, in compact form (compareForms),
	// most recently used last.
	cmps []*cmpRun
}

// runKey names one state of a run: its id, status and finished_at, and
// its run.json when there is one (a store with files, or a path REF).
type runKey struct {
	id       string
	status   assay.RunStatus
	finished time.Time
	path     string
}

// ref is the REF that loads the run again: its run.json when it has one
// (read with no index), else its id.
func (k runKey) ref() string {
	if k.path != "" {
		return k.path
	}
	return k.id
}

type outKey struct {
	run  runKey
	head string
}

// cacheRuns bounds the runs kept loaded.
const cacheRuns = 4

// incompleteTTL is how long an incomplete run stays cached.
const incompleteTTL = 2 * time.Second

type fileKey struct {
	size  int64
	mtime time.Time
}

type cachedRun struct {
	key  runKey
	at   time.Time
	path string // run.json; "" for a store without files
	run  *assay.Run
	// stopped: the run's summary was made from the cases it recorded
	// (harness.Summarized).
	stopped bool
	ready   chan struct{}
	err     error

	flakyOnce sync.Once
	flaky     map[string]bool
}

// fresh reports whether a cached state of key may still be served.
func fresh(k runKey, at time.Time) bool {
	return k.status == assay.StatusComplete || time.Since(at) < incompleteTTL
}

// flakyCases are the run's flaky cases (computed once).
func (c *cachedRun) flakyCases() map[string]bool {
	c.flakyOnce.Do(func() { c.flaky = flakyCases(c.run.Cases) })
	return c.flaky
}

type cachedHead struct {
	key  runKey
	file fileKey // of run.json, when read from it
	at   time.Time
	run  *assay.Run
}

func newSource(st Store) *source {
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

// runFile is the run.json of the run id when the store keeps files.
func (s *source) runFile(e store.Entry) string {
	if e.Path != "" {
		return e.Path
	}
	if f, ok := s.st.(store.RunFiler); ok {
		return f.RunFile(e.RunID)
	}
	return ""
}

func (s *source) entryKey(e store.Entry) runKey {
	return runKey{id: e.RunID, status: e.Status, finished: e.FinishedAt, path: s.runFile(e)}
}

// resolved holds the REFs one request resolved (withResolved), so that a
// page that reads its run in more than one way (the first rows, then the
// whole run) resolves its REF once.
type resolved struct {
	mu   sync.Mutex
	keys map[string]resolution
}

type resolution struct {
	key runKey
	err error
}

type resolvedKey struct{}

// withResolved is ctx for one request: resolve remembers in it what it
// resolved.
func withResolved(ctx context.Context) context.Context {
	return context.WithValue(ctx, resolvedKey{}, &resolved{keys: map[string]resolution{}})
}

// resolve turns a REF into the key of the run it names, as every command
// resolves it: a path REF from its run.json's header, any other from the
// store's index (store.ResolveEntry, which asks a store.PrefixLister for
// the runs a run id or prefix names rather than listing every run). In a
// request's context (withResolved) a REF is resolved once.
func (s *source) resolve(ctx context.Context, ref string) (runKey, error) {
	rs, _ := ctx.Value(resolvedKey{}).(*resolved)
	if rs == nil {
		return s.resolveRef(ctx, ref)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r, ok := rs.keys[ref]; ok {
		return r.key, r.err
	}
	key, err := s.resolveRef(ctx, ref)
	rs.keys[ref] = resolution{key, err}
	return key, err
}

func (s *source) resolveRef(ctx context.Context, ref string) (runKey, error) {
	if s.strict {
		if err := uiRef(ref); err != nil {
			return runKey{}, err
		}
		e, err := store.ResolveEntry(ctx, s.st, ref)
		if err != nil {
			return runKey{}, refError(err)
		}
		return s.entryKey(e), nil
	}
	if s.st == nil || store.IsPathRef(ref) {
		path, err := store.ResolvePath(strings.TrimSpace(ref))
		if err != nil {
			return runKey{}, err
		}
		h, err := s.fileHead(path)
		if err != nil {
			return runKey{}, err
		}
		return runKey{id: h.RunID, status: h.Status, finished: h.FinishedAt, path: path}, nil
	}
	e, err := store.ResolveEntry(ctx, s.st, ref)
	if err != nil {
		return runKey{}, err
	}
	return s.entryKey(e), nil
}

// load returns the run REF with its case rows (no observations), and its
// run.json path when it has one; a stopped run gets the summary of the
// cases it recorded. The returned run is shared: callers must not change
// it.
func (s *source) load(ctx context.Context, ref string) (*cachedRun, error) {
	key, err := s.resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	return s.loadKey(ctx, key)
}

func (s *source) loadKey(ctx context.Context, key runKey) (*cachedRun, error) {
	s.mu.Lock()
	for i, c := range s.runs {
		if c.key == key && fresh(key, c.at) {
			s.runs = append(append(s.runs[:i:i], s.runs[i+1:]...), c)
			s.mu.Unlock()
			<-c.ready
			return c, c.err
		}
	}
	c := &cachedRun{key: key, at: time.Now(), ready: make(chan struct{})}
	for i := 0; i < len(s.runs); i++ {
		if s.runs[i].key.id == key.id {
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
	run, c.path, c.err = harness.LoadRef(ctx, s.st, key.ref())
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

// peek is the first page of a run that is not loaded yet, for a run with
// a run.json (the fast path of stores with files): its header (PeekRun,
// which holds the summary) and its first n case rows in run.json order
// (store.ReadRunCases, plus the other trials of the last case), while the
// whole run loads in the background for the pages that filter or page
// further. ok is false when the run is loaded already, has no run.json
// (a store without files), or the header has no summary (a stopped run,
// whose cases come from cases.jsonl): then load serves it.
func (s *source) peek(ctx context.Context, ref string, n int) (c *cachedRun, ok bool, err error) {
	key, head, start, err := s.cold(ctx, ref)
	if start == nil || err != nil {
		return nil, false, err
	}
	start()
	path := key.path
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
	return &cachedRun{key: key, path: path, run: &run}, true, nil
}

// cold resolves ref for a page made without loading the run: its key
// and its header when it is a run with a run.json whose header has its
// summary and that is not loaded yet, and start, which loads it in the
// background (unless it is loading already). start is nil when load
// serves it.
func (s *source) cold(ctx context.Context, ref string) (key runKey, head *assay.Run, start func(), err error) {
	key, err = s.resolve(ctx, ref)
	if err != nil || key.path == "" {
		return key, nil, nil, err
	}
	s.mu.Lock()
	loading := false
	for _, c := range s.runs {
		if c.key == key && fresh(key, c.at) {
			select {
			case <-c.ready:
				s.mu.Unlock()
				return key, nil, nil, nil
			default:
				loading = true
			}
		}
	}
	s.mu.Unlock()
	head, err = s.fileHead(key.path)
	if err != nil {
		return key, nil, nil, err
	}
	if head.Status == assay.StatusIncomplete && head.Summary.Cases == 0 {
		return key, nil, nil, nil
	}
	return key, head, func() {
		if !loading {
			go s.loadKey(context.Background(), key)
		}
	}, nil
}

// outcomes returns the outcome of each case of the run e (status over its
// trials, the mean of metric head), loading the run (harness.LoadRef)
// when they are not cached.
func (s *source) outcomes(ctx context.Context, e store.Entry, head string) (map[string]outcome, error) {
	k := outKey{s.entryKey(e), head}
	s.mu.Lock()
	m, ok := s.outs[k]
	s.mu.Unlock()
	if ok && k.run.status == assay.StatusComplete {
		return m, nil
	}
	run, _, err := harness.LoadRef(ctx, s.st, k.run.ref())
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

// head returns the header of the listed run e (the summary, gates, git;
// no cases), cached by its key: the runs page reads one per run. It is
// read from run.json when the store keeps files (store.PeekRun), else
// with the store's store.HeadLoader when it has one, else loaded whole
// (Store.Load) and kept without its cases.
func (s *source) head(ctx context.Context, e store.Entry) (*assay.Run, error) {
	key := s.entryKey(e)
	if key.path != "" {
		return s.fileHead(key.path)
	}
	s.mu.Lock()
	if h, ok := s.heads[key.id]; ok && h.key == key && fresh(key, h.at) {
		s.mu.Unlock()
		return h.run, nil
	}
	s.mu.Unlock()
	var run *assay.Run
	var err error
	if hl, ok := s.st.(store.HeadLoader); ok {
		run, err = hl.LoadHead(ctx, key.id)
	} else if run, err = s.st.Load(ctx, key.id); err == nil {
		run.Cases = nil
	}
	if err != nil {
		return nil, err
	}
	s.putHead(key.id, &cachedHead{key: key, at: time.Now(), run: run})
	return run, nil
}

// fileHead is the header of the run.json at path (store.PeekRun), cached
// by its size and modification time.
func (s *source) fileHead(path string) (*assay.Run, error) {
	fk := statKey(path)
	s.mu.Lock()
	if h, ok := s.heads[path]; ok && h.file == fk {
		s.mu.Unlock()
		return h.run, nil
	}
	s.mu.Unlock()
	run, err := store.PeekRun(path)
	if err != nil {
		return nil, err
	}
	s.putHead(path, &cachedHead{file: fk, at: time.Now(), run: run})
	return run, nil
}

func (s *source) putHead(k string, h *cachedHead) {
	s.mu.Lock()
	if len(s.heads) > 4096 {
		clear(s.heads)
	}
	s.heads[k] = h
	s.mu.Unlock()
}

// caseRun is the run REF as a case page needs it: the run with its case
// rows when it is loaded already, else its header alone (its run.json's,
// cached by fileHead, or the store's store.HeadLoader), so that a case
// page of a large run not yet loaded reads the header and the case, not
// the whole run.
func (s *source) caseRun(ctx context.Context, ref string) (*cachedRun, error) {
	key, err := s.resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	for _, c := range s.runs {
		if c.key == key && fresh(key, c.at) {
			select {
			case <-c.ready:
				if c.err == nil {
					s.mu.Unlock()
					return c, nil
				}
			default:
			}
		}
	}
	s.mu.Unlock()
	var run *assay.Run
	switch _, hl := s.st.(store.HeadLoader); {
	case key.path != "":
		run, err = s.fileHead(key.path)
	case hl:
		run, err = s.head(ctx, store.Entry{RunID: key.id, Status: key.status, FinishedAt: key.finished})
	default:
		return s.loadKey(ctx, key)
	}
	if err != nil {
		return nil, err
	}
	if run.Status == assay.StatusIncomplete && run.Summary.Cases == 0 {
		// A stopped run: its header has no summary; load it (Summarized).
		return s.loadKey(ctx, key)
	}
	h := *run
	h.Cases = nil
	return &cachedRun{key: key, path: key.path, run: &h}, nil
}

// caseViews returns every trial of case id of the run (path as LoadRef
// returned it), whole, and the case as the suite states it (nil, with a
// note, when the suite file is gone or changed): harness.CaseDetail, which
// reads that case's lines alone when the run has a case index, and the
// suite file once. run may be a header (caseRun). A case the run lacks is
// a 404.
func (s *source) caseViews(c *cachedRun, id string) ([]report.CaseView, *assay.Case, bool, error) {
	run := c.run
	if run.Cases != nil && !slices.ContainsFunc(run.Cases, func(r assay.CaseResult) bool { return r.ID == id }) {
		return nil, nil, false, notFound("case %q: not in run %s", id, report.ShortID(run.RunID))
	}
	views, sc, cs, err := harness.CaseDetail(context.Background(), s.st, run, c.path, id)
	var nc *harness.NoCaseError
	if errors.As(err, &nc) {
		return nil, nil, false, notFound("case %q: not in run %s", id, report.ShortID(nc.RunID))
	}
	if err != nil && run.Cases == nil {
		// The case lines could not be read: a case the run's rows lack
		// is still the UI's 404, not that error.
		if full, lerr := s.loadKey(context.Background(), c.key); lerr == nil && !slices.ContainsFunc(full.run.Cases, func(r assay.CaseResult) bool { return r.ID == id }) {
			return nil, nil, false, notFound("case %q: not in run %s", id, report.ShortID(run.RunID))
		}
	}
	return views, sc, cs, err
}

// streamCases writes the case pages of the run c (casePage, one per case
// id, with its trials whole) and, when base is not nil, the diff pages of
// the cases in diffs (diffPage, both runs' trials), reading each run's
// case lines once (harness.RefCases) and holding only the cases whose
// trials are not all read yet: a case's page is written as soon as its
// last trial is read, so a large run is never held in memory whole. The
// base run's trials of the cases in diffs are kept in a temporary file in
// dir (removed at the end) and read back one case at a time. A run
// without case lines (a run.json written by --json alone) is written from
// its case rows, without observations. With only not nil, the pages of
// only those cases are made, and only their observations (and the base's
// of the cases in diffs) are decoded from the case lines.
func (s *source) streamCases(ctx context.Context, dir string, c, base *cachedRun, diffs, only map[string]bool,
	casePage func(id string, views []report.CaseView, sc *assay.Case, cs bool) error,
	diffPage func(id string, bv []report.CaseView, bs *assay.Case, bcs bool, cv []report.CaseView, cs *assay.Case, ccs bool) error) error {
	var spool *caseSpool
	var bcases map[string]*assay.Case
	var bcs bool
	var bnote string
	if base != nil && len(diffs) > 0 {
		var err error
		if spool, err = newCaseSpool(dir); err != nil {
			return err
		}
		defer spool.close()
		err = eachCaseLineOf(ctx, s.st, base.run, base.path, diffs, func(r assay.CaseResult) error {
			if !diffs[r.ID] {
				return nil
			}
			return spool.add(r)
		})
		if err != nil {
			return err
		}
		bcases, bcs, bnote = suiteCasesOf(ctx, s.st, base, diffs)
	}
	want := map[string]int{}
	for _, r := range c.run.Cases {
		if only == nil || only[r.ID] {
			want[r.ID]++
		}
	}
	cases, cs, note := suiteCasesOf(ctx, s.st, c, want)
	pending := map[string][]assay.CaseResult{}
	done := map[string]bool{}
	finish := func(id string, results []assay.CaseResult) error {
		done[id] = true
		views := caseViewsOf(results, cases[id], note)
		if err := casePage(id, views, cases[id], cs); err != nil {
			return err
		}
		if spool == nil || !diffs[id] {
			return nil
		}
		bres, err := spool.get(id)
		if err != nil {
			return err
		}
		return diffPage(id, caseViewsOf(bres, bcases[id], bnote), bcases[id], bcs, views, cases[id], cs)
	}
	var wantObs map[string]int
	if only != nil {
		wantObs = want
	}
	err := eachCaseLineOf(ctx, s.st, c.run, c.path, wantObs, func(r assay.CaseResult) error {
		if done[r.ID] || want[r.ID] == 0 {
			return nil
		}
		p := append(pending[r.ID], r)
		if len(p) < want[r.ID] {
			pending[r.ID] = p
			return nil
		}
		delete(pending, r.ID)
		return finish(r.ID, p)
	})
	if err != nil {
		return err
	}
	// The cases whose trials were not all recorded in the case lines (a
	// stopped run), in the run's order.
	for _, id := range caseOrder(c.run.Cases) {
		if !done[id] && want[id] > 0 {
			if err := finish(id, pending[id]); err != nil {
				return err
			}
		}
	}
	if spool == nil {
		return nil
	}
	// Changed cases the run does not have (only the base does).
	for _, id := range slices.Sorted(maps.Keys(diffs)) {
		if done[id] || !diffs[id] {
			continue
		}
		bres, err := spool.get(id)
		if err != nil {
			return err
		}
		if err := diffPage(id, caseViewsOf(bres, bcases[id], bnote), bcases[id], bcs, nil, nil, cs); err != nil {
			return err
		}
	}
	return nil
}

// eachCaseLineOf calls fn with each case trial of the run, observations
// included (harness.RefCases), or when want is not nil and the run's lines
// are files, the observations of only the cases in want
// (store.ReadCasesOf); a run with no case lines (a run.json written by
// --json alone) gives its case rows, without observations.
func eachCaseLineOf[V any](ctx context.Context, st Store, run *assay.Run, path string, want map[string]V, fn func(assay.CaseResult) error) error {
	lines := 0
	counted := func(r assay.CaseResult) error {
		lines++
		return fn(r)
	}
	var err error
	if want != nil && path != "" {
		err = store.ReadCasesOf(filepath.Dir(path), func(id string) bool { _, ok := want[id]; return ok }, counted)
	} else {
		err = harness.RefCases(ctx, st, run, path, true, counted)
	}
	if errors.Is(err, fs.ErrNotExist) && lines == 0 || err == nil && lines == 0 {
		for _, r := range run.Cases {
			if err := fn(r); err != nil {
				return err
			}
		}
		return nil
	}
	return err
}

// suiteCasesOf reads the cases of the run c as it asked them whose ids
// are in ids: those it kept, else its suite file's
// (harness.RunSuiteCases).
func suiteCasesOf[V any](ctx context.Context, st Store, c *cachedRun, ids map[string]V) (map[string]*assay.Case, bool, string) {
	cases := map[string]*assay.Case{}
	cs, note := harness.RunSuiteCases(ctx, st, c.run, c.path, func(c assay.Case) bool {
		if _, ok := ids[c.ID]; ok {
			cases[c.ID] = &c
		}
		return true
	})
	return cases, cs, note
}

// caseSpool keeps case trials in a temporary file, one JSON line each,
// with their offsets in memory, so a case's trials are read back without
// holding them all.
type caseSpool struct {
	f   *os.File
	w   *bufio.Writer
	off int64
	at  map[string][][2]int64 // id: offset and length of each trial
}

func newCaseSpool(dir string) (*caseSpool, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, ".assay-report-*.jsonl")
	if err != nil {
		return nil, err
	}
	return &caseSpool{f: f, w: bufio.NewWriterSize(f, 1<<16), at: map[string][][2]int64{}}, nil
}

func (s *caseSpool) add(r assay.CaseResult) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	s.at[r.ID] = append(s.at[r.ID], [2]int64{s.off, int64(len(b))})
	s.off += int64(len(b))
	return nil
}

// get returns the trials of case id (none when it has none).
func (s *caseSpool) get(id string) ([]assay.CaseResult, error) {
	if err := s.w.Flush(); err != nil {
		return nil, err
	}
	var out []assay.CaseResult
	for _, a := range s.at[id] {
		b := make([]byte, a[1])
		if _, err := s.f.ReadAt(b, a[0]); err != nil {
			return nil, err
		}
		var r assay.CaseResult
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (s *caseSpool) close() {
	s.f.Close()
	os.Remove(s.f.Name())
}

// keptReports bounds the comparisons kept.
const keptReports = 2

type cachedReport struct {
	key [2]runKey
	at  time.Time
	rep compare.Report
}

// maxRefLen bounds a REF of the UI: a run id is 36 characters.
const maxRefLen = 36

// uiRef checks a REF taken from a URL of the UI. It names a run of the
// store only: latest, latest~N, or a run id or a prefix of one (hex
// digits and dashes). Anything else (a path: any /, \, %2F or .., a
// label, a file name) is a 404 that says what a REF is and nothing about
// files: paths stay a feature of the CLI, which reads the files of the
// user who runs it, while the UI answers whoever reaches its port.
func uiRef(ref string) error {
	if ref == "latest" {
		return nil
	}
	if n, ok := strings.CutPrefix(ref, "latest~"); ok && n != "" && len(n) <= 6 && strings.Trim(n, "0123456789") == "" {
		return nil
	}
	if ref != "" && len(ref) <= maxRefLen && strings.Trim(ref, "0123456789abcdefABCDEF-") == "" {
		return nil
	}
	return notFound("not a run of this store: a run is named by its id (or a unique prefix of it), latest or latest~N")
}

// refError is the page for a REF that ResolveEntry could not resolve: its
// own message (a REF, run ids, a suite name; no path) when it names no
// run or several, else the error as it is (a store that failed).
func refError(err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return &httpError{http.StatusNotFound, err.Error()}
	case errors.Is(err, store.ErrAmbiguous):
		return &httpError{http.StatusBadRequest, err.Error()}
	}
	return err
}
