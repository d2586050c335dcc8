package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/grade"
	"github.com/assay-eval/assay/metric"
	"github.com/assay-eval/assay/redact"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/runner"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/suite"
	"github.com/assay-eval/assay/target"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

type runFlags struct {
	target      string
	k           int
	trials      int
	concurrency int
	timeout     time.Duration
	cases       []string
	tags        []string
	storeDir    string
	noStore     bool
	jsonOut     string
	record      string
	baseline    string
	gates       []string
	split       string
	maxErrors   int
	keep        bool
	allowSecret bool
	maxFailures int
	junit       string
	markdown    string
	badge       string
	reportDir   string
	trecRun     string
	trecQrels   string
	trecTag     string
}

func newRunCmd(env *Env) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run SUITE",
		Short: "Run a golden set against a target, grade it, store it and check its gates",
		Long: `Run every case of SUITE against a target, grade the answers, compute the IR
metrics, store the run and check the gates.

SUITE is a native suite (assay: 1, YAML or JSON) or any format assay reads
(GNO, kebab, Knowlex, a BEIR directory, TREC). The target defaults to the
built-in BM25 baseline over the suite's corpus.

Exit status: 0 the run completed and every gate held; 1 a gate failed or the
comparison with --baseline regressed; 2 usage, input or harness error, or an
incomplete run.`,
		Args: exactArgs(1, "assay run SUITE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRun(env, args[0], f, cmd)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.target, "target", "", "system under test `SPEC`: "+strings.Join(target.Kinds, ", ")+" (default builtin when the suite has a corpus)")
	fl.IntVarP(&f.k, "k", "k", 0, "results asked of the target per case (default: the suite's, else 10)")
	fl.IntVar(&f.trials, "trials", 1, "observations per case (at most 10000)")
	fl.IntVarP(&f.concurrency, "concurrency", "j", runner.DefaultConcurrency, "cases in flight")
	fl.DurationVar(&f.timeout, "timeout", runner.DefaultTimeout, "per-case timeout (0: none)")
	fl.StringArrayVar(&f.cases, "case", nil, "run only the case `ID` (repeatable)")
	fl.StringArrayVar(&f.tags, "tag", nil, "run only cases with the tag `KEY=VALUE` (repeatable; all must match)")
	fl.StringVar(&f.storeDir, "store", "", "run store `DIR` (default $ASSAY_STORE, else .assay)")
	fl.BoolVar(&f.noStore, "no-store", false, "write no run record")
	fl.StringVar(&f.jsonOut, "json", "", "write the assay.run/v1 JSON to `FILE` (- for stdout)")
	fl.StringVar(&f.record, "record", "", "write every observation to `FILE` in the trace format (replay it with --target replay:FILE)")
	fl.StringVar(&f.baseline, "baseline", "", "compare with the run `REF` (id, prefix, run.json path, latest, latest~N); exit 1 on a regression")
	fl.StringArrayVar(&f.gates, "gate", nil, "gate `EXPR`, e.g. 'pass_rate >= 0.8' (repeatable; added to the suite's)")
	fl.StringVar(&f.split, "split", "", "qrels split of a BEIR directory (default test)")
	fl.IntVar(&f.maxErrors, "max-errors", 0, "stop the run (exit 2) after `N` errored observations (0: never)")
	fl.BoolVar(&f.keep, "keep", false, "skip the target's cleanup steps")
	fl.BoolVar(&f.allowSecret, "allow-literal-secrets", false, "accept literal Authorization or Cookie values in a target file")
	fl.IntVar(&f.maxFailures, "max-failures", 50, "`N` failing cases listed in the summary (0: all)")
	fl.StringVar(&f.junit, "junit", "", "write a JUnit XML report to `FILE` (- for stdout)")
	fl.StringVar(&f.markdown, "markdown", "", "write a markdown summary to `FILE` (- for stdout; also appended to $GITHUB_STEP_SUMMARY)")
	fl.StringVar(&f.badge, "badge", "", "write a shields.io endpoint badge JSON to `FILE` (- for stdout; one per variant for a matrix)")
	fl.StringVar(&f.reportDir, "report-dir", "", "write `DIR`/YYYY-MM-DD.json, DIR/latest.md and DIR/badge.json (DIR/VARIANT/ for a matrix)")
	fl.StringVar(&f.trecRun, "trec-run", "", "write each case's ranking to `FILE` as a TREC run (qid Q0 docno rank score tag), for trec_eval, ranx or ir_measures")
	fl.StringVar(&f.trecQrels, "trec-qrels", "", "write the judgments of the cases run to `FILE` as TREC qrels (qid 0 docno grade)")
	fl.StringVar(&f.trecTag, "trec-tag", "", "the run tag of --trec-run (default the run id)")
	return cmd
}

