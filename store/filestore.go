package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/atomicfile"
)

// The run files of a store rooted at ROOT are ROOT/runs/<run_id>/. The
// functions below are what any store that keeps them does with them: the
// files store (Files) alone, and store/sqlite beside its index.

// BeginRun is Begin of a store that keeps its runs as files under root:
// it checks the run id, creates root/runs/<run_id>/ and writes run.json
// (status "incomplete"). begin, when set, records the run beside its
// files at once (an index row); its error leaves no run behind and is
// returned as it is. finish, when set, is called by Finish once the files
// are written (the index row updated); its error is Finish's, with the
// run saved.
func BeginRun(root string, run *assay.Run, begin, finish func(*assay.Run) error) (RunWriter, error) {
	return BeginIndexed(root, run, funcIndexer{begin, finish})
}

// Indexer is an index kept beside a run's files (store/sqlite's), told of
// the run as it is written: BeginIndexed calls Begin once the run's files
// exist, the writer calls Add with each case it appends and Finish (or
// Release) at its end. The writer calls them one at a time.
type Indexer interface {
	// Begin records the run (its status incomplete). Its error leaves no
	// run behind and is BeginIndexed's.
	Begin(run *assay.Run) error
	// Add is given each case once its line is written, in the order
	// appended. It reports nothing: an index that could not keep a case
	// says so by its Finish, which is then given no appended cases.
	Add(r assay.CaseResult)
	// Finish records the finished run once its files are written. When
	// appended is true the run's cases are exactly those given to Add, in
	// order (the run carries the writer's CaseDocuments), and the index
	// need not read them again; otherwise it reads them through
	// run.EachCase. Its error is the writer's Finish's, with the run saved.
	Finish(run *assay.Run, appended bool) error
	// Release ends the run without finishing it (Releaser).
	Release() error
}

// funcIndexer is BeginRun's begin and finish as an Indexer that keeps
// nothing of the cases appended.
type funcIndexer struct{ begin, finish func(*assay.Run) error }

func (f funcIndexer) Begin(run *assay.Run) error {
	if f.begin == nil {
		return nil
	}
	return f.begin(run)
}

func (funcIndexer) Add(assay.CaseResult) {}

func (f funcIndexer) Finish(run *assay.Run, _ bool) error {
	if f.finish == nil {
		return nil
	}
	return f.finish(run)
}

func (funcIndexer) Release() error { return nil }

// BeginIndexed is BeginRun with an index told of every case as it is
// appended (idx, which may be nil).
func BeginIndexed(root string, run *assay.Run, idx Indexer) (RunWriter, error) {
	Started(run)
	if !ValidRunID(run.RunID) {
		return nil, fmt.Errorf("run id %q is not a valid directory name", run.RunID)
	}
	dir := filepath.Join(root, "runs", run.RunID)
	w, err := beginFiles(dir, run)
	if err != nil {
		return nil, explain(root, fmt.Errorf("store %s: %w", root, err))
	}
	if idx != nil {
		if err := idx.Begin(run); err != nil {
			// Nothing was recorded yet: leave no run behind that the
			// index does not know (a Ctrl-C before the first case).
			w.cases.Close()
			w.docs.close()
			w.lock.Close()
			os.RemoveAll(dir)
			return nil, err
		}
	}
	w.index = idx
	return w, nil
}

// existingRunDir is the directory of the run runID under root; an invalid
// id or a run the store lacks wraps ErrNotFound.
func existingRunDir(root, runID string) (string, error) {
	if !ValidRunID(runID) {
		return "", fmt.Errorf("run id %q: %w", runID, ErrNotFound)
	}
	dir := filepath.Join(root, "runs", runID)
	if _, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("run %s: not in the store %s: %w", runID, root, ErrNotFound)
	}
	return dir, nil
}

