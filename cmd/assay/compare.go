package main

import (
	"os"
	"runtime/debug"
	"strings"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"

	"github.com/assay-eval/assay/harness"
	"github.com/spf13/cobra"
)

type compareFlags struct {
	jsonOut      string
	markdownOut  string
	storeDir     string
	caseID       string
	margins      []string
	multiplicity string
	failOn       string
	history      int
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
and the verdict: regressed (exit 1), better, same or inconclusive (exit 0,
with a warning for inconclusive unless --fail-on inconclusive).

The gated measures (every IR metric and pass_rate) and the flips form one
family whose p-values are adjusted by Holm's step-down procedure
(--multiplicity none turns it off). same means every gated measure's 95%
interval lies inside its equivalence margin (pass_rate ±0.05, a metric
±0.02, or --margin); inconclusive means neither a regression nor
equivalence was shown, with the cases or trials that would decide it.
Flips are weighed against each case's noise: its trials and up to
--history earlier runs of the same suite and target in the store.

A REF is a run id or unique prefix, a path to a run.json or its directory,
latest, or latest~N (the Nth complete run before the latest, same suite).
Paths need no store.`,
		Example: `  assay compare latest~1 latest
  assay compare base/run.json cand/run.json --markdown comment.md
  assay compare 0193a1b2 latest --json compare.json
  assay compare latest~1 latest --margin ndcg@10=0.01 --fail-on inconclusive`,
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
	fl.StringArrayVar(&f.margins, "margin", nil, "equivalence margin `MEASURE=VALUE`, e.g. ndcg@10=0.01 (repeatable)")
	fl.StringVar(&f.multiplicity, "multiplicity", "holm", "`METHOD` adjusting the family of gated measures and flips: holm or none")
	fl.StringVar(&f.failOn, "fail-on", "", "also exit 1 on `VERDICT` (inconclusive)")
	fl.IntVar(&f.history, "history", harness.DefaultHistory, "earlier runs of the same suite and target to weigh flips against (`N`, 0: none)")
	return cmd
}

// compareMemoryLimit is the soft memory limit of assay compare (unless
// GOMEMLIMIT sets one): two 100,000-case runs in compact form and their
// measures hold about 60 MiB at the peak, and the collector's default
// headroom (GOGC=100) would let the heap grow to twice that before it ran.
// A comparison that needs more than the limit still gets it: the
// collector only runs more often.
const compareMemoryLimit = 96 << 20

func runCompare(env *Env, baseRef, candRef string, f *compareFlags) error {
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(compareMemoryLimit))
	}
	dir, o := storeFlag(env, f.storeDir)
	co, failInc, err := verdictFlags(f.margins, f.multiplicity, f.failOn, f.history)
	if err != nil {
		return err
	}
	return cli.Compare(env.Ctx, cli.ComparePlan{Base: baseRef, Cand: candRef, Case: f.caseID, JSON: f.jsonOut, Markdown: f.markdownOut,
		StoreDir: dir, StoreOptions: o, Stdout: env.Stdout, Stderr: env.Stderr, Secrets: env.Secrets,
		Options: co, FailOnInconclusive: failInc})
}

// verdictFlags reads --margin, --multiplicity, --fail-on and --history.
func verdictFlags(margins []string, multiplicity, failOn string, history int) (harness.CompareOptions, bool, error) {
	var co harness.CompareOptions
	m, err := cli.ParseMargins(margins)
	if err != nil {
		return co, false, err
	}
	co.Margins = m
	if err := co.Multiplicity.UnmarshalText([]byte(multiplicity)); err != nil {
		return co, false, usageError("use --multiplicity holm (the default) or --multiplicity none", "--multiplicity %q: want holm or none", multiplicity)
	}
	failInc := false
	switch strings.ToLower(failOn) {
	case "":
	case "inconclusive":
		failInc = true
	default:
		return co, false, usageError("use --fail-on inconclusive (regressed always exits 1)", "--fail-on %q: want inconclusive", failOn)
	}
	switch {
	case history < 0:
		return co, false, usageError("give a number of runs >= 0, for example --history 5", "--history %d: want N >= 0", history)
	case history == 0:
		co.History = -1
	default:
		co.History = history
	}
	return co, failInc, nil
}