// exactArgs is cobra.ExactArgs with a usage line in the error.
func exactArgs(n int, usage string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError("usage: "+usage, "%s takes %d argument(s), got %d", cmd.CommandPath(), n, len(args))
		}
		return nil
	}
}

// session is what every run of one `assay run` shares: the loaded suite,
// the selected cases, the grading options, the gates, the store and the
// baseline. A target file with variants: makes one run per variant.
//
// The cases are not held in memory: src reads them from the suite (which
// package suite streams from its file when it can), and each run's results
// go to a spill file the reports and the store read back. Only what needs
// every case at once keeps them: a comparison with --baseline, trial
// statistics (--trials > 1) and the gates on them (keepCases).
type session struct {
	env   *Env
	f     *runFlags
	s     *assay.Suite
	src   runner.Source
	n     int // cases selected
	total int // cases in the suite
	// failQueries holds the queries of the failing cases the text summary
	// lists (at most --max-failures per run).
	failQueries map[string]string
	spill       *spillFile // every run's results, one segment each
	// orderings are the texts of the matrix's orderings (keepCases reads them).
	orderings []string
	gopts     grade.Options
	gates     []assay.Gate
	st        *store.SQLiteStore
	base      *assay.Run
	spec      string
	warnings  []string
	// Computed once for every run of the session (a matrix has several).
	fingerprint string
	git         *assay.GitInfo
}

func runRun(env *Env, path string, f *runFlags, cmd *cobra.Command) error {
	ctx := env.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	ss, err := prepareRun(ctx, env, path, f)
	if err != nil {
		return err
	}
	if ss.st != nil {
		defer ss.st.Close()
	}
	defer ss.closeSpills()
	var matrix target.Matrix
	if target.IsFile(ss.spec) {
		if matrix, err = target.ReadMatrix(ss.spec); err != nil {
			return inputError(err)
		}
	}
	if len(matrix.Variants) > 0 {
		if f.badge == "-" && len(matrix.Variants) > 1 {
			// One badge per variant: several JSON documents on stdout
			// would make none of them a valid endpoint badge.
			return usageError("give --badge a file: badge.json writes badge.VARIANT.json per variant", "--badge - writes one badge, and the matrix has %d variants", len(matrix.Variants))
		}
		return ss.runMatrix(ctx, matrix)
	}

	run, verdict, err := ss.runOne(ctx, nil, "", ss.base)
	if err != nil {
		return err
	}
	// Outputs.
	textOut := f.textOut(env)
	if err := report.Text(textOut, run, report.TextOptions{MaxFailures: f.maxFailures, Queries: ss.failQueries}); err != nil {
		return inputError(err)
	}
	if f.jsonOut != "" {
		if err := writeTo(env, f.jsonOut, func(w io.Writer) error { return report.JSON(w, run) }); err != nil {
			return inputError(err)
		}
	}
	var cmp *compare.Report
	if ss.base != nil {
		cmp, err = printComparison(textOut, ss.base, run)
		if err != nil {
			return inputError(err)
		}
	}
	if err := writeCIOutputs(env, f, run, verdict, cmp); err != nil {
		return inputError(err)
	}
	regressed := cmp != nil && cmp.Verdict == compare.Regressed
	if cmp != nil && cmp.PairedCases == 0 && run.Status == assay.StatusComplete {
		return usageError("give a --baseline run of the same suite", "--baseline %s shares no case with this run: nothing was compared", f.baseline)
	}

	switch {
	case run.Status != assay.StatusComplete:
		return silentExit(exitHarness)
	case len(verdict.Errors) > 0:
		return gateErrors(verdict.Errors)
	case !verdict.Pass || regressed:
		return failed()
	}
	return nil
}

