package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/report"
	"github.com/spf13/cobra"
)

type gateFlags struct {
	floors    string
	ratchet   bool
	margin    float64
	comment   string
	gates     []string
	baseline  string
	storeDir  string
	junit     string
	markdown  string
	badge     string
	jsonOut   string
	orderings []string
}

func newGateCmd(env *Env) *cobra.Command {
	f := &gateFlags{}
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
			if len(args) > 1 || len(f.orderings) > 0 {
				return runGateMatrix(env, args, f, cmd)
			}
			return runGate(env, args[0], f, cmd)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.floors, "floors", "", "floors `FILE` to check (and ratchet), e.g. "+gate.DefaultFloorsFile)
	fl.BoolVar(&f.ratchet, "ratchet", false, "raise the floors to what a complete, passing run achieved")
	fl.Float64Var(&f.margin, "margin", 0, "with --ratchet: raise floors to the achieved value minus this")
	fl.StringVar(&f.comment, "comment", "", "with --ratchet: a comment `TEXT` logged with every raise")
	fl.StringArrayVar(&f.gates, "gate", nil, "gate `EXPR`, e.g. 'pass_rate >= 0.8' (repeatable)")
	fl.StringVar(&f.baseline, "baseline", "", "baseline run `REF` for delta, ratio and no_new_failures")
	fl.StringVar(&f.storeDir, "store", "", "run store `DIR` (default $ASSAY_STORE, else .assay)")
	fl.StringVar(&f.junit, "junit", "", "write the run with these gate results as JUnit XML to `FILE` (- for stdout)")
	fl.StringVar(&f.markdown, "markdown", "", "write a markdown summary with these gate results to `FILE` (- for stdout)")
	fl.StringVar(&f.badge, "badge", "", "write a shields.io endpoint badge JSON for these gate results to `FILE` (- for stdout)")
	fl.StringVar(&f.jsonOut, "json", "", "write the assay.gate/v1 verdict JSON to `FILE` (- for stdout)")
	fl.StringArrayVar(&f.orderings, "ordering", nil, "with one RUN per variant: the expected order `SPEC` of a metric, e.g. 'ndcg@10: bm25 <= rm3' (repeatable)")
	return cmd
}

func (f *gateFlags) plan(env *Env, refs []string, cmd *cobra.Command) harness.GatePlan {
	dir, _ := storeRoot(env, f.storeDir)
	return harness.GatePlan{
		Refs: refs, Gates: f.gates, Orderings: f.orderings, Baseline: f.baseline,
		Floors: f.floors, Ratchet: f.ratchet, Margin: f.margin, MarginSet: cmd.Flags().Changed("margin"), Comment: f.comment,
		JUnit: f.junit, Markdown: f.markdown, Badge: f.badge, JSON: f.jsonOut, Stdout: env.Stdout,
		StoreDir: dir, StoreOptions: storeOptions(env, dir),
	}
}

func runGate(env *Env, ref string, f *gateFlags, cmd *cobra.Command) error {
	c, err := harness.CheckGate(env.Ctx, f.plan(env, []string{ref}, cmd))
	if err != nil {
		return err
	}
	defer c.Close()
	run, verdict := c.Run, c.Verdict
	out := env.Stdout
	if f.junit == "-" || f.markdown == "-" || f.badge == "-" || f.jsonOut == "-" {
		out = env.Stderr // stdout holds that document alone
	}
	fmt.Fprintf(out, "run %s  suite %s  %s\n", run.RunID, report.Escape(run.Suite.Name), run.Status)
	if note, err := c.NoFloors(); note != "" {
		fmt.Fprintln(out, note)
		if err != nil {
			return err
		}
	}
	if st := gate.Trials(run.Cases); st.Trials > 1 {
		fmt.Fprintf(out, "trials %d: pass@%d %s  pass^%d %s  flaky %d", st.Trials, st.Trials, rateText(st.PassAny), st.Trials, rateText(st.PassAll), len(st.Flaky))
		if len(st.Flaky) > 0 {
			fmt.Fprintf(out, ": %s", strings.Join(st.Flaky, ", "))
		}
		fmt.Fprintln(out)
	}
	for _, r := range verdict.Results {
		fmt.Fprintln(out, report.Escape(gate.Line(r)))
	}
	// A gate scoped to another variant than the run's does not apply to
	// it: say so, rather than leave it out without a word.
	for _, e := range c.NotApplied() {
		fmt.Fprintf(out, "– %s  not checked: the run is variant %s\n", e.Text, gate.VariantName(run.Variant))
	}
	if err := c.NothingApplies(); err != nil {
		return err
	}
	nFail := len(verdict.Failed())
	fmt.Fprintf(out, "gates: %d held, %d failed\n", len(verdict.Results)-nFail, nFail)
	printWarnings(env, verdict.Warnings)
	if err := c.WriteOutputs(); err != nil {
		return inputError(err)
	}
	r, err := c.Ratchet(time.Now().UTC())
	if err != nil {
		return err
	}
	switch {
	case !f.ratchet:
	case r.NotRaised != "":
		fmt.Fprintf(out, "floors not raised: %s\n", r.NotRaised)
	case len(r.Changes) == 0:
		fmt.Fprintf(out, "floors unchanged: nothing rose above its floor\n")
	default:
		for _, ch := range r.Changes {
			verb := "raised"
			if ch.Old == nil {
				verb = "set"
			}
			fmt.Fprintf(out, "%s floor %s\n", verb, ch)
		}
		fmt.Fprintf(out, "wrote %s\n", f.floors)
	}
	return c.Err()
}

// runGateMatrix checks the runs of a variant matrix: each run against the
// --gate expressions that apply to its variant, then every --ordering
// across them.
func runGateMatrix(env *Env, refs []string, f *gateFlags, cmd *cobra.Command) error {
	m, err := harness.CheckMatrix(env.Ctx, f.plan(env, refs, cmd))
	if err != nil {
		return err
	}
	out := env.Stdout
	for i, run := range m.Runs {
		fmt.Fprintf(out, "variant %s  run %s  suite %s  %s\n", report.Escape(gate.VariantName(run.Variant)), run.RunID, report.Escape(run.Suite.Name), run.Status)
		for _, r := range m.Verdicts[i].Results {
			fmt.Fprintf(out, "  %s\n", report.Escape(gate.Line(r)))
		}
		printWarnings(env, m.Verdicts[i].Warnings)
	}
	if m.Orderings != nil {
		fmt.Fprintf(out, "orderings\n")
		for _, r := range m.Orderings.Results {
			fmt.Fprintf(out, "  %s\n", report.Escape(gate.Line(r)))
		}
	}
	return m.Err()
}

func printWarnings(env *Env, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(env.Stderr, "assay: warning: %s\n", report.Escape(w))
	}
}

func rateText(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return gate.FormatValue(*p)
}
