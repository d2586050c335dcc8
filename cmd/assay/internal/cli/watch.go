package cli

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/internal/atomicfile"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/suite"
	"github.com/assay-eval/assay/target"
)

// DefaultWatchInterval is how often Watch looks at its inputs.
const DefaultWatchInterval = 500 * time.Millisecond

// maxWatchedFiles bounds the files Watch stats per look: a corpus
// directory of a million files is watched by its first 100,000 (in
// lexical order), so that a look stays cheap.
const maxWatchedFiles = 100000

// Watch runs a Plan, then runs it again each time one of its inputs
// changes, until its context ends (assay run --watch).
type Watch struct {
	Plan RunPlan
	// Out receives each run's summary (Result.WriteText with Text), the
	// line that says what changed, and the short comparison with the
	// previous run (report.WatchChanges).
	Out  io.Writer
	Text report.TextOptions
	// OnError is called with the error of a run that made no result (a
	// suite that no longer loads): watching goes on. Nil: ignored.
	OnError func(error)
	// Interval is how often the inputs are looked at (default
	// DefaultWatchInterval); Ticks, when set, replaces the ticker (tests).
	Interval time.Duration
	Ticks    <-chan time.Time
	// OnRun, when set, is called after each run has been written, with the
	// number of runs so far and the run's error.
	OnRun func(n int, err error)
}

// Run runs the plan and watches its inputs: the suite file (every file of
// a suite directory), its corpus file or directory, its json_schema
// files, the target file and a replay trace or TREC run file. A change is
// a file whose size or modification time differs, or that appeared or
// went; the inputs are found again after each run (an edited suite may
// name another corpus). Runs never overlap: a change during a run is seen
// at the first look after it.
//
// When the context ends (Ctrl-C) Run returns the error of the last run
// that finished (nil: it passed), so the exit status is that run's; a run
// the interruption cut short does not count, unless it was the first.
//
// A usage error (a flag out of range, an output that cannot be written),
// and any error of the first run that made no run (an unknown target, a
// suite that does not load), ends the watch at once, as it would end a
// run; later, an input error (a suite or trace broken by an edit) is
// reported through OnError and watching goes on, so that fixing the file
// runs again.
func (w *Watch) Run(ctx context.Context) error {
	if err := w.check(); err != nil {
		return err
	}
	ticks := w.Ticks
	if ticks == nil {
		iv := w.Interval
		if iv <= 0 {
			iv = DefaultWatchInterval
		}
		t := time.NewTicker(iv)
		defer t.Stop()
		ticks = t.C
	}
	var prev []*assay.Run // the last runs, their cases in memory
	var last error
	n := 0
	for {
		stamps := stampInputs(watchInputs(w.Plan), w.Plan)
		res, err := Run(ctx, w.Plan)
		// What the run wrote itself (--record over its replay trace) is
		// no change.
		for p, st := range stampInputs(planOutputs(w.Plan), w.Plan) {
			if _, ok := stamps[p]; ok {
				stamps[p] = st
			}
		}
		if ctx.Err() != nil && n > 0 {
			res.Close()
			return last
		}
		if harness.KindOf(err) == harness.Usage || (n == 0 && res == nil) {
			res.Close()
			return err
		}
		n++
		last = err
		if runs := w.show(res, err, prev); runs != nil {
			prev = runs
		}
		res.Close()
		if w.OnRun != nil {
			w.OnRun(n, err)
		}
		if ctx.Err() != nil {
			return last
		}
		// Wait for a change.
		for {
			select {
			case <-ctx.Done():
				return last
			case <-ticks:
			}
			now := lookAgain(stamps, w.Plan)
			if changed := changedInputs(stamps, now); len(changed) > 0 {
				_ = report.WatchRerun(w.Out, changed)
				break
			}
		}
	}
}

// check rejects what cannot be watched: a suite read from stdin, and an
// output sent to stdout, where each run would add one more document.
func (w *Watch) check() error {
	p := w.Plan
	if p.SuitePath == "" || p.SuitePath == "-" || p.SuitePath == "/dev/stdin" {
		return usageError("give the suite as a file", "--watch reads the suite again after each change, so it cannot come from stdin")
	}
	for _, o := range []Output{{"--json", p.JSON}, {"--markdown", p.Markdown}, {"--junit", p.JUnit}, {"--badge", p.Badge}} {
		if o.Path == "-" {
			return usageError("write it to a FILE, rewritten on each run", "--watch with %s -: each run would print one more document on stdout", o.Flag)
		}
	}
	return nil
}

