package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/runner"
	"github.com/assay-eval/assay/target"
	"github.com/assay-eval/assay/ui"
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
	strict      bool
	watch       bool
	html        string
	judge       harness.JudgeOptions
	cache       bool
	shard       string
	group       string
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
		Example: `  assay run examples/quickstart/suite.yaml
  assay run suite.yaml --target http://127.0.0.1:8088/ask --baseline latest --junit junit.xml
  assay run suite.yaml --target replay:trace.jsonl --no-store --json - --strict`,
		Args: exactArgs(1, "assay run SUITE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRun(env, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.target, "target", "", "system under test `SPEC`: "+strings.Join(target.Kinds, ", ")+" (default builtin when the suite has a corpus)")
	fl.IntVarP(&f.k, "k", "k", 0, "`N` results asked of the target per case (default: the suite's, else 10)")
	fl.IntVar(&f.trials, "trials", 1, "`N` observations per case (at most 10000)")
	fl.IntVarP(&f.concurrency, "concurrency", "j", runner.DefaultConcurrency, "`N` cases in flight")
	fl.DurationVar(&f.timeout, "timeout", runner.DefaultTimeout, "per-case timeout `D`, a Go duration (0: none)")
	fl.StringArrayVar(&f.cases, "case", nil, "run only the case `ID` (repeatable)")
	fl.StringArrayVar(&f.tags, "tag", nil, "run only cases with the tag `KEY=VALUE` (repeatable; all must match)")
	fl.StringVar(&f.storeDir, "store", "", "run store `DIR` (default $ASSAY_STORE, else .assay)")
	fl.BoolVar(&f.noStore, "no-store", false, "write no run record")
	fl.StringVar(&f.jsonOut, "json", "", "write the assay.run/v1 JSON to `FILE` (- for stdout)")
	fl.StringVar(&f.record, "record", "", "write every observation to `FILE` in the trace format (replay it with --target replay:FILE)")
	fl.StringVar(&f.baseline, "baseline", "", "compare with the run `REF` (id, prefix, run.json path, latest, latest~N); exit 1 on a regression")
	fl.StringArrayVar(&f.gates, "gate", nil, "gate `EXPR`, e.g. 'pass_rate >= 0.8' (repeatable; added to the suite's)")
	fl.StringVar(&f.split, "split", "", "qrels split `NAME` of a BEIR directory (default test)")
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
	fl.BoolVar(&f.strict, "strict", false, "exit 1 when any graded case does not pass, gates or not")
	fl.BoolVar(&f.watch, "watch", false, "run again whenever the suite, its corpus, schema files, the target file or trace change; Ctrl-C stops, with the last run's exit status")
	fl.StringVar(&f.html, "html", "", "write the static HTML report of the run into `DIR` (assay report --html)")
	fl.BoolVar(&f.cache, "cache", false, "answer http and command targets from the response cache under the store, and fill it (docs/cache.md)")
	fl.StringVar(&f.trecTag, "trec-tag", "", "the run `TAG` of --trec-run (default the run id)")
	fl.StringVar(&f.judge.File, "judge", "", "judge the answers with the model judge defined in `FILE` (replaces the suite's judge:)")
	fl.BoolVar(&f.judge.Off, "no-judge", false, "do not run the suite's judge")
	fl.IntVar(&f.judge.Repeats, "judge-repeats", 0, "ask the judge `N` times per case (different seeds) and report its agreement")
	fl.StringVar(&f.shard, "shard", "", "run slice `I/N` (0-based) of the cases, as a shard of --group; assay merge checks the gates")
	fl.StringVar(&f.group, "group", "", "shard group `NAME` (default from the suite fingerprint, git commit and CI run id)")
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

func runRun(env *Env, path string, f *runFlags) error {
	ctx := env.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	p := harness.Plan{
		SuitePath: path, Split: f.split, Target: f.target,
		Cases: f.cases, Tags: f.tags, K: f.k,
		Trials: f.trials, Concurrency: f.concurrency, Timeout: f.timeout, MaxErrors: f.maxErrors,
		Keep: f.keep, AllowLiteralSecrets: f.allowSecret, Cache: f.cache, Judge: f.judge,
		Baseline: f.baseline, Gates: f.gates, Shard: f.shard, Group: f.group, MaxFailures: f.maxFailures, Strict: f.strict,
		JSON: f.jsonOut, JUnit: f.junit, Markdown: f.markdown, Badge: f.badge, ReportDir: f.reportDir,
		Record: f.record, TrecRun: f.trecRun, TrecQrels: f.trecQrels, TrecTag: f.trecTag,
		Stdout: env.Stdout, Getenv: env.Getenv, TempDir: env.Getenv("TMPDIR"), Secrets: env.Secrets, Version: harness.Build().Version,
	}
	if !f.noStore {
		dir, _ := storeRoot(env, f.storeDir)
		p.StoreDir, p.StoreOptions = dir, storeOptions(env, dir)
	}
	// A bar on a terminal, plain lines elsewhere (a CI log).
	var bar progress
	var lines *report.ProgressLines
	stop := func() {}
	defer func() { stop() }()
	p.OnEvent = func(e harness.Event) {
		switch e.Kind {
		case harness.Started:
			stop()
			if bar = newProgress(env.Stderr, e.Total); bar == nil && !isTerminal(env.Stderr) {
				lines = report.NewProgressLines(env.Stderr, e.Total, env.now)
				stop = lines.Every(time.Second)
			}
		case harness.Observed:
			if bar != nil {
				bar.Add(1)
			} else if lines != nil && e.Result != nil {
				lines.Observe(*e.Result)
			}
		case harness.Finished:
			stop()
			if bar != nil {
				bar.Finish()
				fmt.Fprintln(env.Stderr)
			}
		}
	}
	if f.html != "" && (f.noStore || f.watch) {
		return usageError("leave out --no-store and --watch", "--html writes the report of the stored run: it cannot go with --no-store or --watch")
	}
	if f.watch {
		return (&harness.Watch{Plan: p, Out: f.textOut(env), Text: report.TextOptions{MaxFailures: f.maxFailures}, OnError: func(err error) { printError(env.Stderr, err) }}).Run(ctx)
	}
	res, err := harness.Run(ctx, p)
	if res == nil {
		return err
	}
	defer res.Close()
	opts := report.TextOptions{MaxFailures: f.maxFailures, Queries: res.FailQueries}
	if rerr := res.WriteText(f.textOut(env), p, opts); rerr != nil {
		return inputError(rerr)
	}
	if _, herr := ui.WriteResult(ctx, f.html, p, res, f.baseline); herr != nil {
		return inputError(herr)
	}
	return err
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
