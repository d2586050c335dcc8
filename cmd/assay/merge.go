package main

import (
	"io"
	"os"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/report"
	"github.com/spf13/cobra"
)

// mergeFlags are the flags of assay merge.
type mergeFlags struct {
	storeDir, baseline, json string
	junit, markdown, badge   string
	html, reportURL          string
	allowNoBaseline          bool
	labels                   []string
}

func newMergeCmd(env *Env) *cobra.Command {
	f := &mergeFlags{}
	cmd := &cobra.Command{
		Use:   "merge GROUP | merge RUN...",
		Short: "Merge the shards of a sharded run (run --shard I/N) into one run and check its gates",
		Long: `Merge the shard runs of GROUP (or the shard runs given) into one stored run,
the same in summary, segments and gates as the suite run unsharded. It is
incomplete (exit 2) when a shard is missing or incomplete. It writes the
JUnit, markdown, badge and HTML reports of the merged run as assay run does.
Exit status as run.`,
		Example: "  assay merge nightly-42\n  assay merge 0193a1b2 0193a1c4 0193a1d9 --baseline latest\n  assay merge gh-42 --baseline latest@main --junit junit.xml --markdown summary.md --html html",
		Args:    cobra.MinimumNArgs(1),
		RunE:    func(cmd *cobra.Command, args []string) error { return runMerge(env, args, f) },
	}
	fl := cmd.Flags()
	storeFlagVar(fl, &f.storeDir)
	fl.StringVar(&f.baseline, "baseline", "", "compare the merged run with the run `REF` (latest is of the shards' suite); exit 1 on a regression")
	fl.StringVar(&f.json, "json", "", "write the merged assay.run/v1 JSON to `FILE` (- for stdout)")
	fl.StringVar(&f.junit, "junit", "", "write a JUnit XML report of the merged run to `FILE` (- for stdout)")
	fl.StringVar(&f.markdown, "markdown", "", "write a markdown summary of the merged run to `FILE` (- for stdout; also appended to $GITHUB_STEP_SUMMARY)")
	fl.StringVar(&f.badge, "badge", "", "write a shields.io endpoint badge JSON to `FILE` (- for stdout)")
	fl.StringVar(&f.html, "html", "", "write the static HTML report of the merged run into `DIR` (compared with --baseline when given)")
	fl.StringVar(&f.reportURL, "report-url", "", "link each case the --markdown summary lists to its page of the HTML report served at `URL`")
	fl.StringArrayVar(&f.labels, "label", nil, "record the label `KEY=VALUE` with the merged run (repeatable), over those every shard carries; branch, commit and env default to the CI's, KEY= records none")
	fl.BoolVar(&f.allowNoBaseline, "allow-no-baseline", false, "pass a merge without --baseline whose every gate compares with a baseline: no gate is checked")
	return cmd
}

func runMerge(env *Env, args []string, f *mergeFlags) error {
	outs := []cli.Output{{Flag: "--json", Path: f.json}, {Flag: "--junit", Path: f.junit}, {Flag: "--markdown", Path: f.markdown}, {Flag: "--badge", Path: f.badge}}
	if err := cli.DistinctOutputs(outs); err != nil {
		return err
	}
	if f.html != "" {
		if fi, err := os.Stat(f.html); err == nil && !fi.IsDir() {
			return usageError("", "--html %s: is a file, want a directory", f.html)
		}
	}
	labels, err := cli.RunLabels(f.labels, env.Getenv)
	if err != nil {
		return err
	}
	dir, so := storeFlag(env, f.storeDir)
	st, err := cli.OpenExistingStore(dir, so)
	if err != nil {
		return err
	}
	defer st.Close()
	p := harness.MergePlan{Refs: args, Baseline: f.baseline, Store: st, Version: cli.Build().Version, AllowNoBaseline: f.allowNoBaseline, Names: cli.FlagName, Labels: labels}
	res, err := harness.Merge(env.Ctx, p)
	if res == nil {
		return err
	}
	defer res.Close()
	run := res.Runs[0]
	if f.json != "" {
		if jerr := cli.WriteTo(env.Stdout, env.Secrets, f.json, func(w io.Writer) error { return report.JSON(w, run) }); jerr != nil {
			return inputError(jerr)
		}
	}
	rp := &cli.RunPlan{JUnit: f.junit, Markdown: f.markdown, Badge: f.badge, ReportURL: f.reportURL, Stdout: env.Stdout,
		Plan: harness.Plan{Getenv: env.Getenv, Secrets: env.Secrets}}
	if oerr := cli.WriteCIOutputs(rp, run, res.Verdicts[0], res.Comparisons[0]); oerr != nil {
		return inputError(oerr)
	}
	out := env.Stdout
	for _, o := range outs {
		if o.Path == "-" {
			out = env.Stderr
		}
	}
	if rerr := cli.WriteText(out, res, harness.Plan{Baseline: f.baseline}, report.TextOptions{MaxFailures: 20}); rerr != nil {
		return inputError(rerr)
	}
	if _, herr := cli.WriteResult(env.Ctx, f.html, dir, so, res, f.baseline); herr != nil {
		return inputError(herr)
	}
	return err
}
