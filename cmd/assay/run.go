package main

import (
	"context"
	"io"
	"slices"
	"strings"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/runner"
	"github.com/assay-eval/assay/target"
	"github.com/spf13/cobra"
)

// runFlags are the flags of assay run that are not fields of its plan.
type runFlags struct {
	storeDir string
	noStore  bool
	watch    bool
	html     string
	failOn   string
	dryRun   bool
	labels   []string
}

func newRunCmd(env *Env) *cobra.Command {
	f, p := &runFlags{}, &cli.RunPlan{}
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
			return runRun(env, args[0], f, p)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&p.Target, "target", "", "system under test `SPEC`: "+strings.Join(target.Kinds, ", ")+" (default builtin when the suite has a corpus)")
	fl.IntVarP(&p.K, "k", "k", 0, "`N` results asked of the target per case (default: the suite's, else 10)")
	fl.IntVar(&p.Trials, "trials", 1, "`N` observations per case (at most 10000)")
	fl.IntVarP(&p.Concurrency, "concurrency", "j", runner.DefaultConcurrency, "`N` cases in flight")
	fl.DurationVar(&p.Timeout, "timeout", runner.DefaultTimeout, "per-case timeout `D`, a Go duration (0: none)")
	fl.StringArrayVar(&p.Cases, "case", nil, "run only the case `ID` (repeatable)")
	fl.StringVar(&p.Failed, "failed", "", "run only the cases that failed or errored in the run `REF` (a run of this suite)")
	fl.StringArrayVar(&p.Tags, "tag", nil, "run only cases with the tag `KEY=VALUE` (repeatable; all must match)")
	storeFlagVar(fl, &f.storeDir)
	fl.BoolVar(&f.noStore, "no-store", false, "write no run record")
	fl.StringVar(&p.JSON, "json", "", "write the assay.run/v1 JSON to `FILE` (- for stdout)")
	fl.StringVar(&p.Record, "record", "", "write every observation to `FILE` in the trace format (replay it with --target replay:FILE)")
	fl.StringVar(&p.Baseline, "baseline", "", "compare with the run `REF` (id, prefix, run.json path, latest, latest~N, latest@BRANCH, latest{KEY=VALUE}; latest is of this suite); exit 1 on a regression")
	fl.StringArrayVar(&f.labels, "label", nil, "record the label `KEY=VALUE` with the run (repeatable; branch, commit and env default to the CI's, KEY= records none); latest@BRANCH and latest{KEY=VALUE} select by them")
	fl.StringArrayVar(&p.Gates, "gate", nil, "gate `EXPR`, e.g. 'pass_rate >= 0.8' (repeatable; added to the suite's)")
	fl.StringVar(&p.Split, "split", "", "qrels split `NAME` of a BEIR directory (default test)")
	fl.IntVar(&p.MaxErrors, "max-errors", 0, "stop the run (exit 2) after `N` errored observations (0: never)")
	fl.BoolVar(&p.Keep, "keep", false, "skip the target's cleanup steps")
	fl.BoolVar(&p.AllowLiteralSecrets, "allow-literal-secrets", false, "accept literal Authorization or Cookie values in a target file")
	fl.IntVar(&p.MaxFailures, "max-failures", 50, "`N` failing cases listed in the summary (0: all)")
	fl.StringVar(&p.JUnit, "junit", "", "write a JUnit XML report to `FILE` (- for stdout)")
	fl.StringVar(&p.OTel, "otel", "", "write the results as OTLP/JSON traces to `FILE` (- for stdout): one gen_ai.evaluation.result event per check and metric")
	fl.StringVar(&p.Markdown, "markdown", "", "write a markdown summary to `FILE` (- for stdout; also appended to $GITHUB_STEP_SUMMARY)")
	fl.StringVar(&p.ReportURL, "report-url", "", "link each case the --markdown summary lists to its page of the HTML report served at `URL` (a URL or a relative path; the report of --html DIR)")
	fl.StringVar(&p.Badge, "badge", "", "write a shields.io endpoint badge JSON to `FILE` (- for stdout; one per variant for a matrix)")
	fl.StringVar(&p.ReportDir, "report-dir", "", "write `DIR`/YYYY-MM-DD.json, DIR/latest.md and DIR/badge.json (DIR/VARIANT/ for a matrix)")
	fl.StringVar(&p.TrecRun, "trec-run", "", "write each case's ranking to `FILE` as a TREC run (qid Q0 docno rank score tag), for trec_eval, ranx or ir_measures")
	fl.StringVar(&p.TrecQrels, "trec-qrels", "", "write the judgments of the cases run to `FILE` as TREC qrels (qid 0 docno grade)")
	fl.BoolVar(&p.Strict, "strict", false, "exit 1 when any graded case does not pass, gates or not")
	fl.StringVar(&f.failOn, "fail-on", "", "with --baseline, also exit 1 on `VERDICT` (inconclusive)")
	fl.BoolVar(&p.AllowNoBaseline, "allow-no-baseline", false, "pass a run without --baseline whose every gate compares with a baseline (a first run): no gate is checked")
	fl.BoolVar(&f.watch, "watch", false, "run again whenever the suite, its corpus, schema files, the target file or trace change; Ctrl-C stops, with the last run's exit status")
	fl.StringVar(&f.html, "html", "", "write the static HTML report of the run into `DIR` (assay report --html)")
	fl.BoolVar(&p.Cache, "cache", false, "answer http and command targets from the response cache under the store, and fill it (docs/cache.md)")
	fl.BoolVar(&p.CacheTrials, "cache-trials", false, "with --cache and --trials N > 1, answer the trials from the cache too (without it each trial asks the system)")
	fl.Float64Var(&p.MaxCost, "max-cost", 0, "stop sending cases once the system under test has cost `USD` US dollars, priced by the suite's prices: (0: no bound); the rest are recorded not run (docs/cost.md)")
	fl.Int64Var(&p.MaxTokens, "max-tokens", 0, "stop sending cases once the system under test has used `N` tokens, input + output (0: no bound); the rest are recorded not run")
	fl.BoolVar(&f.dryRun, "dry-run", false, "send nothing: print the requests the run would make and, with prices:, its expected cost (docs/cost.md)")
	fl.StringVar(&p.TrecTag, "trec-tag", "", "the run `TAG` of --trec-run and --trec-rag (default the run id)")
	trecRAGFlags(fl, p)
	fl.StringVar(&p.Judge.File, "judge", "", "judge the answers with the model judge defined in `FILE` (replaces the suite's judge:)")
	fl.BoolVar(&p.Judge.Off, "no-judge", false, "do not run the suite's judge")
	fl.IntVar(&p.Judge.Repeats, "judge-repeats", 0, "ask the judge `N` times per case (different seeds) and report its agreement")
	fl.StringSliceVar(&p.Judge.Probes, "judge-probes", nil, "ask the judge again under bias `PROBES` (position, verbosity, consistency, or all; comma-separated) and report each one's effect")
	fl.StringVar(&p.Shard, "shard", "", "run slice `I/N` (0-based) of the cases, as a shard of --group; assay merge checks the gates")
	fl.StringVar(&p.Group, "group", "", "shard group `NAME` (default from the suite fingerprint, git commit and CI run id)")
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