// RunCases calls fn for each case line of the run runID under root:
// ReadCases (withObservations) or ReadResults of its directory; a run
// directory without a cases file has none. An unknown run wraps
// ErrNotFound.
func RunCases(ctx context.Context, root, runID string, withObservations bool, fn func(assay.CaseResult) error) error {
	dir, err := existingRunDir(root, runID)
	if err != nil {
		return err
	}
	each := func(r assay.CaseResult) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fn(r)
	}
	read := ReadResults
	if withObservations {
		read = ReadCases
	}
	if err := read(dir, each); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil // a run directory with run.json alone: no case lines
}

// RemoveRun deletes the run runID under root. A run whose directory a
// live writer has locked is not deleted: the error wraps ErrInProgress.
// unindex, when set, drops the run's index rows first (so a run is never
// listed without its files) and says whether there were any; its error
// is returned as it is. An id with neither rows nor a directory wraps
// ErrNotFound. The directory is renamed aside in one step and then
// removed, so a RemoveRun killed half-way leaves the whole run or nothing
// (RunDirs removes what it left).
func RemoveRun(root, runID string, unindex func() (bool, error)) error {
	if !ValidRunID(runID) {
		return fmt.Errorf("run id %q: %w", runID, ErrNotFound)
	}
	dir := filepath.Join(root, "runs", runID)
	if lock, err := lockRunDir(dir); err == nil {
		defer lock.Close()
	} else if errors.Is(err, ErrInProgress) {
		return fmt.Errorf("run %s: %w", runID, err)
	}
	indexed := false
	if unindex != nil {
		var err error
		if indexed, err = unindex(); err != nil {
			return err
		}
	}
	if _, serr := os.Stat(dir); serr != nil {
		if !indexed {
			return fmt.Errorf("run %s: not in the store %s: %w", runID, root, ErrNotFound)
		}
		return nil
	}
	gone := filepath.Join(root, "runs", deletingPrefix+runID)
	if err := os.Rename(dir, gone); err != nil {
		return explain(root, fmt.Errorf("store %s: %w", root, err))
	}
	atomicfile.SyncDir(filepath.Dir(dir))
	if err := os.RemoveAll(gone); err != nil {
		return explain(root, fmt.Errorf("store %s: %w", root, err))
	}
	return nil
}

// RunInProgress reports whether a live writer holds the lock of the
// directory of the run runID under root.
func RunInProgress(root, runID string) bool {
	if !ValidRunID(runID) {
		return false
	}
	lock, err := lockRunDir(filepath.Join(root, "runs", runID))
	if err == nil {
		lock.Close()
	}
	return errors.Is(err, ErrInProgress)
}

// RunDirs returns the run directories under root by run id. A directory
// a killed RemoveRun left is not listed; with clean it is removed.
func RunDirs(root string, clean bool) (map[string]bool, error) {
	ents, err := os.ReadDir(filepath.Join(root, "runs"))
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", root, err)
	}
	out := map[string]bool{}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if strings.HasPrefix(e.Name(), deletingPrefix) {
			if clean {
				os.RemoveAll(filepath.Join(root, "runs", e.Name()))
			}
			continue
		}
		out[e.Name()] = true
	}
	return out, nil
}

// Files is the store of the run files alone, with no index and no
// database: List reads the header of each run's run.json (PeekRun), so it
// costs a read per run where an index costs a query; everything else is
// what a store with an index does with the same files, which either can
// open. OpenOptions.Directory nil opens a directory as one.
type Files struct {
	root     string
	readOnly bool
	warnings []string
}

var (
	_ Store            = (*Files)(nil)
	_ RunFiler         = (*Files)(nil)
	_ ProgressReporter = (*Files)(nil)
	_ CaseReader       = (*Files)(nil)
	_ PrefixLister     = (*Files)(nil)
)

