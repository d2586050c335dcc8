package harness

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/cache"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/corpus"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/grade"
	"github.com/assay-eval/assay/harness/seam"
	"github.com/assay-eval/assay/metric"
	"github.com/assay-eval/assay/redact"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/runner"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/suite"
)

// Plan is everything one Run needs. Its zero value works but for the
// suite: no store, no baseline, one trial, runner.DefaultConcurrency cases
// in flight, runner.DefaultTimeout per case. Run writes the store only;
// what else a caller writes (reports, traces) it takes from the Result and
// from the results as they come (OnRun).
type Plan struct {
	// SuitePath is the suite file or directory (any format package suite
	// reads); Split is the qrels split of a BEIR directory. Suite, when
	// set, is a suite already loaded (suite.Load), used instead.
	SuitePath string
	Split     string
	Suite     *assay.Suite
	// Target is the target SPEC (builtin, http://..., replay:FILE, a
	// target file, ...); empty: builtin when the suite has a corpus.
	// System, when set, is the system under test itself and Target is
	// only its name in the record; the caller keeps it open.
	Target string
	System assay.Target
	// Targets opens Target (package seam says why it is apart); nil: the
	// one registered (seam.RegisterTargets: importing package
	// harness/opener registers its own), else only System runs.
	Targets seam.Targets
	// Selection: the case ids to run, KEY=VALUE tags every case run must
	// have, and K (> 0) overrides the suite's k.
	Cases []string
	Tags  []string
	K     int
	// Trials per case (0: one), cases in flight (0:
	// runner.DefaultConcurrency), the per-case timeout (0:
	// runner.DefaultTimeout; negative: none), and the errored observations
	// after which the run stops (0: never).
	Trials      int
	Concurrency int
	Timeout     time.Duration
	MaxErrors   int
	// Keep skips the target's cleanup steps; AllowLiteralSecrets accepts
	// literal Authorization or Cookie values in a target file.
	Keep                bool
	AllowLiteralSecrets bool
	// StoreDir is the run store (store.Open with StoreOptions, whose
	// Backends open a URL); empty: no store.
	StoreDir     string
	StoreOptions store.OpenOptions
	// Cache answers http and command targets from the response cache
	// under the store (cache.Open(cache.StoreDir(StoreDir))), and stores
	// what they answer live; it needs StoreDir (docs/cache.md).
	Cache bool
	// CacheTrials answers every trial from the cache too; without it a
	// run of more than one trial asks the system each time (trials
	// measure how its answers vary, which a cache would hide).
	CacheTrials bool
	// MaxCost (US dollars) and MaxTokens (input + output) bound what the
	// system under test may spend (0: no bound): the cases past a bound
	// are recorded not run and the run is incomplete (docs/cost.md). Its
	// costs are priced by the suite's price table.
	MaxCost   float64
	MaxTokens int64
	// Baseline is the run REF to compare with (store.ResolveRef); a
	// latest REF names a run of this suite (store.ResolveEntryIn), and a
	// run of another suite is refused (otherSuite).
	Baseline string
	// Labels are recorded with the run (Run.Labels; store.CheckLabel
	// says what a key and a value may hold). The harness reads no CI
	// variable: a caller that wants the branch, commit and environment
	// labels (store.LabelBranch, ...) sets them here.
	Labels map[string]string
	// Failed, a run REF (as Baseline), runs only the cases that failed or
	// errored in that run, a run of the same suite (failed.go).
	Failed string
	// Shard, "I/N", runs slice I (0-based) of N of the selected cases and
	// records the run as a shard of Group (empty: shard.DefaultGroup); see
	// shard.go. Empty: the whole suite.
	Shard, Group string
	// Gates are gate expressions added to the suite's (their source is
	// Names("Gates")).
	Gates []string
	// MaxFailures bounds the failing cases whose query the result keeps
	// for a summary (Result.FailQueries; 0: all).
	MaxFailures int
	// Strict makes any graded case that did not pass a failure (exit 1),
	// gates or not: without gates, a run's exit status checks nothing.
	Strict bool
	// AllowNoBaseline lets a run without Baseline whose every gate
	// compares with a baseline pass; otherwise it fails (GateFailed),
	// since no gate was checked.
	AllowNoBaseline bool
	// Getenv is the only way the harness reads the environment (target
	// secrets, the CI run id of a shard group); nil reads nothing.
	Getenv func(string) string
	// TempDir is where temporary files go (a run's results with no
	// store); empty: os.TempDir().
	TempDir string
	// Secrets collects the secret values of the targets opened; every
	// result, record and output is redacted with it. Nil: a new one.
	Secrets *redact.Redactor
	// OnEvent, when set, is called with the run's progress (one call at a
	// time).
	OnEvent func(Event)
	// OnRun, when set, is called as each run (each variant of a matrix)
	// begins, with the suite (its header: the cases are streamed, so
	// Cases may be empty) and the run's record (id, variant): the Sink it
	// returns (nil: none) is given the run's results as they are made. An
	// error fails the run before any case (Input).
	OnRun func(s *assay.Suite, run *assay.Run) (Sink, error)
	// Names names the plan's fields ({Field}) in the warnings and notes
	// a run records, as a caller presents them (a CLI: its flags); nil:
	// the Go names. PlanError.Text does the same for errors.
	Names func(field string) string
	// Now is the clock of the records (nil: time.Now).
	Now func() time.Time
	// Version is the assay version recorded (default assay.Version).
	Version string
	// Checks are checks written in Go, run on every observation after
	// the suite's expectations (grade.ApplyCustom): they count in each
	// case's pass, the gates and every report, and are stored with the
	// case's other checks. Each needs a kind no built-in check has.
	Checks []grade.Custom
	// Judge configures the model judge (JudgeOptions); the zero value
	// uses the suite's judge: definition, if any.
	Judge JudgeOptions
}

// A Sink takes the results of one run as they are made (Plan.OnRun).
type Sink interface {
	// Add is given each result, graded and redacted, with its
	// observation, one call at a time, before it is stored; an error
	// stops the run (Input).
	Add(c assay.Case, r assay.CaseResult) error
	// Close is called once when the run is over: ok when it was stored
	// whole. An error then fails the run (Input).
	Close(ok bool) error
}

// SinkWarner is a Sink with warnings about what it wrote (files that
// other tools will read differently, say): they join the run's warnings
// when its cases are over.
type SinkWarner interface {
	Warnings() []string
}

// EventKind says what an Event reports.
type EventKind int

// The events of a run.
const (
	// Started: a run (one variant of a matrix) begins; Total is the
	// number of observations it will make.
	Started EventKind = iota + 1
	// Observed: one observation was graded (Result holds it, redacted).
	Observed
	// Finished: the run's cases are over.
	Finished
)