// prepareRun loads and checks everything a run needs before any case is
// sent, so a bad suite, gate, target or store fails with exit 2 up front.
func prepareRun(ctx context.Context, env *Env, path string, f *runFlags) (*session, error) {
	st, err := suite.Stream(path, suite.LoadOptions{Split: f.split})
	if err != nil {
		return nil, inputError(err)
	}
	s := st.Suite
	ss := &session{env: env, f: f, s: s, total: st.N, fingerprint: st.Fingerprint, git: store.GitInfo(s.Dir), failQueries: map[string]string{}}
	ss.warnings = append(ss.warnings, s.Warnings...)
	ss.warnings = append(ss.warnings, suite.CheckManifestStreamed(st)...)

	if ss.src, ss.n, err = selectCases(st, f.cases, f.tags, f.k); err != nil {
		return nil, err
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	if f.k > 0 {
		s.Defaults.K = f.k
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
	ss.gates = append([]assay.Gate(nil), s.Gates...)
	for _, g := range f.gates {
		ss.gates = append(ss.gates, assay.Gate{Expr: g, Source: "--gate"})
	}
	exprs := make([]gate.Expr, 0, len(ss.gates))
	for _, g := range ss.gates {
		e, err := gate.Parse(g.Expr, g.Source)
		if err != nil {
			return nil, inputError(err)
		}
		exprs = append(exprs, e)
	}
	if f.baseline == "" {
		keep, skipped, err := withoutBaseline(exprs, false)
		if err != nil {
			return nil, err
		}
		ss.warnings = append(ss.warnings, skipped...)
		if len(keep) < len(exprs) {
			gates := ss.gates
			ss.gates = nil
			for i, e := range exprs {
				if !e.Kind.NeedsBaseline() {
					ss.gates = append(ss.gates, gates[i])
				}
			}
		}
	}
	ss.spec = f.target
	if ss.spec == "" {
		if len(s.Corpus) == 0 && s.CorpusSource != "" {
			return nil, usageError("add documents to it, or give --target", "the corpus of suite %s (%s) holds no documents, so the built-in target has nothing to search", s.Name, s.CorpusSource)
		}
		if len(s.Corpus) == 0 {
			return nil, usageError("give --target (for example --target replay:trace.jsonl or --target http://127.0.0.1:8080/ask)",
				"suite %s has no corpus, so the built-in target has nothing to search", s.Name)
		}
		ss.spec = "builtin"
	}
	if err := f.checkInputs(path, s.CorpusSource, ss.spec); err != nil {
		return nil, err
	}
	if !f.noStore {
		dir := f.storeDir
		if dir == "" {
			dir = env.Getenv("ASSAY_STORE")
		}
		if dir == "" {
			dir = ".assay"
		}
		if ss.st, err = store.OpenWith(dir, storeOptions(env, dir)); err != nil {
			return nil, inputError(err) // store.Open's errors name the store
		}
	}
	if f.baseline != "" {
		if ss.base, err = loadRef(env, ss.st, f.baseline); err != nil {
			if ss.st != nil {
				ss.st.Close()
			}
			return nil, inputError(err)
		}
	}
	return ss, nil
}

// maxTrials bounds --trials: every observation is kept for the run record,
// so --trials 100000000 ran the process out of memory before the first case.
const maxTrials = 10000

// check rejects flag values out of range, and two outputs both sent to
// stdout ("-"), before anything runs.
func (f *runFlags) check() error {
	switch {
	case f.k < 0:
		return usageError("", "-k must be >= 0 (0: the suite's), got %d", f.k)
	case f.trials < 1:
		return usageError("", "--trials must be >= 1, got %d", f.trials)
	case f.trials > maxTrials:
		return usageError("", "--trials must be <= %d, got %d", maxTrials, f.trials)
	case f.concurrency < 1:
		return usageError("", "-j must be >= 1, got %d", f.concurrency)
	case f.timeout < 0:
		return usageError("", "--timeout must be >= 0 (0: none), got %s", f.timeout)
	case f.maxErrors < 0:
		return usageError("", "--max-errors must be >= 0 (0: never stop), got %d", f.maxErrors)
	case f.maxFailures < 0:
		return usageError("", "--max-failures must be >= 0 (0: all), got %d", f.maxFailures)
	}
	if f.record == "-" {
		return usageError("", "--record writes a file: give a path, not -")
	}
	if err := distinctOutputs([]output{{"--json", f.jsonOut}, {"--markdown", f.markdown}, {"--junit", f.junit}, {"--badge", f.badge}, {"--record", f.record}, {"--trec-run", f.trecRun}, {"--trec-qrels", f.trecQrels}}); err != nil {
		return err
	}
	if err := f.checkTrec(); err != nil {
		return err
	}
	// An output that cannot be written fails now, not after the run.
	for _, o := range []struct{ flag, path string }{{"--json", f.jsonOut}, {"--markdown", f.markdown}, {"--junit", f.junit}, {"--badge", f.badge}, {"--record", f.record}, {"--trec-run", f.trecRun}, {"--trec-qrels", f.trecQrels}, {"--report-dir", f.reportDir}} {
		if o.path == "" || o.path == "-" {
			continue
		}
		dir := filepath.Dir(o.path)
		if o.flag == "--report-dir" {
			dir = o.path
		} else if fi, err := os.Stat(o.path); err == nil && fi.IsDir() {
			return usageError("", "%s %s: is a directory, want a file", o.flag, o.path)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return usageError("", "%s %s: %v", o.flag, o.path, err)
		}
	}
	return nil
}

// checkInputs rejects an output that names one of the run's inputs: --json
// suite.yaml replaced the golden set with the run's JSON. --record may name
// the replay trace it reads (it writes the same observations back).
func (f *runFlags) checkInputs(suitePath, corpus, spec string) error {
	type input struct{ what, path string }
	inputs := []input{{"the suite", suitePath}, {"the corpus", corpus}}
	if target.IsFile(spec) {
		inputs = append(inputs, input{"the target file", spec})
	}
	trace, isReplay := strings.CutPrefix(spec, "replay:")
	if isReplay {
		inputs = append(inputs, input{"the replay trace", trace})
	}
	for _, o := range []output{{"--json", f.jsonOut}, {"--markdown", f.markdown}, {"--junit", f.junit}, {"--badge", f.badge}, {"--record", f.record}, {"--trec-run", f.trecRun}, {"--trec-qrels", f.trecQrels}} {
		if o.path == "" || o.path == "-" {
			continue
		}
		for _, in := range inputs {
			if in.path == "" || (o.flag == "--record" && in.what == "the replay trace") {
				continue
			}
			if fi, err := os.Stat(in.path); err != nil || !fi.Mode().IsRegular() {
				continue
			}
			if sameFile(o.path, in.path) {
				return usageError("write it to another file", "%s %s would overwrite %s", o.flag, o.path, in.what)
			}
		}
	}
	return nil
}

// sameFile reports whether a (which may not exist yet) is the file b.
func sameFile(a, b string) bool {
	ai, err := os.Stat(a)
	if err != nil {
		return false
	}
	bi, err := os.Stat(b)
	return err == nil && os.SameFile(ai, bi)
}

// textOut is where the terminal summary goes: stderr when an output is
// written to stdout ("-"), so that stdout holds that document alone.
func (f *runFlags) textOut(env *Env) io.Writer {
	for _, p := range []string{f.jsonOut, f.markdown, f.junit, f.badge} {
		if p == "-" {
			return env.Stderr
		}
	}
	return env.Stdout
}

// runnerTimeout maps --timeout to the runner's: 0 means no timeout.
func (f *runFlags) runnerTimeout() time.Duration {
	if f.timeout == 0 {
		return -1
	}
	return f.timeout
}

func (ss *session) closeSpills() { ss.spill.close() }

// keepCases reports whether the runs must keep their case results in
// memory: a comparison with --baseline pairs every case, and trial
// statistics (--trials > 1, or a gate on flaky_cases, pass_any_rate,
// pass_all_rate or no_new_failures) group a case's trials.
func (ss *session) keepCases() bool {
	if ss.base != nil || ss.f.trials > 1 {
		return true
	}
	exprs := slices.Clone(ss.orderings)
	for _, g := range ss.gates {
		exprs = append(exprs, g.Expr)
	}
	for _, e := range exprs {
		for _, name := range []string{"flaky_cases", "pass_any_rate", "pass_all_rate", "no_new_failures"} {
			if strings.Contains(e, name) {
				return true
			}
		}
	}
	return false
}

// failing is the text summary's rule for a case it lists.
func failing(r assay.CaseResult) bool {
	return (r.Pass != nil && !*r.Pass) || (r.Pass == nil && r.Error != nil)
}

// runOne opens the target (for a variant, when given), runs every case,
// aggregates, evaluates the gates and stores the run.
func (ss *session) runOne(ctx context.Context, variant map[string]string, group string, base *assay.Run) (*assay.Run, gate.Verdict, error) {
	f, s, env := ss.f, ss.s, ss.env
	now := time.Now
	tgt, err := target.Open(ss.spec, target.Options{Suite: s, Getenv: env.Getenv, AllowLiteralSecrets: f.allowSecret, Keep: f.keep, Variant: variant})
	if err != nil {
		return nil, gate.Verdict{}, inputError(err)
	}
	defer target.Close(tgt)
	// From here on, the target's secrets are redacted from every result,
	// record, output and line printed.
	env.Secrets.Add(target.Secrets(tgt)...)
	// More workers than observations would only idle (and -j 1000000 would
	// start a million of them).
	conc := min(f.concurrency, ss.n*f.trials)

	run := &assay.Run{
		Schema:       assay.RunSchema,
		RunID:        store.NewRunID(),
		Status:       assay.StatusIncomplete,
		Suite:        assay.SuiteRef{Name: s.Name, Fingerprint: ss.fingerprint, Path: s.Path, Cases: ss.total},
		Target:       target.Describe(tgt, ss.spec),
		AssayVersion: version(),
		Git:          ss.git,
		Group:        group,
		Variant:      variant,
		Options: assay.RunOptions{
			K: s.Defaults.K, Trials: f.trials, Concurrency: conc, Timeout: f.timeout.String(),
			Cases: f.cases, Tags: tagMap(f.tags), Metrics: specNames(ss.gopts.Metrics),
		},
		StartedAt: now().UTC(),
		Gain:      ss.gopts.Gain,
		TieRule:   report.TieRule,
	}
	if run.Gain == "" {
		run.Gain = assay.GainLinear
	}

	// The spill file first: a run that cannot write it must not leave a
	// begun run in the store.
	if ss.spill == nil {
		if ss.spill, err = newSpillFile(); err != nil {
			return nil, gate.Verdict{}, usageError("set TMPDIR to a directory assay can write to", "%v", err)
		}
	}
	sp := ss.spill.segment()
	var vname string
	if variant != nil {
		vname = gate.VariantName(variant)
	}
	tout, err := openTrecOutputs(f, run.RunID, vname)
	if err != nil {
		return nil, gate.Verdict{}, inputError(err)
	}
	defer tout.close()

	if ctx.Err() != nil {
		// Ctrl-C while the suite was read or the target opened: no case
		// ran, so nothing is stored.
		return nil, gate.Verdict{}, usageError("", "interrupted before the first case: nothing was run or stored")
	}
	*run = redact.Value(env.Secrets, *run)
	var rw store.RunWriter
	if ss.st != nil {
		if rw, err = ss.st.Begin(ctx, run); err != nil {
			return nil, gate.Verdict{}, inputError(fmt.Errorf("store: %w", err))
		}
	}
	var rec *target.Recorder
	if f.record != "" {
		path := f.record
		if variant != nil {
			path = variantPath(path, gate.VariantName(variant))
		}
		if rec, err = target.NewRecorder(path); err != nil {
			return nil, gate.Verdict{}, inputError(err)
		}
	}

	keep := ss.keepCases()
	var kept []assay.CaseResult
	agg := runner.NewAggregator(run.Options.Metrics)
	listed := 0 // failing cases whose query is kept for the summary

	bar := newProgress(env.Stderr, ss.n*f.trials)
	var mu sync.Mutex
	res, err := runner.Stream(ctx, tgt, ss.src, runner.Options{
		Concurrency: conc,
		Trials:      f.trials,
		Timeout:     f.runnerTimeout(),
		Grade:       ss.gopts,
		MaxErrors:   f.maxErrors,
		Keep:        f.keep,
		Redactor:    env.Secrets,
		// r is graded on the raw observation and redacted by the runner.
		OnResult: func(c assay.Case, r assay.CaseResult) error {
			mu.Lock()
			defer mu.Unlock()
			if bar != nil {
				bar.Add(1)
			}
			if rec != nil && r.Observation != nil {
				if err := rec.Write(*r.Observation); err != nil {
					return fmt.Errorf("record %s: %w", f.record, err)
				}
			}
			if tout != nil {
				tout.add(c, r)
			}
			if rw != nil {
				if err := rw.Append(r); err != nil {
					return fmt.Errorf("store: %w", err)
				}
			}
			r.Observation = nil
			agg.Add(&r)
			if failing(r) && (f.maxFailures == 0 || listed < f.maxFailures) {
				listed++
				ss.failQueries[r.ID] = env.Secrets.String(c.Query)
			}
			if keep {
				kept = append(kept, r)
			}
			return sp.add(r)
		},
	})
	if bar != nil {
		bar.Finish()
		fmt.Fprintln(env.Stderr)
	}
	if err != nil && !res.Complete && res.Stopped == err.Error() {
		// The suite could not be read to the end (it changed during the
		// run): the run stopped early, like --max-errors, and is reported
		// and stored as incomplete with what it observed.
		err = nil
	}
	if rec != nil {
		if cerr := rec.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("record %s: %w", f.record, cerr)
		}
	}
	if err != nil {
		if rw != nil {
			run.FinishedAt = now().UTC()
			*run = redact.Value(env.Secrets, *run)
			rw.Finish(run)
		}
		return nil, gate.Verdict{}, inputError(err)
	}

	run.FinishedAt = now().UTC()
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
	warnings = append(warnings, res.Warnings...)
	run.Summary = agg.Summary()
	run.Segments = agg.Segments()
	if keep {
		run.Cases = kept
	} else {
		run.CaseStream = sp.each
	}
	if f.trials > 1 {
		run.Trials = gate.Trials(run.Cases)
	}
	verdict, err := gate.Evaluate(ss.gates, run, base)
	if err != nil {
		return nil, gate.Verdict{}, inputError(err)
	}
	run.Gates = verdict.Results
	warnings = append(warnings, verdict.Warnings...)
	run.Warnings = warnings
	// The run as kept and shown: everything in it is redacted (results
	// were already, by the runner).
	*run = redact.Value(env.Secrets, *run)

	if rw != nil {
		if err := rw.Finish(run); err != nil {
			return nil, gate.Verdict{}, inputError(fmt.Errorf("store: %w", err))
		}
	}
	if tout != nil {
		if err := tout.finish(); err != nil {
			return nil, gate.Verdict{}, inputError(err)
		}
	}
	return run, verdict, nil
}

// baselineFor returns the run a variant's run is compared with. When
// --baseline names a run of a variant matrix (it has a group and a
// variant), that is the complete run of the same variant in that matrix,
// found in the store: comparing variant bm25 with the baseline's rm3 would
// report the difference between two systems as a regression. A variant the
// baseline's matrix has no run of is not compared, and note says so.
// Otherwise every variant is compared with the --baseline run.
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
			h, err := store.PeekRun(e.Path)
			if err != nil || h.Group != base.Group || gate.VariantName(h.Variant) != name {
				continue
			}
			run, err := store.LoadRun(e.Path)
			return run, "", err
		}
	}
	return nil, fmt.Sprintf("variant %s: not compared: the matrix of --baseline %s (group %s) has no complete run of it", name, ss.f.baseline, shortID(base.Group)), nil
}