// OpenFiles opens (creating dir/runs/ when needed) the files store rooted
// at dir (".assay" when empty), and removes what killed writers left
// (temporary files no one holds, a half-deleted run). With o.ReadOnly, or
// o.ForReading on a store this user cannot write, it creates and removes
// nothing, and Begin and Delete fail; a directory without a runs
// directory is then refused.
func OpenFiles(dir string, o OpenOptions) (*Files, error) {
	if dir == "" {
		dir = ".assay"
	}
	s := &Files{root: dir, readOnly: o.ReadOnly}
	if !s.readOnly {
		if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
			if !o.ForReading || !NotWritable(dir) {
				return nil, explain(dir, fmt.Errorf("store %s: %w", dir, err))
			}
			s.readOnly = true
		} else if o.ForReading && NotWritable(dir) {
			s.readOnly = true
		}
	}
	ids, err := RunDirs(dir, !s.readOnly)
	if err != nil {
		if s.readOnly {
			return nil, fmt.Errorf("store %s: read-only, and it has no runs directory", dir)
		}
		return nil, err
	}
	for id := range ids {
		file := filepath.Join(dir, "runs", id, RunFile)
		if !s.readOnly {
			SweepTemp(filepath.Dir(file))
		}
		if _, err := PeekRun(file); err != nil {
			if _, serr := os.Stat(file); serr == nil {
				s.warnings = append(s.warnings, fmt.Sprintf("runs/%s is not listed: %v", id, err))
			}
		}
	}
	slices.Sort(s.warnings)
	return s, nil
}

// Root is the store's directory.
func (s *Files) Root() string { return s.root }

// ReadOnly reports whether the store was opened read-only.
func (s *Files) ReadOnly() bool { return s.readOnly }

// Warnings implements Store: the run directories whose run.json does not
// read when the store was opened.
func (s *Files) Warnings() []string { return s.warnings }

// Close implements Store; a files store holds nothing open.
func (s *Files) Close() error { return nil }

// Begin implements Store (BeginRun).
func (s *Files) Begin(_ context.Context, run *assay.Run) (RunWriter, error) {
	if s.readOnly {
		return nil, fmt.Errorf("store %s is read-only: it cannot record a run", s.root)
	}
	return BeginRun(s.root, run, nil, nil)
}

// heads are the headers of the runs f selects, newest first; with a
// prefix, of the runs whose id starts with it only (the others' headers
// are not read).
func (s *Files) heads(f Filter, prefix string) ([]Entry, []*assay.Run, error) {
	ids, err := RunDirs(s.root, false)
	if err != nil {
		return nil, nil, err
	}
	type head struct {
		e   Entry
		run *assay.Run
	}
	var hs []head
	for id := range ids {
		if !strings.HasPrefix(id, prefix) {
			continue
		}
		file := filepath.Join(s.root, "runs", id, RunFile)
		run, err := PeekRun(file)
		if err != nil || run.RunID != id {
			continue // a run being begun, or damaged (Warnings)
		}
		e := entryOf(run, file)
		switch {
		case f.Suite != "" && e.Suite != IndexText(f.Suite),
			f.Status != "" && e.Status != f.Status,
			f.ShardGroup != "" && (e.Shard == nil || e.Shard.Group != IndexText(f.ShardGroup)),
			f.NoShards && e.Shard != nil,
			!HasLabels(e.Labels, f.Labels):
			continue
		}
		hs = append(hs, head{e, run})
	}
	slices.SortFunc(hs, func(a, b head) int {
		if c := b.e.StartedAt.Compare(a.e.StartedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.e.RunID, a.e.RunID)
	})
	if f.Limit > 0 && len(hs) > f.Limit {
		hs = hs[:f.Limit]
	}
	es, runs := make([]Entry, len(hs)), make([]*assay.Run, len(hs))
	for i, h := range hs {
		es[i], runs[i] = h.e, h.run
	}
	return es, runs, nil
}

