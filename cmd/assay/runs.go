package main

import (
	"io"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"

	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/report"
	"github.com/spf13/cobra"
)

type runsFlags struct {
	storeDir string
	suite    string
	status   string
	limit    int
	json     string
	caseID   string
	labels   []string
}

func newRunsCmd(env *Env) *cobra.Command {
	f := &runsFlags{}
	cmd := &cobra.Command{
		Use:   "runs [list | show REF]",
		Short: "List stored runs, newest first, or show one",
		Long: `Runs lists the runs in the store (--store, $ASSAY_STORE or .assay), newest
first: id prefix, start time (UTC), suite, target, status, cases, pass rate and
the headline metric, and the labels when a run has any. An incomplete run (stopped or killed before it finished)
is listed as such and never chosen by latest.

runs show REF prints one run: its provenance and its summary. Here no suite
is at hand: latest is the newest complete run of any suite.`,
		Example: "  assay runs --suite kb -n 5\n  assay runs --json runs.json",
		Args:    noArgs("assay runs [list | show REF]"),
		RunE:    func(cmd *cobra.Command, args []string) error { return runsList(env, f) },
	}
	storeFlagVar(cmd.PersistentFlags(), &f.storeDir)
	cmd.PersistentFlags().StringVar(&f.json, "json", "", "write the listing (show: the assay.run/v1 document) as JSON to `FILE` (- for stdout)")
	list := &cobra.Command{
		Use:     "list",
		Short:   "List stored runs, newest first",
		Example: "  assay runs list --status incomplete",
		Args:    noArgs("assay runs list"),
		RunE:    func(cmd *cobra.Command, args []string) error { return runsList(env, f) },
	}
	for _, c := range []*cobra.Command{cmd, list} {
		c.Flags().StringVar(&f.suite, "suite", "", "only runs of suite `NAME`")
		c.Flags().StringVar(&f.status, "status", "", "only runs with `STATUS` complete or incomplete")
		c.Flags().IntVarP(&f.limit, "limit", "n", 20, "at most `N` runs (0: all)")
		c.Flags().StringArrayVar(&f.labels, "label", nil, "only runs with the label `KEY=VALUE` (repeatable; all must match)")
	}
	show := &cobra.Command{
		Use:   "show REF",
		Short: "Show one run: provenance and summary",
		Example: `  assay runs show latest
  assay runs show 0193a1b2-7c3d
  assay runs show .assay/runs/0193a1b2-7c3d-7e4f-8a5b-0123456789ab
  assay runs show latest --case q001`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError("assay runs show REF (a run id or prefix, latest, latest~N, or a run.json path)",
					"runs show takes one run reference, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runsShow(env, args[0], f) },
	}
	show.Flags().StringVar(&f.caseID, "case", "", "print the case `ID` whole: query, answer, ranking with grades, citations, tool calls, checks, spans")
	cmd.AddCommand(list, show, newRunsExportCmd(env, f), newRunsTrendCmd(env, f), newRunsPruneCmd(env, f))
	return cmd
}

func noArgs(usage string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usageError(usage, "unexpected argument %q", args[0])
		}
		return nil
	}
}

func runsList(env *Env, f *runsFlags) error {
	dir, explicit := storeRoot(env, f.storeDir)
	return cli.ListRuns(env.Ctx, cli.ListPlan{StoreDir: dir, Explicit: explicit, StoreOptions: storeOptions(env, dir),
		Suite: f.suite, Status: f.status, Limit: f.limit, Labels: f.labels, JSON: f.json, Stdout: env.Stdout, Stderr: env.Stderr, Secrets: env.Secrets})
}

func runsShow(env *Env, ref string, f *runsFlags) error {
	st, closeStore, err := openRefStore(env, f.storeDir, ref)
	if err != nil {
		return inputError(err)
	}
	defer closeStore()
	if f.caseID != "" {
		return cli.WriteCase(env.Ctx, env.Stdout, st, ref, f.caseID, "")
	}
	run, path, err := harness.LoadRef(env.Ctx, st, ref)
	if err != nil {
		return inputError(err)
	}
	if f.json != "" {
		return writeTo(env, f.json, func(w io.Writer) error { return report.JSON(w, run) })
	}
	return cli.WriteRun(env.Stdout, run, path)
}