// Event is one progress report.
type Event struct {
	Kind   EventKind
	Total  int
	Result *assay.CaseResult
}

// Result is what Run made: the run (one per variant of a matrix) with its
// gate verdict and, with a baseline, its comparison.
type Result struct {
	Runs     []*assay.Run
	Verdicts []gate.Verdict
	// Baseline is the Plan's baseline run; Baselines[i] the run Runs[i]
	// was compared with (nil: not compared) and Comparisons[i] the
	// comparison. A baseline that only the comparison read (no gate
	// compares with it) is its record without its cases.
	Baseline    *assay.Run
	Baselines   []*assay.Run
	Comparisons []*compare.Report
	// Notes say which variants were not compared, and why.
	Notes []string
	// Matrix is set for a variant matrix: Group is its id and Orderings
	// the verdict of its orderings.
	Matrix    bool
	Group     string
	Orderings gate.Verdict
	// FailQueries holds the (redacted) queries of failing cases, by id.
	FailQueries map[string]string
	// NoBaseline is true when every gate compares with a baseline and
	// there was none: no gate was checked (the run fails unless
	// AllowNoBaseline).
	NoBaseline bool

	closers []func()
}

// Close releases what the result's runs read their cases from.
func (r *Result) Close() error {
	if r == nil {
		return nil
	}
	for i := len(r.closers) - 1; i >= 0; i-- {
		r.closers[i]()
	}
	r.closers = nil
	return nil
}

// Run runs a plan: the steps of the package doc. It returns a Result
// whenever runs were made, also with an error of kind Incomplete,
// GateFailed or Regressed (and with an Input error from writing an
// output); the caller closes it.
func Run(ctx context.Context, p Plan) (*Result, error) {
	if p.Getenv == nil {
		p.Getenv = func(string) string { return "" }
	}
	if p.Secrets == nil {
		p.Secrets = redact.New()
	}
	if p.Version == "" {
		p.Version = assay.Version
	}
	if p.Trials == 0 {
		p.Trials = 1
	}
	if p.Concurrency == 0 {
		p.Concurrency = runner.DefaultConcurrency
	}
	if p.Timeout == 0 {
		p.Timeout = runner.DefaultTimeout
	}
	if p.Names == nil {
		p.Names = func(f string) string { return f }
	}
	if p.Now == nil {
		p.Now = time.Now
	}
	f := &p
	f.registered()
	ss, err := prepareRun(ctx, f)
	if err != nil {
		return nil, err
	}
	res := &Result{Baseline: ss.base, FailQueries: ss.failQueries, NoBaseline: ss.noBaseline != nil}
	if ss.st != nil {
		st := ss.st
		res.closers = append(res.closers, func() { st.Close() })
	}
	res.closers = append(res.closers, ss.closeSpills)
	var matrix seam.Matrix
	if f.System == nil {
		if matrix, err = f.Targets.Matrix(ss.spec); err != nil {
			res.Close()
			return nil, inputError(err)
		}
	}
	if len(matrix.Variants) > 0 {
		if ss.shard != nil {
			res.Close()
			return nil, planError("Shard", "shard a target file without variants:, one per variant", "{Shard}: the target file %s declares variants", ss.spec)
		}
		err := ss.runMatrix(ctx, matrix, res)
		if len(res.Runs) == 0 {
			res.Close()
			return nil, err
		}
		return res, err
	}

	ss.single = true
	run, verdict, err := ss.runOne(ctx, nil, "", ss.base)
	if err != nil {
		res.Close()
		return nil, err
	}
	res.Runs, res.Verdicts, res.Baselines = []*assay.Run{run}, []gate.Verdict{verdict}, []*assay.Run{ss.base}
	var cmp *compare.Report
	if ss.base != nil {
		own, base := ss.own, ss.baseCompact
		if own == nil {
			own = compare.CompactOf(run)
		}
		if base == nil {
			base = compare.CompactOf(ss.base)
		}
		rep := compare.RunsCompact(base, own, compare.Options{History: ss.history(ctx, ss.base, run)})
		cmp = &rep
	}
	res.Comparisons = []*compare.Report{cmp}
	regressed := cmp != nil && cmp.Verdict == compare.Regressed
	if cmp != nil && cmp.PairedCases == 0 && run.Status == assay.StatusComplete {
		return res, noCaseShared(f.Baseline)
	}

	switch {
	case run.Status != assay.StatusComplete:
		return res, &Error{Kind: Incomplete}
	case len(verdict.Errors) > 0:
		return res, gateErrors(verdict.Errors)
	case AllErrored(run) != nil:
		return res, AllErrored(run)
	case !verdict.Pass:
		return res, &Error{Kind: GateFailed}
	case regressed:
		return res, &Error{Kind: Regressed}
	case ss.noBaseline != nil && !f.AllowNoBaseline:
		return res, ss.noBaseline
	case f.Strict && run.Summary.Graded > run.Summary.Passed:
		n := run.Summary.Graded - run.Summary.Passed
		return res, &Error{Kind: GateFailed, Err: &PlanError{Field: "Strict", Format: "{Strict}: %d of %d graded cases did not pass", Args: []any{n, run.Summary.Graded}}}
	}
	return res, nil
}

// noCaseShared is the error of a run compared with a baseline that shares
// no case with it.
func noCaseShared(baseline string) error {
	return planError("Baseline", "give a {Baseline} run of the same suite", "{Baseline} %s shares no case with this run: nothing was compared", baseline)
}

// session is what every run of one plan shares: the loaded suite, the
// selected cases, the grading options, the gates, the store and the
// baseline. A target file with variants: makes one run per variant.
//
// The cases are not held in memory: src reads them from the suite (which
// package suite streams from its file when it can), and each run's results
// go to its run directory (the store's, or one under a temporary directory
// when there is no store) that the reports read back one at a time
// (store.ReadResults). Only what needs
// every case at once keeps them: a comparison with a baseline, trial
// statistics (Trials > 1) and the gates on them (keepCases).
type session struct {
	f     *Plan
	s     *assay.Suite
	src   assay.Seq[assay.Case]
	n     int // cases selected
	total int // cases in the suite
	// nuggets: a case states expect.nuggets, so the run reports the
	// nugget metrics.
	nuggets bool
	// failQueries holds the queries of the failing cases a summary lists
	// (at most MaxFailures per run).
	failQueries map[string]string
	// tmp holds the run directories of a plan with no store (removed
	// when the Result is closed).
	tmp *store.ScratchDir
	// orderings are the matrix's orderings (keepCases reads them).
	orderings []gate.Ordering
	gopts     grade.Options
	gates     []assay.Gate
	exprs     []gate.Expr // gates, parsed once when the session is planned
	st        store.Store
	cache     *cache.Cache
	base      *assay.Run
	// single is true for a run of one system (no variant matrix): its
	// comparison with base reads the compact form of its results (own),
	// kept as they are produced, unless the run keeps them whole anyway.
	single bool
	own    *compare.Compact
	// baseCompact is the baseline in compact form when no gate reads it
	// (compactBaseline); base is then its head, without cases.
	baseCompact *compare.Compact
	spec        string
	warnings    []string
	// noBaseline is the failure of a plan whose every gate needs the
	// baseline it lacks (baselineOnly); nil otherwise.
	noBaseline error
	// judge makes each run's judge (nil: no judge).
	judge *judgeSetup
	// Computed once for every run of the session (a matrix has several).
	fingerprint string
	git         *assay.GitInfo
	// hist holds the earlier runs History loaded for a run's gates, for
	// its comparison to use (ss.history).
	hist map[histKey][]*assay.Run
	// shard is the plan's shard (nil: the whole suite).
	shard *assay.Shard
	// selected are the case ids the plan picked (Cases, or the failed
	// cases of Failed); nil: all.
	selected []string
	// prices is the price table of the system's usage: the suite's, with
	// the target file's entries added (docs/cost.md).
	prices assay.PriceTable
}