// variantPath inserts a variant name before a file's extension:
// t.jsonl -> t.rm3.jsonl.
func variantPath(path, name string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "." + strings.ReplaceAll(name, "/", "-") + ext
}

// runMatrix runs every variant of a target file's matrix as its own run of
// one group, prints one table across them and checks the orderings.
func (ss *session) runMatrix(ctx context.Context, m target.Matrix) error {
	env, f := ss.env, ss.f
	var orderings []gate.Ordering
	for _, g := range m.Orderings {
		o, err := gate.ParseOrdering(g.Expr, g.Source)
		if err != nil {
			return inputError(err)
		}
		orderings = append(orderings, o)
		ss.orderings = append(ss.orderings, g.Expr)
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
	// Each variant's --record file and --report-dir subdirectory must be
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
	for _, g := range ss.gates {
		e, err := gate.Parse(g.Expr, g.Source)
		if err != nil || e.Scope == nil || values[e.Scope.Key] == nil || values[e.Scope.Key][e.Scope.Value] {
			continue
		}
		if e.Scope.Key == "variant" {
			return inputError(fmt.Errorf("%s: gate %q: no variant %q (variants: %s)", g.Source, g.Expr, e.Scope.Value, strings.Join(names, ", ")))
		}
		return inputError(fmt.Errorf("%s: gate %q: no variant has %s=%s (%s: %s)", g.Source, g.Expr, e.Scope.Key, e.Scope.Value, e.Scope.Key, strings.Join(sortedKeys(values[e.Scope.Key]), ", ")))
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
	textOut := f.textOut(env)
	if err := report.MatrixText(textOut, runs, ord, report.TextOptions{MaxFailures: f.maxFailures, Queries: ss.failQueries}); err != nil {
		return inputError(err)
	}
	// --baseline: each variant's run is compared with its baseline
	// (baselineFor), as a single run is; a regression of any variant fails
	// the run.
	regressed := false
	if ss.base != nil {
		for _, n := range notes {
			fmt.Fprintf(textOut, "\n%s\n", n)
		}
		for i, run := range runs {
			if bases[i] == nil {
				continue
			}
			fmt.Fprintf(textOut, "\nvariant %s vs --baseline %s", gate.VariantName(run.Variant), f.baseline)
			if bases[i] != ss.base {
				fmt.Fprintf(textOut, " (its run %s of variant %s)", shortID(bases[i].RunID), gate.VariantName(bases[i].Variant))
			}
			fmt.Fprintln(textOut)
			cmp, err := printComparison(textOut, bases[i], run)
			if err != nil {
				return inputError(err)
			}
			if cmp.PairedCases == 0 && run.Status == assay.StatusComplete {
				return usageError("give a --baseline run of the same suite", "--baseline %s shares no case with this run: nothing was compared", f.baseline)
			}
			regressed = regressed || cmp.Verdict == compare.Regressed
		}
	}
	if f.jsonOut != "" {
		if err := writeTo(env, f.jsonOut, func(w io.Writer) error { return report.MatrixJSON(w, group, runs, ord) }); err != nil {
			return inputError(err)
		}
	}
	if f.junit != "" {
		if err := writeTo(env, f.junit, func(w io.Writer) error { return report.JUnitMatrix(w, runs, ord) }); err != nil {
			return inputError(err)
		}
	}
	md := func(w io.Writer) error { return report.MarkdownMatrix(w, runs, ord) }
	if f.markdown != "" {
		if err := writeTo(env, f.markdown, md); err != nil {
			return inputError(err)
		}
	}
	if p := env.Getenv("GITHUB_STEP_SUMMARY"); p != "" && (f.markdown != "" || f.reportDir != "") {
		if err := appendTo(p, md); err != nil {
			return inputError(fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err))
		}
	}
	// The badge and the report directory describe one run: one per variant
	// (badge.json -> badge.rm3.json; DIR/rm3/).
	for i, run := range runs {
		name := gate.VariantName(run.Variant)
		if f.badge != "" {
			path := f.badge
			if path != "-" {
				path = variantPath(path, name)
			}
			if err := writeTo(env, path, func(w io.Writer) error { return report.Badge(w, run, verdicts[i]) }); err != nil {
				return inputError(err)
			}
		}
		if f.reportDir != "" {
			dir := filepath.Join(f.reportDir, strings.ReplaceAll(name, "/", "-"))
			if _, err := report.WriteReportDir(dir, run, nil, verdicts[i], run.StartedAt); err != nil {
				return inputError(fmt.Errorf("--report-dir %s: %w", dir, err))
			}
		}
	}
	switch {
	case !complete:
		return silentExit(exitHarness)
	case len(invalid) > 0:
		return gateErrors(invalid)
	case !pass || !ord.Pass || regressed:
		return failed()
	}
	return nil
}

// selectCases applies --case and --tag filters and -k (when > 0) to the
// suite's cases, in suite order, and counts them. With filters it reads
// the cases once to count them and to check that every --case exists.
func selectCases(st *suite.Streamed, ids, tags []string, k int) (runner.Source, int, error) {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	tm := map[string]string{}
	for _, t := range tags {
		key, v, ok := strings.Cut(t, "=")
		if !ok || key == "" {
			return nil, 0, usageError("write --tag key=value, e.g. --tag lang=en", "bad --tag %q", t)
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
	src := runner.Source(func(yield func(assay.Case) error) error {
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
			return nil, 0, usageError("", "--case %q: no such case in the suite", id)
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

// writeTo writes to a file, or stdout for "-".
func writeTo(env *Env, path string, fn func(io.Writer) error) error {
	fn = redacting(env, fn)
	if path == "-" {
		return fn(env.Stdout)
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return replaceFile(path, fn)
}

// redacting returns fn writing through the one redaction rule.
func redacting(env *Env, fn func(io.Writer) error) func(io.Writer) error {
	if env.Secrets.Empty() {
		return fn
	}
	return func(w io.Writer) error {
		rw := redact.NewWriter(w, env.Secrets)
		err := fn(rw)
		if ferr := rw.Flush(); err == nil {
			err = ferr
		}
		return err
	}
}

// loadRef resolves a run reference (see resolveRunRef) and loads the run.
func loadRef(env *Env, st *store.SQLiteStore, ref string) (*assay.Run, error) {
	p, err := resolveRunRef(env, st, ref)
	if err != nil {
		return nil, err
	}
	return store.LoadRun(p)
}

type progress interface {
	Add(int) error
	Finish() error
}

// newProgress returns a progress bar on stderr when it is a terminal.
func newProgress(w io.Writer, total int) progress {
	if !isTerminal(w) || total < 2 {
		return nil
	}
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("cases"),
		progressbar.OptionShowCount(),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100*time.Millisecond),
	)
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// shortID is the first 13 characters of a run or group id, as the reports
// print them.
func shortID(id string) string {
	if len(id) > 13 {
		return id[:13]
	}
	return id
}