func runRun(env *Env, path string, f *runFlags, plan *cli.RunPlan) error {
	ctx := env.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	defer runGCTuning(env.Getenv)()
	p := *plan
	probes, err := judgeProbes(p.Judge.Probes)
	if err != nil {
		return err
	}
	p.Judge.Probes = probes
	p.SuitePath, p.Stdout, p.Getenv, p.TempDir = path, env.Stdout, env.Getenv, env.Getenv("TMPDIR")
	p.Secrets, p.Version = env.Secrets, cli.Build().Version
	if p.Labels, err = cli.RunLabels(f.labels, env.Getenv); err != nil {
		return err
	}
	if !f.noStore {
		p.StoreDir, p.StoreOptions = storeFlag(env, f.storeDir)
	}
	// A bar on a terminal, plain lines elsewhere (a CI log).
	progress := cli.NewProgress(env.Stderr, isTerminal(env.Stderr), env.now)
	defer progress.Stop()
	p.OnEvent = progress.OnEvent
	failInc := false
	switch strings.ToLower(f.failOn) {
	case "":
	case "inconclusive":
		failInc = true
	default:
		return usageError("use --fail-on inconclusive (regressed always exits 1)", "--fail-on %q: want inconclusive", f.failOn)
	}
	if failInc && p.Baseline == "" {
		return usageError("give --baseline REF to compare with", "--fail-on inconclusive needs --baseline: without one nothing is compared")
	}
	if f.html != "" && (f.noStore || f.watch) {
		return usageError("leave out --no-store and --watch", "--html writes the report of the stored run: it cannot go with --no-store or --watch")
	}
	if f.dryRun {
		if f.watch || f.html != "" {
			return usageError("leave out --watch and --html", "--dry-run sends nothing and stores nothing: it cannot go with --watch or --html")
		}
		return cli.DryRun(ctx, p, env.Stdout)
	}
	if f.watch {
		return (&cli.Watch{Plan: p, Out: textOut(env, p), Text: report.TextOptions{MaxFailures: p.MaxFailures}, OnError: func(err error) { printError(env.Stderr, err) }}).Run(ctx)
	}
	res, err := cli.Run(ctx, p)
	if res == nil {
		return err
	}
	defer res.Close()
	opts := report.TextOptions{MaxFailures: p.MaxFailures, Queries: res.FailQueries}
	if rerr := cli.WriteText(textOut(env, p), res, p.Plan, opts); rerr != nil {
		return inputError(rerr)
	}
	if _, herr := cli.WriteResult(ctx, f.html, p.StoreDir, p.StoreOptions, res, p.Baseline); herr != nil {
		return inputError(herr)
	}
	if verr := cli.RunComparisonsOutcome(env.Stderr, res, failInc); err == nil {
		err = verr
	}
	return err
}

// textOut is where the terminal summary goes: stderr when an output is
// written to stdout ("-"), so that stdout holds that document alone.
func textOut(env *Env, p cli.RunPlan) io.Writer {
	for _, o := range []string{p.JSON, p.Markdown, p.JUnit, p.Badge, p.OTel} {
		if o == "-" {
			return env.Stderr
		}
	}
	return env.Stdout
}

// judgeProbes checks the values of --judge-probes: assay.JudgeProbes, or
// all of them.
func judgeProbes(names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		n = strings.TrimSpace(n)
		switch {
		case n == "all":
			out = append(out, assay.JudgeProbes...)
		case slices.Contains(assay.JudgeProbes, n):
			out = append(out, n)
		default:
			return nil, usageError("valid probes: "+strings.Join(assay.JudgeProbes, ", ")+", all", "--judge-probes: unknown probe %q", n)
		}
	}
	return out, nil
}