// registered fills the seams the plan leaves nil with the registered
// ones (package seam's registry, which package opener fills).
func (f *Plan) registered() {
	if f.Targets == nil {
		f.Targets = seam.RegisteredTargets()
	}
	if f.Judge.New == nil {
		f.Judge.New = seam.RegisteredJudge()
	}
}

// prepareRun loads and checks everything a run needs before any case is
// sent, so a bad suite, gate, target or store fails with exit 2 up front.
func prepareRun(ctx context.Context, f *Plan) (*session, error) {
	if why := grade.ValidCustom(f.Checks); why != "" {
		return nil, planError("Checks", "", "Plan.Checks: %s", why)
	}
	st, err := loadSuite(f)
	if err != nil {
		return nil, inputError(err)
	}
	s := st.Suite
	ss := &session{f: f, s: s, total: st.N, fingerprint: st.Fingerprint, git: store.GitInfo(s.Dir), failQueries: map[string]string{}}
	ss.warnings = append(ss.warnings, s.Warnings...)
	if f.Suite != nil {
		ss.warnings = append(ss.warnings, suite.CheckManifest(f.Suite)...)
	} else {
		ss.warnings = append(ss.warnings, suite.CheckManifestStreamed(st)...)
	}

	ids := f.Cases
	if f.Failed != "" {
		if ids, err = ss.failedSelection(ctx, st); err != nil {
			return nil, err
		}
	}
	ss.selected = ids
	if ss.src, ss.n, err = selectCases(st, ids, f.Tags, f.K); err != nil {
		return nil, err
	}
	if err := ss.selectShard(); err != nil {
		return nil, err
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	if f.K > 0 {
		s.Defaults.K = f.K
	}
	if ss.gopts, err = grade.NewOptions(s); err != nil {
		return nil, inputError(err)
	}
	// A streamed suite holds no case for NewOptions to find the
	// json_schema files in: load them from the list the load made.
	for _, p := range st.SchemaPaths() {
		if err := ss.gopts.Schemas.Load(p); err != nil {
			return nil, inputError(fmt.Errorf("%s: json_schema %s: %v", s.Path, p, err))
		}
	}
	if ss.judge, err = f.openJudge(s); err != nil {
		return nil, err
	}
	if ss.judge == nil && st.NuggetJudge != "" {
		return nil, planError("Judge", "define a judge: in the suite, give {Judge} FILE, or drop assign: judge", "%s: a nugget says assign: judge, and no judge is configured", st.NuggetJudge)
	}
	ss.nuggets = st.Nuggets
	ss.gates = append([]assay.Gate(nil), s.Gates...)
	for _, g := range f.Gates {
		ss.gates = append(ss.gates, assay.Gate{Expr: g, Source: f.Names("Gates")})
	}
	exprs := make([]gate.Expr, 0, len(ss.gates))
	for _, g := range ss.gates {
		e, err := gate.Parse(g.Expr, g.Source)
		if err != nil {
			return nil, inputError(err)
		}
		exprs = append(exprs, e)
	}
	ss.exprs = exprs
	if f.Baseline == "" && ss.shard == nil {
		if err := ss.withoutBaseline(exprs, f.Names("Gates")); err != nil {
			return nil, err
		}
	}
	if ss.shard != nil {
		// In the record from its first write (Begin), so that a shard
		// killed before it finished still says which gates its group
		// has: the merge then names the incomplete shard instead of
		// refusing shards whose gates seem to differ.
		ss.shard.Gates = ss.gates
	}
	ss.spec = f.Target
	if ss.spec == "" && f.System != nil {
		ss.spec = "go"
	}
	if ss.spec == "" {
		if len(s.Corpus) == 0 && s.CorpusSource != "" {
			return nil, planError("Target", "add documents to it, or give {Target}", "the corpus of suite %s (%s) holds no documents, so the built-in target has nothing to search", s.Name, s.CorpusSource)
		}
		if len(s.Corpus) == 0 {
			return nil, planError("Target", "give {Target} (for example {Target} replay:trace.jsonl or {Target} http://127.0.0.1:8080/ask)",
				"suite %s has no corpus, so the built-in target has nothing to search", s.Name)
		}
		ss.spec = "builtin"
	}
	if f.System == nil && f.Targets == nil {
		return nil, planError("Targets", "a blank import registers it; or set Plan.Targets, or run a Go value as Plan.System", "target %q: the plan has nothing to open a target with: import package github.com/assay-eval/assay/harness/opener", ss.spec)
	}
	ss.prices = ss.s.Prices
	if f.System == nil {
		tp, err := f.Targets.Prices(ss.spec)
		if err != nil {
			return nil, inputError(err)
		}
		if len(tp) > 0 {
			ss.prices = maps.Clone(ss.prices)
			if ss.prices == nil {
				ss.prices = assay.PriceTable{}
			}
			maps.Copy(ss.prices, tp)
		}
	}
	if f.Cache {
		if f.StoreDir == "" {
			return nil, planError("Cache", "drop {NoStore}, or give {StoreDir} DIR", "{Cache} keeps its entries under the store, and this run has none")
		}
		dir := cacheDir(f.StoreDir)
		if dir == "" {
			return nil, planError("Cache", "give {StoreDir} DIR for the cache's files", "{Cache} keeps its entries in files under a store directory, and a database store is not one")
		}
		if ss.cache, err = cache.Open(dir); err != nil {
			return nil, inputError(err)
		}
	}
	if f.StoreDir != "" {
		if ss.st, err = store.Open(f.StoreDir, f.StoreOptions); err != nil {
			return nil, inputError(err) // store.Open's errors name the store
		}
	}
	if f.Baseline != "" && ss.st == nil && !store.IsPathRef(f.Baseline) {
		// latest, latest~N and run ids are looked up in a store; with
		// none, LoadRef would take the REF for a file name.
		return nil, planError("Baseline", "give the baseline's run.json path, or drop {NoStore} to find it in the store", "{Baseline} %s: no run store to look it up in ({NoStore})", f.Baseline)
	}
	if f.Baseline != "" {
		if ss.baseCompact = ss.compactBaseline(ctx, f.Baseline, s.Name); ss.baseCompact != nil {
			ss.base = ss.baseCompact.Head
		} else if ss.base, _, err = LoadBaseline(ctx, ss.st, f.Baseline, s.Name); err != nil {
			if !firstRun(f.Baseline, f.AllowNoBaseline, err) || ss.shard != nil {
				if ss.st != nil {
					ss.st.Close()
				}
				return nil, err
			}
			// A first run: the latest REF names no run of this suite yet.
			ss.warnings = append(ss.warnings, fmt.Sprintf(fill("{Baseline} %s names no run yet, so nothing was compared ({AllowNoBaseline}): %v", f.Names), f.Baseline, err))
			f.Baseline = ""
			// Its gates that compare with a baseline, --gate ones too,
			// are left out with a warning: a baseline was asked for.
			if err := ss.withoutBaseline(exprs, ""); err != nil {
				if ss.st != nil {
					ss.st.Close()
				}
				return nil, err
			}
		}
	}
	return ss, nil
}

// firstRun reports whether a baseline that could not be loaded (err) is
// that of a first run, which allowNoBaseline lets go on with no baseline:
// a latest REF (latest@main on the first run of a suite) that names no
// run. A run id or a path that names nothing stays an error.
func firstRun(ref string, allowNoBaseline bool, err error) bool {
	return allowNoBaseline && store.IsLatestRef(ref) && errors.Is(err, store.ErrNotFound)
}

// withoutBaseline drops the gates that need the baseline the session has
// not (exprs are its gates parsed): each is left out with a warning (one
// of source given is an error: WithoutBaseline), and when all of them
// need one the run fails unless AllowNoBaseline.
func (ss *session) withoutBaseline(exprs []gate.Expr, given string) error {
	f := ss.f
	keep, skipped, err := WithoutBaseline(exprs, given, f.Names)
	if err != nil {
		return err
	}
	ss.noBaseline = baselineOnly(exprs)
	ss.warnings = append(ss.warnings, skipped...)
	if len(keep) < len(exprs) {
		gates := ss.gates
		ss.gates = nil
		for i, e := range exprs {
			if !e.Kind.NeedsBaseline() {
				ss.gates = append(ss.gates, gates[i])
			}
		}
		ss.exprs = keep
	}
	return nil
}

// loadSuite streams the suite at the plan's path, or wraps the suite it
// holds.
func loadSuite(f *Plan) (*suite.Streamed, error) {
	if f.Suite == nil {
		return suite.Stream(f.SuitePath, suite.LoadOptions{Split: f.Split})
	}
	s := *f.Suite
	cases := s.Cases
	st := &suite.Streamed{Suite: &s, N: len(cases), Fingerprint: suite.Fingerprint(f.Suite), Cases: suite.CaseSeq(assay.SliceSeq(cases))}
	for _, c := range cases {
		st.NoteNuggets(c)
	}
	return st, nil
}

// maxTrials bounds Trials: every observation is kept for the run record,
// so 100,000,000 trials ran the process out of memory before the first case.
const maxTrials = 10000

// check rejects numbers out of range before anything runs.
func (f *Plan) check() error {
	switch {
	case f.K < 0:
		return planError("K", "", "{K} must be >= 0 (0: the suite's), got %d", f.K)
	case f.Trials < 1:
		return planError("Trials", "", "{Trials} must be >= 1, got %d", f.Trials)
	case f.Trials > maxTrials:
		return planError("Trials", "", "{Trials} must be <= %d, got %d", maxTrials, f.Trials)
	case f.Concurrency < 1:
		return planError("Concurrency", "", "{Concurrency} must be >= 1, got %d", f.Concurrency)
	case f.MaxErrors < 0:
		return planError("MaxErrors", "", "{MaxErrors} must be >= 0 (0: never stop), got %d", f.MaxErrors)
	case f.MaxFailures < 0:
		return planError("MaxFailures", "", "{MaxFailures} must be >= 0 (0: all), got %d", f.MaxFailures)
	case f.MaxCost < 0 || math.IsNaN(f.MaxCost) || math.IsInf(f.MaxCost, 0):
		return planError("MaxCost", "", "{MaxCost} must be a number of US dollars >= 0 (0: no bound), got %v", f.MaxCost)
	case f.MaxTokens < 0:
		return planError("MaxTokens", "", "{MaxTokens} must be >= 0 (0: no bound), got %d", f.MaxTokens)
	}
	return checkLabels(f.Labels)
}

// checkLabels is the plan error of labels that break the label rules.
func checkLabels(labels map[string]string) error {
	if err := store.CheckLabels(labels); err != nil {
		return planError("Labels", "a label is KEY=VALUE: KEY of letters, digits, '_', '.' and '-'; VALUE non-empty text", "{Labels}: %v", err)
	}
	return nil
}

// recordedTimeout is the timeout as a run records it: "0s" for none.
func (f *Plan) recordedTimeout() string {
	return max(f.Timeout, 0).String()
}

func (ss *session) closeSpills() {
	ss.tmp.Close()
}

// keepCases reports whether the runs must keep their case results in
// memory: a comparison with a baseline pairs every case, and trial
// statistics (Trials > 1, or a gate or ordering that needs the cases:
// gate.Expr.NeedsCases) group a case's trials. It is decided from the
// parsed expressions, not from their text.
func (ss *session) keepCases() bool {
	if (ss.base != nil && !ss.single) || ss.f.Trials > 1 {
		return true
	}
	for _, o := range ss.orderings {
		if o.NeedsCases() {
			return true
		}
	}
	for _, e := range ss.exprs {
		if e.NeedsCases() {
			return true
		}
	}
	return false
}

type histKey struct{ base, run *assay.Run }

// history is History of base and run (DefaultHistory runs), loaded once
// for both the run's gates and its comparison: the second use takes the
// runs the first loaded and lets them go. Loading them again held two
// copies of up to five whole runs at once.
func (ss *session) history(ctx context.Context, base, run *assay.Run) []*assay.Run {
	k := histKey{base, run}
	if h, ok := ss.hist[k]; ok {
		delete(ss.hist, k)
		return h
	}
	h := History(ctx, ss.st, base, run, 0)
	if ss.hist == nil {
		ss.hist = map[histKey][]*assay.Run{}
	}
	ss.hist[k] = h
	return h
}

// failing is the text summary's rule for a case it lists.
func failing(r assay.CaseResult) bool {
	return (r.Pass != nil && !*r.Pass) || (r.Pass == nil && r.Error != nil)
}

// runOne is one run (of a variant, when given): open the target, make
// the run's record, begin it in the store, stream the cases through the
// runner, then summarize, check the gates and finish the record.
func (ss *session) runOne(ctx context.Context, variant map[string]string, group string, base *assay.Run) (*assay.Run, gate.Verdict, error) {
	tgt, closeTarget, err := ss.openTarget(variant)
	if err != nil {
		return nil, gate.Verdict{}, inputError(err)
	}
	defer closeTarget()
	tgt, cacheNote := ss.withCache(tgt, variant)
	jdg, err := ss.judge.newJudge()
	if err != nil {
		return nil, gate.Verdict{}, inputError(err)
	}
	run := ss.newRecord(tgt, variant, group, jdg)
	b, err := ss.begin(ctx, run)
	if err != nil {
		return nil, gate.Verdict{}, err
	}
	defer b.abandon()
	st, err := ss.stream(ctx, tgt, run, b, jdg)
	if err != nil {
		run.FinishedAt = ss.f.Now().UTC()
		*run = redact.Value(ss.f.Secrets, *run)
		b.rw.Finish(run)
		return nil, gate.Verdict{}, inputError(err)
	}
	notes := cacheNote()
	if w, ok := b.sink.(SinkWarner); ok {
		notes = append(notes, w.Warnings()...)
	}
	verdict, err := ss.finish(ctx, run, st, base, notes, jdg)
	if err != nil {
		return nil, gate.Verdict{}, err
	}
	documentCases(b.rw, run)
	if err := b.rw.Finish(run); err != nil {
		return nil, gate.Verdict{}, inputError(fmt.Errorf(b.recordErr, err))
	}
	if err := b.close(true); err != nil {
		return nil, gate.Verdict{}, inputError(err)
	}
	return run, verdict, nil
}

// readBack is the stream of the results rw wrote to its directory dir,
// read back (a writer that buffers its lines writes them first).
func readBack(rw store.RunWriter, dir string) assay.Seq[assay.CaseResult] {
	return func(yield func(assay.CaseResult) error) error {
		if f, ok := rw.(store.Flusher); ok {
			if err := f.Flush(); err != nil {
				return err
			}
		}
		return store.ReadResults(dir, yield)
	}
}

// documentCases lets run.json and the other outputs of a run that
// streams its cases back from its writer write them from the bytes the
// writer encoded when they were appended (when it keeps them), not by
// reading the results back and encoding each again.
func documentCases(rw store.RunWriter, run *assay.Run) {
	if d, ok := rw.(store.CaseDocumenter); ok && len(run.Cases) == 0 && run.CaseStream != nil {
		run.CaseDocuments = d.CaseDocuments()
	}
}

// openTarget opens the plan's target (builtin:hybrid keeps document
// vectors in the store's cache), or takes the plan's System, and
// registers its secrets: from here on they are redacted from every
// result, record and output.
func (ss *session) openTarget(variant map[string]string) (assay.Target, func(), error) {
	f := ss.f
	tgt, closeTarget := f.System, func() {}
	if tgt == nil {
		var err error
		tgt, err = f.Targets.Open(ss.spec, seam.TargetOptions{Suite: ss.s, Getenv: f.Getenv, AllowLiteralSecrets: f.AllowLiteralSecrets, Keep: f.Keep, Variant: variant, CacheDir: cacheDir(f.StoreDir)})
		if err != nil {
			return nil, nil, err
		}
		if c, ok := tgt.(interface{ Close() error }); ok {
			closeTarget = func() { c.Close() }
		}
	}
	if h, ok := tgt.(assay.SecretHolder); ok {
		f.Secrets.Add(h.Secrets()...)
	}
	return tgt, closeTarget, nil
}

// newRecord is the record of a run about to start (incomplete).
func (ss *session) newRecord(tgt assay.Target, variant map[string]string, group string, jdg seam.Judge) *assay.Run {
	f, s := ss.f, ss.s
	metricNames := specNames(ss.gopts.Metrics)
	if ss.nuggets {
		metricNames = append(metricNames, assay.NuggetMetrics...)
	}
	if jdg != nil {
		metricNames = append(metricNames, jdg.MetricNames()...)
	}
	run := &assay.Run{
		Schema:         assay.RunSchema,
		RunID:          store.NewRunID(),
		Status:         assay.StatusIncomplete,
		Suite:          assay.SuiteRef{Name: s.Name, Fingerprint: ss.fingerprint, Path: s.Path, Cases: ss.total, Cluster: s.Cluster},
		Target:         assay.Describe(tgt, ss.spec),
		AssayVersion:   f.Version,
		GradingVersion: grade.Version,
		Git:            ss.git,
		Labels:         maps.Clone(f.Labels),
		Group:          group,
		Variant:        variant,
		Shard:          ss.shard,
		Options: assay.RunOptions{
			// More workers than observations would only idle (and a
			// million of them would start a million goroutines).
			K: s.Defaults.K, Trials: f.Trials, Concurrency: max(1, min(f.Concurrency, ss.n*f.Trials)), Timeout: f.recordedTimeout(),
			Cases: ss.selected, Tags: tagMap(f.Tags), Metrics: metricNames,
			Cache: ss.cache != nil, Margins: s.Margins,
			MaxCost: f.MaxCost, MaxTokens: f.MaxTokens,
		},
		StartedAt: f.Now().UTC(),
		Gain:      ss.gopts.Gain,
		TieRule:   report.TieRule,
	}
	if run.Gain == "" {
		run.Gain = assay.GainLinear
	}
	if group != "" {
		// The orderings are known before the first variant runs, and
		// are checked only after the last: each run records them.
		for _, o := range ss.orderings {
			run.Orderings = append(run.Orderings, o.Text)
		}
	}
	return run
}

// begun is a run begun: its writer in the store (or in a scratch
// directory) and the caller's sink.
type begun struct {
	rw        store.RunWriter
	recordErr string // how a failure of rw is reported
	sink      Sink
	closed    bool
}

// begin makes the run's directory (the store's, or a scratch one when
// there is none: made first, so that a run that cannot have one fails
// before any case), asks the caller for its sink and begins the record.
func (ss *session) begin(ctx context.Context, run *assay.Run) (*begun, error) {
	f := ss.f
	tmpErr := func(err error) error {
		return planError("TempDir", "set TMPDIR to a directory assay can write to, or give {StoreDir} DIR", "temporary directory for the case results: %v", err)
	}
	if ss.st == nil && ss.tmp == nil {
		var err error
		if ss.tmp, err = store.NewScratchDir(f.TempDir); err != nil {
			return nil, tmpErr(err)
		}
	}
	b := &begun{recordErr: "store: %w"}
	if ss.st == nil {
		b.recordErr = "temporary directory for the case results: %w"
	}
	if f.OnRun != nil {
		sink, err := f.OnRun(ss.s, run)
		if err != nil {
			return nil, inputError(err)
		}
		b.sink = sink
	}
	if ctx.Err() != nil {
		// Ctrl-C while the suite was read or the target opened: no case
		// ran, so nothing is stored.
		b.abandon()
		return nil, usageError("", "interrupted before the first case: nothing was run or stored")
	}
	*run = redact.Value(f.Secrets, *run)
	var err error
	if ss.st != nil {
		if b.rw, err = ss.st.Begin(ctx, run); err != nil {
			b.abandon()
			return nil, inputError(fmt.Errorf("store: %w", err))
		}
	} else if b.rw, err = store.BeginScratch(filepath.Join(ss.tmp.Path, run.RunID)); err != nil {
		b.abandon()
		return nil, tmpErr(err)
	}
	return b, nil
}

// close closes the sink once.
func (b *begun) close(ok bool) error {
	if b.closed || b.sink == nil {
		return nil
	}
	b.closed = true
	return b.sink.Close(ok)
}

// abandon closes the sink of a run that was not stored whole.
func (b *begun) abandon() { b.close(false) }

// streamed is what the stream of a run's cases leaves.
type streamed struct {
	res   runner.Result
	agg   *runner.Aggregator
	tally seam.JudgeTally
	check *judgeCheck        // the judge against its labels (nil without)
	kept  []assay.CaseResult // when keepCases
	// own is the compact form of the results, kept instead of them for
	// the comparison of a single run with a baseline.
	own *compare.Compact
	dir string // the run's directory ("" for a store without files)
	rw  store.RunWriter
}

// stream runs every case through the runner: each result goes to the
// caller's sink, the run's directory and the aggregator (and is kept
// when keepCases).
func (ss *session) stream(ctx context.Context, tgt assay.Target, run *assay.Run, b *begun, jdg seam.Judge) (*streamed, error) {
	f := ss.f
	keep := ss.keepCases()
	out := &streamed{agg: runner.NewAggregator(run.Options.Metrics), dir: b.rw.Dir(), rw: b.rw}
	if jdg != nil {
		out.tally = jdg.NewTally(f.Trials > 1)
		out.check = ss.judge.newCheck(jdg)
	}
	listed := 0 // failing cases whose query is kept for the summary
	emit := func(Event) {}
	if f.OnEvent != nil {
		emit = f.OnEvent
	}
	total := ss.n * f.Trials
	if keep {
		// Sized once: appended one by one, 100,000 kept results are
		// copied on every doubling and held twice at its peak.
		out.kept = make([]assay.CaseResult, 0, total)
	} else if ss.base != nil {
		out.own = &compare.Compact{}
	}
	emit(Event{Kind: Started, Total: total})
	var mu sync.Mutex
	res, err := runner.Stream(ctx, tgt, ss.src, runner.Options{
		Concurrency: run.Options.Concurrency,
		Trials:      f.Trials,
		Timeout:     f.Timeout,
		Grade:       ss.gopts,
		MaxErrors:   f.MaxErrors,
		Keep:        f.Keep,
		Redactor:    f.Secrets,
		Judge:       judgeHook(jdg, ss.s.Defaults.Judge, ss.gopts.NuggetNoVitalZero),
		Names:       corpus.NewNames(ss.s.Corpus),
		Prices:      ss.prices,
		MaxCost:     f.MaxCost,
		MaxTokens:   f.MaxTokens,
		Checks:      f.Checks,
		// r is graded on the raw observation and redacted by the runner.
		OnResult: func(c assay.Case, r assay.CaseResult) error {
			mu.Lock()
			defer mu.Unlock()
			r.Position = c.Position
			emit(Event{Kind: Observed, Total: total, Result: &r})
			if b.sink != nil {
				if err := b.sink.Add(c, r); err != nil {
					return err
				}
			}
			if err := b.rw.Append(r); err != nil {
				return fmt.Errorf(b.recordErr, err)
			}
			if sw, ok := b.rw.(store.SuiteCaseWriter); ok && r.Trial == 0 {
				if err := sw.AppendSuiteCase(storedCase(c, ss.s.Defaults.CaseSensitive, f.Secrets)); err != nil {
					return fmt.Errorf(b.recordErr, err)
				}
			}
			r = r.WithoutObservation()
			out.agg.Add(&r)
			if out.tally != nil {
				out.tally.Add(&r)
			}
			out.check.add(c, ss.s.Defaults.Judge, &r)
			if failing(r) && (f.MaxFailures == 0 || listed < f.MaxFailures) {
				listed++
				ss.failQueries[r.ID] = f.Secrets.String(c.Query)
			}
			if keep {
				out.kept = append(out.kept, r)
			}
			if out.own != nil {
				out.own.Add(&r)
			}
			return nil
		},
	})
	emit(Event{Kind: Finished, Total: total})
	if err != nil && !res.Complete && res.Stopped == err.Error() {
		// The suite could not be read to the end (it changed during the
		// run): the run stopped early, as at MaxErrors, and is reported
		// and stored as incomplete with what it observed.
		err = nil
	}
	out.res = res
	return out, err
}

// finish completes the record of a streamed run: status, versions,
// measures, warnings, summary and segments, judge totals, where its cases
// are read from, trial statistics and the gates; then redacts it.
func (ss *session) finish(ctx context.Context, run *assay.Run, st *streamed, base *assay.Run, cacheNotes []string, jdg seam.Judge) (gate.Verdict, error) {
	f, res := ss.f, st.res
	run.FinishedAt = f.Now().UTC()
	warnings := append([]string(nil), ss.warnings...)
	if res.Complete {
		run.Status = assay.StatusComplete
	} else {
		warnings = append(warnings, "run stopped early: "+res.Stopped)
	}
	if len(res.Versions) > 0 {
		if run.Target.Versions == nil {
			run.Target.Versions = map[string]string{}
		}
		for k, v := range res.Versions {
			if _, ok := run.Target.Versions[k]; !ok {
				run.Target.Versions[k] = v
			}
		}
	}
	run.Measures = res.Measures
	warnings = append(warnings, res.Warnings...)
	warnings = append(warnings, cacheNotes...)
	run.Summary = st.agg.Summary()
	run.Segments = st.agg.Segments()
	if run.Shard == nil { // a shard's coverage is warned about by its merge
		warnings = append(warnings, runner.CoverageWarnings(run.Summary, run.Options.Metrics, ss.gopts.K)...)
	}
	if st.tally != nil {
		run.Summary.Judge = st.tally.Summary()
		warnings = append(warnings, judgeWarnings(run.Summary.Judge)...)
		warnings = append(warnings, jdg.Warnings()...)
		w, err := st.check.finish(run.Summary.Judge)
		if err != nil {
			return gate.Verdict{}, err
		}
		warnings = append(warnings, w...)
	}
	if ss.keepCases() {
		run.Cases = st.kept
	} else {
		runDir := st.dir
		run.CaseStream = readBack(st.rw, runDir)
		if runDir == "" { // a store without files: read the results back from it
			s, id := ss.st, run.RunID
			run.CaseStream = func(yield func(assay.CaseResult) error) error {
				return s.Cases(context.WithoutCancel(ctx), id, false, yield)
			}
		}
	}
	if f.Trials > 1 {
		st := runner.Trials(run.Cases)
		run.Trials = &st
	}
	exprs := ss.runExprs()
	var hist []*assay.Run
	if base != nil {
		hist = ss.history(ctx, base, run)
	}
	verdict := st.check.gate(gate.EvaluateHistory(exprs, run, base, hist))
	run.Gates = verdict.Results
	if base != nil && len(exprs) > 0 {
		run.Baseline = base.RunID
	}
	warnings = append(warnings, verdict.Warnings...)
	if s := run.Summary; len(exprs) > 0 && s.Cases > 0 && s.Cached == s.Cases {
		warnings = append(warnings, fill("every case was answered from the response cache, not the system: the gates checked answers it gave before, and no latency is the system's; run without {Cache} to gate the system as it is now", f.Names))
	}
	run.Warnings = warnings
	// The run as kept and shown: everything in it is redacted (results
	// were already, by the runner).
	*run = redact.Value(f.Secrets, *run)
	if st.own != nil {
		st.own.Head = run
		ss.own = st.own
	}
	return verdict, nil
}

// withCache wraps tgt in the response cache when the plan has one and the
// target is of a kind that is cached; note returns the run's warnings about
// it (a kind not cached, entries that could not be read or written).
func (ss *session) withCache(tgt assay.Target, variant map[string]string) (assay.Target, func() []string) {
	if ss.cache == nil {
		return tgt, func() []string { return nil }
	}
	info := assay.Describe(tgt, ss.spec)
	var c assay.Target
	if info.Fingerprint != "" {
		c = ss.f.Targets.Cache(tgt, info, ss.cache, seam.CacheOptions{K: ss.s.Defaults.K, Variant: variant})
	}
	if c == nil {
		msg := fmt.Sprintf(fill("{Cache}: a %s target is not cached (only http and command targets are)", ss.f.Names), info.Kind)
		return tgt, func() []string { return []string{msg} }
	}
	if ss.f.Trials > 1 && !ss.f.CacheTrials {
		msg := fmt.Sprintf(fill("{Cache}: the cache was not used: each of the %d trials asks the system, since trials measure how its answers vary (give {CacheTrials} to answer them from the cache)", ss.f.Names), ss.f.Trials)
		return tgt, func() []string { return []string{msg} }
	}
	// Stored means redacted: the target's secrets (and any the plan
	// holds) never reach a cache file.
	ss.cache.Redact(ss.f.Secrets.Secrets()...)
	if w, ok := c.(interface{ Warnings() []string }); ok {
		return c, w.Warnings
	}
	return c, func() []string { return nil }
}

// baselineFor returns the run a variant's run is compared with. When
// Plan.Baseline names a run of a variant matrix (it has a group and a
// variant), that is the complete run of the same variant in that matrix,
// found in the store: comparing variant bm25 with the baseline's rm3 would
// report the difference between two systems as a regression. A variant the
// baseline's matrix has no run of is not compared, and note says so.
// Otherwise every variant is compared with the Plan.Baseline run.
func (ss *session) baselineFor(ctx context.Context, variant map[string]string) (base *assay.Run, note string, err error) {
	base = ss.base
	if base == nil || base.Group == "" || len(base.Variant) == 0 || len(variant) == 0 {
		return base, "", nil
	}
	name := gate.VariantName(variant)
	if gate.VariantName(base.Variant) == name {
		return base, "", nil
	}
	if ss.st != nil {
		entries, err := ss.st.List(ctx, store.Filter{Suite: base.Suite.Name, Status: assay.StatusComplete})
		if err != nil {
			return nil, "", err
		}
		for _, e := range entries {
			if e.Path != "" {
				// The header alone says whether it is the run: the cases
				// are read only for the one that is.
				h, err := store.PeekRun(e.Path)
				if err != nil || h.Group != base.Group || gate.VariantName(h.Variant) != name {
					continue
				}
				run, err := store.LoadRun(e.Path)
				return run, "", err
			}
			run, err := ss.st.Load(ctx, e.RunID)
			if err != nil || run.Group != base.Group || gate.VariantName(run.Variant) != name {
				continue
			}
			return run, "", nil
		}
	}
	return nil, fmt.Sprintf(fill("variant %s: not compared: the matrix of {Baseline} %s (group %s) has no complete run of it", ss.f.Names), name, ss.f.Baseline, report.ShortID(base.Group)), nil
}

// runMatrix runs every variant of a target file's matrix as its own run of
// one group, prints one table across them and checks the orderings.
func (ss *session) runMatrix(ctx context.Context, m seam.Matrix, res *Result) error {
	f := ss.f
	if ss.baseCompact != nil { // the variants' comparisons read it whole
		base, _, err := LoadBaseline(ctx, ss.st, f.Baseline, ss.s.Name)
		if err != nil {
			return err
		}
		ss.base, ss.baseCompact, res.Baseline = base, nil, base
	}
	var orderings []gate.Ordering
	for _, g := range m.Orderings {
		o, err := gate.ParseOrdering(g.Expr, g.Source)
		if err != nil {
			return inputError(err)
		}
		orderings = append(orderings, o)
		ss.orderings = append(ss.orderings, o)
	}
	// An ordering that names no variant of the matrix is a typo in the
	// target file: say so before any case runs, not after every variant.
	names := make([]string, len(m.Variants))
	known := map[string]bool{}
	for i, v := range m.Variants {
		names[i] = gate.VariantName(v)
		known[names[i]] = true
	}
	for _, o := range orderings {
		for _, v := range o.Variants {
			if !known[v] {
				return inputError(fmt.Errorf("%s: ordering %q: no variant %q (variants: %s)", o.Source, o.Text, v, strings.Join(names, ", ")))
			}
		}
	}
	// Each variant's files (a caller's trace, report directory) must be
	// its own: "a-b/c" and "a/b-c" would both write t.a-b-c.jsonl.
	files := map[string]string{}
	for _, n := range names {
		fn := strings.ReplaceAll(n, "/", "-")
		if other, dup := files[fn]; dup {
			return inputError(fmt.Errorf("%s: variants %s and %s would write the same files (%s): rename a value", ss.spec, other, n, fn))
		}
		files[fn] = n
	}
	// A gate scoped to a variant the matrix lacks ([variant=bm52]) would
	// apply to no run and never be checked.
	values := map[string]map[string]bool{"variant": known}
	for _, v := range m.Variants {
		for k, x := range v {
			if values[k] == nil {
				values[k] = map[string]bool{}
			}
			values[k][x] = true
		}
	}
	for i, e := range ss.exprs {
		g := ss.gates[i]
		if e.Scope == nil || values[e.Scope.Key] == nil || values[e.Scope.Key][e.Scope.Value] {
			continue
		}
		if e.Scope.Key == "variant" {
			return inputError(fmt.Errorf("%s: gate %q: no variant %q (variants: %s)", g.Source, g.Expr, e.Scope.Value, strings.Join(names, ", ")))
		}
		return inputError(fmt.Errorf("%s: gate %q: no variant has %s=%s (%s: %s)", g.Source, g.Expr, e.Scope.Key, e.Scope.Value, e.Scope.Key, strings.Join(slices.Sorted(maps.Keys(values[e.Scope.Key])), ", ")))
	}
	group := store.NewRunID()
	var runs []*assay.Run
	var verdicts []gate.Verdict
	var bases []*assay.Run // each variant's baseline (nil: not compared)
	var notes []string
	byName := map[string]*assay.Run{}
	pass, complete := true, true
	var invalid []string // gates that measure nothing (gate.Verdict.Errors)
	for _, v := range m.Variants {
		base, note, err := ss.baselineFor(ctx, v)
		if err != nil {
			return inputError(err)
		}
		if note != "" {
			notes = append(notes, note)
		}
		run, verdict, err := ss.runOne(ctx, v, group, base)
		if err != nil {
			return err
		}
		runs = append(runs, run)
		bases = append(bases, base)
		verdicts = append(verdicts, verdict)
		byName[gate.VariantName(v)] = run
		pass = pass && verdict.Pass
		invalid = append(invalid, verdict.Errors...)
		complete = complete && run.Status == assay.StatusComplete
		if ctx.Err() != nil {
			break
		}
	}
	// A matrix stopped between variants is incomplete too.
	complete = complete && len(runs) == len(m.Variants)
	ord := gate.CheckOrderings(orderings, byName)
	res.Matrix, res.Group, res.Orderings = true, group, ord
	res.Runs, res.Verdicts, res.Baselines, res.Notes = runs, verdicts, bases, notes
	res.Comparisons = make([]*compare.Report, len(runs))
	// A baseline: each variant's run is compared with its baseline
	// (baselineFor), as a single run is, with the earlier runs of its
	// system, and the comparisons are one family (compare.Matrix): a
	// regression of any variant fails the run, and the chance of a false
	// one across the matrix stays at alpha.
	var pairs []compare.Pair
	var compared []int
	for i, run := range runs {
		if bases[i] == nil {
			continue
		}
		pairs = append(pairs, compare.Pair{Base: bases[i], Cand: run, History: ss.history(ctx, bases[i], run)})
		compared = append(compared, i)
	}
	regressed := false
	for j, cmp := range compare.Matrix(pairs, compare.Options{}) {
		i := compared[j]
		res.Comparisons[i] = &cmp
		if cmp.PairedCases == 0 && runs[i].Status == assay.StatusComplete {
			return noCaseShared(f.Baseline)
		}
		regressed = regressed || cmp.Verdict == compare.Regressed
	}
	switch {
	case !complete:
		return &Error{Kind: Incomplete}
	case len(invalid) > 0:
		return gateErrors(invalid)
	}
	for _, run := range runs {
		if err := AllErrored(run); err != nil {
			return err
		}
	}
	switch {
	case !pass || !ord.Pass:
		return &Error{Kind: GateFailed}
	case regressed:
		return &Error{Kind: Regressed}
	case ss.noBaseline != nil && !f.AllowNoBaseline && len(orderings) == 0:
		return ss.noBaseline
	}
	return nil
}

// selectCases applies the Cases and Tags filters and K (when > 0) to the
// suite's cases, in suite order, and counts them. With filters it reads
// the cases once to count them and to check that every case named exists.
func selectCases(st *suite.Streamed, ids, tags []string, k int) (assay.Seq[assay.Case], int, error) {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	tm := map[string]string{}
	for _, t := range tags {
		key, v, ok := strings.Cut(t, "=")
		if !ok || key == "" {
			return nil, 0, planError("Tags", "write {Tags} key=value, e.g. {Tags} lang=en", "bad {Tags} %q", t)
		}
		tm[key] = v
	}
	if st.N == 0 {
		return nil, 0, usageError("", "the suite has no cases")
	}
	match := func(c assay.Case) bool {
		if len(want) > 0 && !want[c.ID] {
			return false
		}
		for key, v := range tm {
			if c.Tags[key] != v {
				return false
			}
		}
		return true
	}
	src := assay.Seq[assay.Case](func(yield func(assay.Case) error) error {
		return st.Cases(func(c assay.Case) error {
			if !match(c) {
				return nil
			}
			if k > 0 {
				c.K = k
			}
			return yield(c)
		})
	})
	if len(ids) == 0 && len(tm) == 0 {
		return src, st.N, nil
	}
	found := map[string]bool{}
	n := 0
	err := st.Cases(func(c assay.Case) error {
		if want[c.ID] {
			found[c.ID] = true
		}
		if match(c) {
			n++
		}
		return nil
	})
	if err != nil {
		return nil, 0, inputError(err)
	}
	for _, id := range ids {
		if !found[id] {
			return nil, 0, planError("Cases", "", "{Cases} %q: no such case in the suite", id)
		}
	}
	if n == 0 {
		return nil, 0, usageError("", "no case matches the filters")
	}
	return src, n, nil
}

func tagMap(tags []string) map[string]string {
	if len(tags) == 0 {
		return nil
	}
	m := map[string]string{}
	for _, t := range tags {
		k, v, _ := strings.Cut(t, "=")
		m[k] = v
	}
	return m
}

func specNames(specs []metric.Spec) []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.Name
	}
	return out
}

// storedCase is c as a run keeps it beside its results
// (store.SuiteCaseWriter): its query redacted, and its case sensitivity
// made explicit from the suite's default, so a view of the case needs
// nothing of the suite.
func storedCase(c assay.Case, caseSensitive bool, secrets *redact.Redactor) assay.Case {
	c.Query = secrets.String(c.Query)
	if len(c.Turns) > 0 {
		turns := make([]assay.Turn, len(c.Turns))
		for i, t := range c.Turns {
			t.Query = secrets.String(t.Query)
			turns[i] = t
		}
		c.Turns = turns
	}
	if c.Expect.CaseSensitive == nil {
		c.Expect.CaseSensitive = &caseSensitive
	}
	return c
}
