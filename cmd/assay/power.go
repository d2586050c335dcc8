package main

import (
	"github.com/assay-eval/assay/cmd/assay/internal/cli"
	"github.com/spf13/cobra"
)

func newPowerCmd(env *Env) *cobra.Command {
	p := cli.PowerPlan{}
	var storeDir string
	cmd := &cobra.Command{
		Use:   "power SUITE",
		Short: "Say how small a change the suite can detect, and how many cases a given change needs",
		Long: `Power sizes a suite from its stored runs: for pass_rate and each metric of
the latest complete run of SUITE (a suite file, or a suite name), the
minimum detectable effect (MDE): the smallest true mean change that a
paired comparison of that many cases detects 80% of the time at α 0.05;
and, for each --delta METRIC=DELTA, the number of paired cases needed to
detect that change as often.

The spread of the paired deltas comes from the latest complete run and the
one before it, when the store holds two and their deltas vary; otherwise
from the latest run's case values, as if the two runs of a comparison were
independent (√2 × their sd: an upper bound for paired runs). The output
says which, per measure.`,
		Example: `  assay power suite.yaml --delta ndcg@10=0.02
  assay power kb --delta pass_rate=0.05 --store .assay`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError("assay power SUITE [--delta METRIC=DELTA]... (for example: assay power suite.yaml --delta ndcg@10=0.02)",
					"power takes one suite, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			p.Suite, p.Stdout, p.Stderr = args[0], env.Stdout, env.Stderr
			p.StoreDir, p.StoreOptions = storeFlag(env, storeDir)
			return cli.Power(env.Ctx, p)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&p.Deltas, "delta", nil, "a change `METRIC=DELTA` to size, e.g. ndcg@10=0.02 (repeatable)")
	storeFlagVar(fl, &storeDir)
	return cmd
}
