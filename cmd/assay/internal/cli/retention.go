package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/metric"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
)

// TrendRow is one complete run of a trend: its value of each metric
// asked for (absent: the run did not compute it).
type TrendRow struct {
	RunID     string             `json:"run_id"`
	StartedAt time.Time          `json:"started_at"`
	Values    map[string]float64 `json:"values"`
	N         map[string]int     `json:"n"`
}

// Trend is how metrics moved over the complete runs of a suite, oldest
// first (the assay.trend/v1 document of `assay runs trend --json`).
type Trend struct {
	Schema  string     `json:"schema"`
	Suite   string     `json:"suite"`
	Metrics []string   `json:"metrics"`
	Runs    []TrendRow `json:"runs"`
}

// TrendSchema names the trend document.
const TrendSchema = "assay.trend/v1"

// SuiteTrend reads the trend of metrics (names as gates spell them:
// pass_rate or an IR metric such as nDCG@10) over the complete runs of
// suite in st, oldest first, at most limit of the newest (0: all). With no
// metric it follows pass_rate and the headline metric of the suite's
// newest run. Shard runs are left out (their merge is in the trend). A
// suite with no complete run is an Input error that names the suites the
// store has.
func SuiteTrend(ctx context.Context, st store.Store, suite string, metrics []string, limit int) (*Trend, error) {
	if limit < 0 {
		return nil, usageError("--limit 0 follows every run", "--limit must not be negative, got %d", limit)
	}
	entries, err := st.List(ctx, store.Filter{Suite: suite, Status: assay.StatusComplete, NoShards: true, Limit: 1})
	if err != nil {
		return nil, inputError(err)
	}
	if len(entries) == 0 {
		return nil, inputError(noSuiteRuns(ctx, st, suite))
	}
	if len(metrics) == 0 {
		metrics = []string{"pass_rate"}
		if h := entries[0].Headline; h != "" {
			metrics = append(metrics, h)
		}
	}
	t := &Trend{Schema: TrendSchema, Suite: suite, Runs: []TrendRow{}}
	rows := map[string]*TrendRow{}
	for _, m := range metrics {
		name, err := gate.CanonicalMetric(m)
		if err != nil {
			return nil, usageError("", "--metric: %v", err)
		}
		if isRunMeasure(name) {
			return nil, usageError("follow pass_rate or an IR metric, e.g. --metric ndcg@10", "--metric %s: the store indexes pass_rate and the IR metrics of each run, not %s", m, name)
		}
		if contains(t.Metrics, name) {
			continue
		}
		t.Metrics = append(t.Metrics, name)
		points, err := st.Trend(ctx, suite, name, limit)
		if err != nil {
			return nil, inputError(err)
		}
		for _, p := range points {
			r := rows[p.RunID]
			if r == nil {
				r = &TrendRow{RunID: p.RunID, StartedAt: p.StartedAt, Values: map[string]float64{}, N: map[string]int{}}
				rows[p.RunID] = r
			}
			r.Values[name], r.N[name] = p.Value, p.N
		}
	}
	for _, r := range rows {
		t.Runs = append(t.Runs, *r)
	}
	sort.Slice(t.Runs, func(i, j int) bool {
		a, b := t.Runs[i], t.Runs[j]
		if !a.StartedAt.Equal(b.StartedAt) {
			return a.StartedAt.Before(b.StartedAt)
		}
		return a.RunID < b.RunID
	})
	if limit > 0 && len(t.Runs) > limit {
		t.Runs = t.Runs[len(t.Runs)-limit:]
	}
	return t, nil
}

