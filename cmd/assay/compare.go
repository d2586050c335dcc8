package main

import (
	"github.com/assay-eval/assay/harness"
	"github.com/spf13/cobra"
)

type compareFlags struct {
	jsonOut     string
	markdownOut string
	storeDir    string
	caseID      string
}

func newCompareCmd(env *Env) *cobra.Command {
	f := &compareFlags{}
	cmd := &cobra.Command{
		Use:   "compare BASE CAND",
		Short: "Compare two runs case by case: deltas, 95% CIs, p-values, flips, verdict",
		Long: `Compare pairs the cases of two runs by id and trial (with several trials,
each case counts once, by its trial means) and reports, for every
metric and rate, the baseline, the candidate, the delta, a two-sided
paired sign-flip p-value and that test's own 95% interval of the mean delta
(so "~", not significant at 0.05, and an interval holding 0 always agree);
the cases that flipped pass → fail, fail → pass and answered ↔ refused, and
the top-score deltas; latency deltas;
and the verdict: regressed (exit 1), same or better (exit 0).

A REF is a run id or unique prefix, a path to a run.json or its directory,
latest, or latest~N (the Nth complete run before the latest, same suite).
Paths need no store.`,
		Example: `  assay compare latest~1 latest
  assay compare base/run.json cand/run.json --markdown comment.md
  assay compare 0193a1b2 latest --json compare.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageError("assay compare BASE CAND (for example: assay compare latest~1 latest)",
					"compare takes two run references, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runCompare(env, args[0], args[1], f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.jsonOut, "json", "", "write the assay.compare/v1 JSON to `FILE` (- for stdout)")
	fl.StringVar(&f.markdownOut, "markdown", "", "write a markdown PR comment to `FILE` (- for stdout)")
	storeFlagVar(fl, &f.storeDir)
	fl.StringVar(&f.caseID, "case", "", "print the case `ID` of both runs whole instead of the comparison")
	return cmd
}

func runCompare(env *Env, baseRef, candRef string, f *compareFlags) error {
	dir, o := storeFlag(env, f.storeDir)
	return harness.Compare(env.Ctx, harness.ComparePlan{Base: baseRef, Cand: candRef, Case: f.caseID, JSON: f.jsonOut, Markdown: f.markdownOut,
		StoreDir: dir, StoreOptions: o, Stdout: env.Stdout, Stderr: env.Stderr, Secrets: env.Secrets})
}