// entryOf is the listing of a run read from its file, with the text an
// index would keep (IndexText).
func entryOf(run *assay.Run, file string) Entry {
	head, val := Headline(run)
	e := Entry{RunID: run.RunID, Status: run.Status, Suite: IndexText(run.Suite.Name), Fingerprint: IndexText(run.Suite.Fingerprint),
		Target: IndexText(run.Target.Kind), StartedAt: run.StartedAt, FinishedAt: run.FinishedAt, Cases: run.Summary.Cases,
		PassRate: run.Summary.PassRate, Headline: IndexText(head), HeadlineValue: val, Path: file}
	if run.Target.Spec != "" {
		e.Target = IndexText(run.Target.Spec)
	}
	if sh := run.Shard; sh != nil && sh.Count > 0 {
		e.Shard = &assay.Shard{Index: sh.Index, Count: sh.Count, Group: IndexText(sh.Group)}
	}
	e.Labels = IndexLabels(run.Labels)
	return e
}

// List implements Store.
func (s *Files) List(_ context.Context, f Filter) ([]Entry, error) {
	es, _, err := s.heads(f, "")
	return es, err
}

// ListPrefix implements PrefixLister: it reads the headers of the run
// directories whose name starts with prefix, not every run's.
func (s *Files) ListPrefix(_ context.Context, prefix string) ([]Entry, error) {
	es, _, err := s.heads(Filter{}, prefix)
	return es, err
}

// Resolve implements Store; see ResolveRef for the rules.
func (s *Files) Resolve(ctx context.Context, ref string) (string, error) {
	return ResolveID(ctx, s, ref)
}

// Load implements Store: ResolveRef, then LoadRun.
func (s *Files) Load(ctx context.Context, ref string) (*assay.Run, error) {
	path, err := ResolveRef(ctx, s, ref)
	if err != nil {
		return nil, err
	}
	return LoadRun(path)
}

// RunFile implements RunFiler: the run.json of run id in this store.
func (s *Files) RunFile(runID string) string {
	return filepath.Join(s.root, "runs", runID, RunFile)
}

// Cases implements Store (RunCases).
func (s *Files) Cases(ctx context.Context, runID string, withObservations bool, fn func(assay.CaseResult) error) error {
	return RunCases(ctx, s.root, runID, withObservations, fn)
}

// CaseTrials implements CaseReader (RunCase).
func (s *Files) CaseTrials(ctx context.Context, runID, id string, withObservations bool, fn func(assay.CaseResult) error) error {
	return RunCase(ctx, s.root, runID, id, withObservations, fn)
}

// Trend implements Store from the runs' headers: a metric's mean and n
// from the summary, pass_rate with the graded results as its n.
func (s *Files) Trend(_ context.Context, suite, metric string, limit int) ([]TrendPoint, error) {
	_, runs, err := s.heads(Filter{Suite: suite, Status: assay.StatusComplete, NoShards: true}, "")
	if err != nil {
		return nil, err
	}
	var out []TrendPoint
	for _, run := range runs {
		if limit > 0 && len(out) == limit {
			break
		}
		p := TrendPoint{RunID: run.RunID, StartedAt: run.StartedAt}
		if metric == "pass_rate" {
			if run.Summary.PassRate == nil {
				continue
			}
			p.Value, p.N = *run.Summary.PassRate, run.Summary.Graded
		} else {
			m, ok := run.Summary.Metrics[metric]
			if !ok {
				continue
			}
			p.Value, p.N = m.Mean, m.N
		}
		out = append(out, p)
	}
	slices.Reverse(out)
	return out, nil
}

// Delete implements Store (RemoveRun).
func (s *Files) Delete(_ context.Context, runID string) error {
	if s.readOnly {
		return fmt.Errorf("store %s is read-only: it cannot delete a run", s.root)
	}
	return RemoveRun(s.root, runID, nil)
}

// InProgress implements ProgressReporter (RunInProgress).
func (s *Files) InProgress(_ context.Context, runID string) bool {
	return RunInProgress(s.root, runID)
}
