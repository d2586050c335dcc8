package main

import (
	"time"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"

	"github.com/spf13/cobra"
)

// newRunsTrendCmd is `assay runs trend SUITE`: metrics across the suite's
// complete runs.
func newRunsTrendCmd(env *Env, rf *runsFlags) *cobra.Command {
	var metrics []string
	var limit int
	cmd := &cobra.Command{
		Use:     "trend SUITE [--metric M]...",
		Short:   "Show how pass_rate and metrics moved over a suite's complete runs, oldest first",
		Example: "  assay runs trend kb --metric ndcg@10 -n 30\n  assay runs trend kb --json -",
		Args:    exactArgs(1, "assay runs trend SUITE [--metric M]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, closeStore, err := openRefStore(env, rf.storeDir, "latest")
			if err != nil {
				return inputError(err)
			}
			defer closeStore()
			t, err := cli.SuiteTrend(env.Ctx, st, args[0], metrics, limit)
			if err != nil {
				return err
			}
			if rf.json != "" {
				return cli.WriteJSON(env.Stdout, env.Secrets, rf.json, t)
			}
			return t.WriteText(env.Stdout)
		},
	}
	cmd.Flags().StringArrayVar(&metrics, "metric", nil, "follow metric `M` (repeatable; default pass_rate and the headline metric)")
	cmd.Flags().IntVarP(&limit, "limit", "n", 0, "the newest `N` runs (0: all)")
	return cmd
}

// newRunsPruneCmd is `assay runs prune`: delete old runs, never the latest
// complete run of a suite nor one a floors file names.
func newRunsPruneCmd(env *Env, rf *runsFlags) *cobra.Command {
	p := cli.PrunePlan{}
	var age string
	cmd := &cobra.Command{
		Use:   "prune --keep N | --older-than D",
		Short: "Delete old runs; never a suite's latest complete run nor a run a floors file names",
		Long: `Prune deletes, per suite, the runs beyond the newest --keep N and/or started
more than --older-than D ago (with both, a run goes when neither keeps it). It
never deletes the latest complete run of a suite, nor a run that a floors file
(--floors, default ./assay.floors.json when present) names in its log.`,
		Example: "  assay runs prune --keep 50 --dry-run\n  assay runs prune --older-than 2160h --suite kb",
		Args:    noArgs("assay runs prune --keep N | --older-than D"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, o := storeFlag(env, rf.storeDir)
			p.Now = time.Now()
			return cli.PruneStore(env.Ctx, env.Stdout, dir, o, age, p)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&p.Keep, "keep", 0, "keep the newest `N` runs of each suite")
	fl.StringVar(&age, "older-than", "", "delete runs started more than `D` ago: 30d, 2w, 36h")
	fl.StringVar(&p.Suite, "suite", "", "prune only the runs of suite `NAME`")
	fl.StringArrayVar(&p.Floors, "floors", nil, "a floors `FILE` whose logged runs are kept (repeatable)")
	fl.BoolVar(&p.DryRun, "dry-run", false, "print what would be deleted, delete nothing")
	return cmd
}