// isRunMeasure reports whether a canonical gate name is one of the
// run-level names the index keeps no trend of (rates other than
// pass_rate, latencies, counts, trial statistics): any but pass_rate,
// the IR metrics of package metric and the nugget metrics.
func isRunMeasure(name string) bool {
	if name == "pass_rate" || assay.IsNuggetMetric(name) {
		return false
	}
	_, err := metric.Parse(name)
	return err != nil
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// noSuiteRuns says that the store holds no complete run of suite, and
// which suites it holds.
func noSuiteRuns(ctx context.Context, st store.Store, suite string) error {
	all, err := st.List(ctx, store.Filter{Status: assay.StatusComplete, NoShards: true})
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var names []string
	for _, e := range all {
		if !seen[e.Suite] {
			seen[e.Suite] = true
			names = append(names, e.Suite)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return fmt.Errorf("no complete run of suite %q: the store holds no complete run", suite)
	}
	return fmt.Errorf("no complete run of suite %q (suites with complete runs: %s)", suite, strings.Join(names, ", "))
}

// PrunePlan says which runs `assay runs prune` deletes.
type PrunePlan struct {
	// Keep keeps the newest Keep runs of each suite (0: not given);
	// OlderThan deletes the runs started more than OlderThan before Now
	// (0: not given). With both, a run goes when neither keeps it.
	Keep      int
	OlderThan time.Duration
	Now       time.Time
	// Suite, when set, prunes the runs of that suite only.
	Suite string
	// Floors are floors files: a run their log names (the run a floor was
	// raised from) is kept. Nil: gate.DefaultFloorsFile when it exists.
	Floors []string
	// DryRun deletes nothing: Pruned says what would go.
	DryRun bool
}

// Pruned is what Prune deleted (or, with DryRun, would delete) and what
// it kept that the rules alone would have deleted, with why.
type Pruned struct {
	Deleted   []store.Entry
	Protected []ProtectedRun
	// Kept counts the runs left in place.
	Kept int
}

// ProtectedRun is a run Prune did not delete although Keep or OlderThan
// would have: it is the latest complete run of its suite, or a floors
// file names it.
type ProtectedRun struct {
	Entry  store.Entry
	Reason string
}

// Prune deletes old runs from st: per suite, the runs beyond the newest
// p.Keep and/or started before p.Now - p.OlderThan. It never deletes the
// latest complete run of a suite (what latest and a baseline name; a shard
// run never is one), a run a floors file names (Floors), nor a run a live
// process is still writing (Store.Delete refuses it: store.ErrInProgress),
// and says so for each run it spared. Runs are deleted one at a time through
// Store.Delete; an error stops it, and Pruned holds what was deleted
// until then.
func Prune(ctx context.Context, st store.Store, p PrunePlan) (Pruned, error) {
	var out Pruned
	if p.Keep < 0 {
		return out, usageError("", "--keep must be >= 1, got %d", p.Keep)
	}
	if p.OlderThan < 0 {
		return out, usageError("", "--older-than must be a positive duration, got %s", p.OlderThan)
	}
	if p.Keep == 0 && p.OlderThan == 0 {
		return out, usageError("assay runs prune --keep 20, or --older-than 30d", "say which runs go: --keep N (the newest N of each suite stay) or --older-than D")
	}
	if p.Now.IsZero() {
		p.Now = time.Now()
	}
	named, err := floorRuns(p.Floors)
	if err != nil {
		return out, err
	}
	entries, err := st.List(ctx, store.Filter{Suite: p.Suite})
	if err != nil {
		return out, inputError(err)
	}
	seen := map[string]int{}      // runs of each suite so far, newest first
	latest := map[string]string{} // the latest complete run of each suite
	for _, e := range entries {   // newest first
		if e.Status == assay.StatusComplete && e.Shard == nil && latest[e.Suite] == "" {
			latest[e.Suite] = e.RunID
		}
	}
	for _, e := range entries {
		seen[e.Suite]++
		byKeep := p.Keep > 0 && seen[e.Suite] > p.Keep
		byAge := p.OlderThan > 0 && e.StartedAt.Before(p.Now.Add(-p.OlderThan))
		goes := (p.Keep == 0 || byKeep) && (p.OlderThan == 0 || byAge)
		if !goes {
			out.Kept++
			continue
		}
		switch {
		case latest[e.Suite] == e.RunID:
			out.Protected = append(out.Protected, ProtectedRun{e, "the latest complete run of suite " + e.Suite})
			out.Kept++
			continue
		case named[e.RunID] != "":
			out.Protected = append(out.Protected, ProtectedRun{e, "named by " + named[e.RunID]})
			out.Kept++
			continue
		}
		if !p.DryRun {
			err := st.Delete(ctx, e.RunID)
			if errors.Is(err, store.ErrInProgress) {
				out.Protected = append(out.Protected, ProtectedRun{e, InProgressReason})
				out.Kept++
				continue
			}
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return out, inputError(err)
			}
		} else if e.Status == assay.StatusIncomplete && inProgress(ctx, st, e.RunID) {
			out.Protected = append(out.Protected, ProtectedRun{e, InProgressReason})
			out.Kept++
			continue
		}
		out.Deleted = append(out.Deleted, e)
	}
	return out, nil
}

// InProgressReason is why Prune keeps a run that a live process is still
// writing (store.ErrInProgress from Store.Delete).
const InProgressReason = "in progress: a process is still writing it"

// inProgress reports whether a dry run should say the run would be kept
// as in progress: the store can tell (store.ProgressReporter) and says so.
func inProgress(ctx context.Context, st store.Store, id string) bool {
	pr, ok := st.(store.ProgressReporter)
	return ok && pr.InProgress(ctx, id)
}

// floorRuns maps each run id the floors files' logs name to the file.
func floorRuns(files []string) (map[string]string, error) {
	if files == nil {
		if _, err := os.Stat(gate.DefaultFloorsFile); err == nil {
			files = []string{gate.DefaultFloorsFile}
		}
	}
	named := map[string]string{}
	for _, path := range files {
		fl, err := readFloorsFile(path, false)
		if err != nil {
			return nil, inputError(err)
		}
		for _, c := range fl.Log {
			if c.RunID != "" && named[c.RunID] == "" {
				named[c.RunID] = path
			}
		}
	}
	return named, nil
}

// WriteText writes the trend as `assay runs trend` prints it: one row per
// run, oldest first, each metric to 4 decimals ("-": not computed), then
// the change from the first run to the last of each metric.
func (t *Trend) WriteText(w io.Writer) error {
	if len(t.Runs) == 0 {
		_, err := fmt.Fprintf(w, "suite %s: no complete run computed %s\n", report.Escape(t.Suite), strings.Join(t.Metrics, " or "))
		return err
	}
	fmt.Fprintf(w, "suite %s: %d complete run(s), oldest first\n", report.Escape(t.Suite), len(t.Runs))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "run\tstarted (UTC)\t")
	for _, m := range t.Metrics {
		fmt.Fprintf(tw, "%s\t", m)
	}
	fmt.Fprintln(tw)
	for _, r := range t.Runs {
		fmt.Fprintf(tw, "%s\t%s\t", report.ShortID(r.RunID), report.FormatUTC(r.StartedAt))
		for _, m := range t.Metrics {
			if v, ok := r.Values[m]; ok {
				fmt.Fprintf(tw, "%.4f\t", v)
			} else {
				fmt.Fprint(tw, "-\t")
			}
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var changes []string
	for _, m := range t.Metrics {
		var first, last *float64
		for _, r := range t.Runs {
			if v, ok := r.Values[m]; ok {
				if first == nil {
					first = &v
				}
				last = &v
			}
		}
		if first != nil && last != first {
			changes = append(changes, fmt.Sprintf("%s %+.4f", m, *last-*first))
		}
	}
	if len(changes) > 0 && len(t.Runs) > 1 {
		_, err := fmt.Fprintf(w, "change, first to last: %s\n", strings.Join(changes, ", "))
		return err
	}
	return nil
}

// WriteText writes what Prune did as `assay runs prune` prints it: each
// run deleted (dry run: that would be), each run spared and why, and the
// count.
func (p Pruned) WriteText(w io.Writer, dryRun bool) error {
	verb := "deleted"
	if dryRun {
		verb = "would delete"
	}
	for _, e := range p.Deleted {
		fmt.Fprintf(w, "%s %s  %s  %s  %s\n", verb, e.RunID, report.FormatUTC(e.StartedAt), report.Escape(e.Suite), e.Status)
	}
	for _, k := range p.Protected {
		fmt.Fprintf(w, "kept %s  %s  %s: %s\n", k.Entry.RunID, report.FormatUTC(k.Entry.StartedAt), report.Escape(k.Entry.Suite), report.Escape(k.Reason))
	}
	_, err := fmt.Fprintf(w, "%s %d run(s), kept %d\n", verb, len(p.Deleted), p.Kept)
	return err
}

// OpenExistingStore opens the run store at dir for writing, as
// OpenStore does, but a directory that does not exist is an error rather
// than a new, empty store (prune and merge work on runs already there).
func OpenExistingStore(dir string, o store.OpenOptions) (store.Store, error) {
	if !store.IsURL(dir) {
		if _, err := os.Stat(dir); err != nil {
			return nil, inputError(fmt.Errorf("no run store at %s: pass --store DIR (or set ASSAY_STORE)", dir))
		}
	}
	st, err := OpenStore(dir, o)
	if err != nil {
		return nil, inputError(err)
	}
	return st, nil
}

// ParseAge reads an --older-than age: a Go duration (36h, 90m) or a whole
// number of days or weeks (30d, 2w).
func ParseAge(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(t, suffix); ok {
			v, err := strconv.Atoi(n)
			if err != nil || v < 1 || v > 100000 {
				return 0, usageError("", "--older-than %q: want a whole number of days or weeks (30d, 2w) or a Go duration (36h)", s)
			}
			return time.Duration(v) * unit, nil
		}
	}
	d, err := time.ParseDuration(t)
	if err != nil || d <= 0 {
		return 0, usageError("", "--older-than %q: want a positive age: 30d, 2w or a Go duration (36h)", s)
	}
	return d, nil
}

// PruneStore is `assay runs prune`: it reads age (an --older-than value,
// ParseAge; "" for none) into p.OlderThan, opens the store at dir
// (OpenExistingStore), prunes it (Prune) and writes what it did to w, also
// when an error stopped it after deleting some runs.
func PruneStore(ctx context.Context, w io.Writer, dir string, o store.OpenOptions, age string, p PrunePlan) error {
	var err error
	if age != "" {
		if p.OlderThan, err = ParseAge(age); err != nil {
			return err
		}
	}
	st, err := OpenExistingStore(dir, o)
	if err != nil {
		return err
	}
	defer st.Close()
	res, err := Prune(ctx, st, p)
	if err != nil && len(res.Deleted) == 0 {
		return err
	}
	if werr := res.WriteText(w, p.DryRun); err == nil {
		err = werr
	}
	return err
}
