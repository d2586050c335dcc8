package main

import (
	"time"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"

	"github.com/assay-eval/assay/gate"
	"github.com/spf13/cobra"
)

func newGateCmd(env *Env) *cobra.Command {
	p := cli.GatePlan{}
	var storeDir string
	cmd := &cobra.Command{
		Use:   "gate RUN",
		Short: "Check a stored run against gates and ratcheting floors",
		Long: `Check a run against gate expressions and a floors file.

RUN is a run id or unique prefix, a run.json path or its directory, latest
or latest~N. The gates checked are the --gate expressions; with neither
--gate nor --floors, the gates the run recorded are checked again.

Gate expressions (see 'go doc github.com/assay-eval/assay/gate'):
  pass_rate >= 0.8                 [lang=zh] recall@10 >= 0.47
  delta(ndcg@10) >= -0.02          ratio(p95_latency_ms) <= 1.2
  no_new_failures                  ratio(index_bytes) <= 1.10 (a measure)
delta, ratio and no_new_failures compare with --baseline (one RUN only).
Without one, such a gate given with --gate is a usage error (exit 2); one
the run recorded is left out, with a warning (assay run does the same with
the suite's).

--floors FILE checks the run against the floors in FILE (assay.floors.json).
--ratchet then raises each floor to what the run achieved (minus --margin),
never lowers one, and logs every raise in the file. The first ratchet of a
new file sets floors for pass_rate and every metric the run computed. The
run of a variant matrix keeps its own floors in the file, "[variant=NAME]
METRIC", so one file serves every variant. An
incomplete run, or one that fails a gate or floor, never ratchets.

Exit status: 0 every gate and floor held on a complete run; 1 one failed;
2 usage or input error, or an incomplete run.

Variant matrices: give one RUN per variant (runs that record a variant,
e.g. {"mode": "fast"}) and --ordering 'ndcg@10: fast <= balanced <= thorough'
(optionally ending in 'tolerance 0.01') to check how a metric ranks them;
--gate expressions scoped [variant=NAME] apply to that variant's run only.`,
		Example: `  assay gate latest --gate 'pass_rate >= 0.8' --gate 'ndcg@10 >= 0.45'
  assay gate latest --floors assay.floors.json --ratchet --json verdict.json
  assay gate latest --baseline latest~1 --gate 'delta(ndcg@10) >= -0.02' --junit junit.xml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("usage: assay gate RUN [--floors FILE [--ratchet]] [--gate EXPR]...", "assay gate needs a RUN")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			p.Refs, p.MarginSet, p.Stdout, p.Stderr = args, cmd.Flags().Changed("margin"), env.Stdout, env.Stderr
			p.StoreDir, p.StoreOptions = storeFlag(env, storeDir)
			return cli.RunGate(env.Ctx, p, time.Now().UTC())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&p.Floors, "floors", "", "floors `FILE` to check (and ratchet), e.g. "+gate.DefaultFloorsFile)
	fl.BoolVar(&p.Ratchet, "ratchet", false, "raise the floors to what a complete, passing run achieved")
	fl.Float64Var(&p.Margin, "margin", 0, "with --ratchet: raise floors to the achieved value minus this")
	fl.StringVar(&p.Comment, "comment", "", "with --ratchet: a comment `TEXT` logged with every raise")
	fl.StringArrayVar(&p.Gates, "gate", nil, "gate `EXPR`, e.g. 'pass_rate >= 0.8' (repeatable)")
	fl.StringVar(&p.Baseline, "baseline", "", "baseline run `REF` for delta, ratio and no_new_failures")
	storeFlagVar(fl, &storeDir)
	fl.StringVar(&p.JUnit, "junit", "", "write the run with these gate results as JUnit XML to `FILE` (- for stdout)")
	fl.StringVar(&p.Markdown, "markdown", "", "write a markdown summary with these gate results to `FILE` (- for stdout)")
	fl.StringVar(&p.Badge, "badge", "", "write a shields.io endpoint badge JSON for these gate results to `FILE` (- for stdout)")
	fl.StringVar(&p.JSON, "json", "", "write the assay.gate/v1 verdict JSON to `FILE` (- for stdout)")
	fl.StringArrayVar(&p.Orderings, "ordering", nil, "with one RUN per variant: the expected order `SPEC` of a metric, e.g. 'ndcg@10: bm25 <= rm3' (repeatable)")
	return cmd
}