// show writes a run's summary and, when a previous run exists, what
// changed against it (variant by variant for a matrix). It returns the
// runs with their cases read into memory (a run's cases stay on disk
// until the Result is closed), for the next comparison.
func (w *Watch) show(res *harness.Result, err error, prev []*assay.Run) []*assay.Run {
	if res == nil || len(res.Runs) == 0 {
		if err != nil && w.OnError != nil {
			w.OnError(err)
		}
		return nil
	}
	opts := w.Text
	opts.Queries = res.FailQueries
	if werr := WriteText(w.Out, res, w.Plan.Plan, opts); werr != nil && w.OnError != nil {
		w.OnError(werr)
	}
	runs := make([]*assay.Run, len(res.Runs))
	for i, r := range res.Runs {
		c := *r
		c.Cases, c.CaseStream = nil, nil
		if rerr := r.EachCase(func(cr assay.CaseResult) error { c.Cases = append(c.Cases, cr); return nil }); rerr != nil {
			if w.OnError != nil {
				w.OnError(rerr)
			}
			return nil
		}
		runs[i] = &c
	}
	if len(prev) == len(runs) {
		for i, run := range runs {
			_, _ = io.WriteString(w.Out, "\n")
			_ = report.WatchChanges(w.Out, compare.Runs(prev[i], run, compare.Options{}))
		}
	}
	return runs
}

// watchInputs lists the files a run of p reads. A suite that does not
// load is watched alone (fixing it makes the next run).
func watchInputs(p RunPlan) []string {
	var paths []string
	add := func(path string) {
		if path != "" && path != "-" && path != "inline" && !slices.Contains(paths, path) {
			paths = append(paths, path)
		}
	}
	add(p.SuitePath)
	if p.Suite == nil && p.SuitePath != "" {
		if st, err := suite.Stream(p.SuitePath, suite.LoadOptions{Split: p.Split}); err == nil {
			add(st.Suite.CorpusSource)
			for _, s := range st.SchemaPaths() {
				add(s)
			}
		}
	}
	if target.IsFile(p.Target) {
		add(p.Target)
	}
	for _, pre := range []string{"replay:", "trec:"} {
		if f, ok := strings.CutPrefix(p.Target, pre); ok {
			add(f)
		}
	}
	return paths
}

// stamp is what a look keeps of one file.
type stamp struct {
	size  int64
	mtime time.Time
	mode  fs.FileMode
}

// planOutputs are the files a run of p writes.
func planOutputs(p RunPlan) []string {
	return []string{p.JSON, p.JUnit, p.Markdown, p.Badge, p.Record, p.TrecRun, p.TrecQrels, p.TrecRAG}
}

// stampInputs stats every input, walking directories but not the run
// store or report directory of p (a run writes them); a path that cannot
// be stat'ed is absent from the map.
func stampInputs(paths []string, p RunPlan) map[string]stamp {
	out := map[string]stamp{}
	for _, root := range paths {
		fi, err := os.Stat(root)
		if err != nil {
			continue
		}
		if !fi.IsDir() {
			out[root] = stamp{fi.Size(), fi.ModTime(), fi.Mode()}
			continue
		}
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && path != root && (atomicfile.SameFile(path, p.StoreDir) || atomicfile.SameFile(path, p.ReportDir)) {
				return fs.SkipDir
			}
			if len(out) >= maxWatchedFiles {
				return fs.SkipAll
			}
			if d.IsDir() {
				return nil // its files are stamped; its own mtime moves with a store inside it
			}
			if fi, err := d.Info(); err == nil {
				out[path] = stamp{fi.Size(), fi.ModTime(), fi.Mode()}
			}
			return nil
		})
	}
	return out
}

// lookAgain stamps the inputs of p as they are now, and also the files of
// the previous look (before) that are no longer inputs: a suite broken by
// an edit lists no corpus or schema (it does not load), and an edited
// suite may name another corpus, but a file that merely stopped being
// listed has not changed, and the line that says what changed must name
// the file that did (it named the corpus's files, not the suite).
func lookAgain(before map[string]stamp, p RunPlan) map[string]stamp {
	now := stampInputs(watchInputs(p), p)
	for path := range before {
		if _, ok := now[path]; ok {
			continue
		}
		if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
			now[path] = stamp{fi.Size(), fi.ModTime(), fi.Mode()}
		}
	}
	return now
}

// changedInputs lists, sorted, the paths that differ between two looks.
func changedInputs(before, after map[string]stamp) []string {
	var out []string
	for p, a := range after {
		if b, ok := before[p]; !ok || b.size != a.size || !b.mtime.Equal(a.mtime) || b.mode != a.mode {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}
