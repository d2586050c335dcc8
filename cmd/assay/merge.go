package main

import (
	"io"
	"os"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/report"
	"github.com/spf13/cobra"
)

func newMergeCmd(env *Env) *cobra.Command {
	var storeDir, baseline, jsonOut string
	var allowNoBaseline bool
	cmd := &cobra.Command{
		Use:   "merge GROUP | merge RUN...",
		Short: "Merge the shards of a sharded run (run --shard I/N) into one run and check its gates",
		Long: `Merge the shard runs of GROUP (or the shard runs given) into one stored run,
the same in summary, segments and gates as the suite run unsharded. It is
incomplete (exit 2) when a shard is missing or incomplete. Exit status as run.`,
		Example: "  assay merge nightly-42\n  assay merge 0193a1b2 0193a1c4 0193a1d9 --baseline latest",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if jsonOut != "" && jsonOut != "-" {
				if fi, err := os.Stat(jsonOut); err == nil && fi.IsDir() {
					return usageError("", "--json %s: is a directory, want a file", jsonOut)
				}
			}
			st, err := cli.OpenExistingStore(storeFlag(env, storeDir))
			if err != nil {
				return err
			}
			defer st.Close()
			p := harness.MergePlan{Refs: args, Baseline: baseline, Store: st, Version: cli.Build().Version, AllowNoBaseline: allowNoBaseline, Names: cli.FlagName}
			res, err := harness.Merge(env.Ctx, p)
			if res == nil {
				return err
			}
			defer res.Close()
			if jsonOut != "" {
				run := res.Runs[0]
				if jerr := cli.WriteTo(env.Stdout, nil, jsonOut, func(w io.Writer) error { return report.JSON(w, run) }); jerr != nil {
					return inputError(jerr)
				}
			}
			out := env.Stdout
			if jsonOut == "-" {
				out = env.Stderr
			}
			if rerr := cli.WriteText(out, res, harness.Plan{Baseline: baseline}, report.TextOptions{MaxFailures: 20}); rerr != nil {
				return inputError(rerr)
			}
			return err
		},
	}
	storeFlagVar(cmd.Flags(), &storeDir)
	cmd.Flags().StringVar(&baseline, "baseline", "", "compare the merged run with the run `REF`; exit 1 on a regression")
	cmd.Flags().StringVar(&jsonOut, "json", "", "write the merged assay.run/v1 JSON to `FILE` (- for stdout)")
	cmd.Flags().BoolVar(&allowNoBaseline, "allow-no-baseline", false, "pass a merge without --baseline whose every gate compares with a baseline: no gate is checked")
	return cmd
}
