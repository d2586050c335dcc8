package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/internal/atomicfile"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/filelock"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
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
  no_new_failures                  no_new_failures [category=identifier]
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
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("usage: assay gate RUN [--floors FILE [--ratchet]] [--gate EXPR]...", "assay gate needs a RUN")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 || len(f.orderings) > 0 {
				return runGateMatrix(env, args, f)
			}
			return runGate(env, args[0], f, cmd)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.floors, "floors", "", "floors file to check (and ratchet), e.g. "+gate.DefaultFloorsFile)
	fl.BoolVar(&f.ratchet, "ratchet", false, "raise the floors to what a complete, passing run achieved")
	fl.Float64Var(&f.margin, "margin", 0, "with --ratchet: raise floors to the achieved value minus this")
	fl.StringVar(&f.comment, "comment", "", "with --ratchet: a comment logged with every raise")
	fl.StringArrayVar(&f.gates, "gate", nil, "gate expression, e.g. 'pass_rate >= 0.8' (repeatable)")
	fl.StringVar(&f.baseline, "baseline", "", "baseline run REF for delta, ratio and no_new_failures")
	fl.StringVar(&f.storeDir, "store", "", "run store directory (default $ASSAY_STORE, else .assay)")
	fl.StringVar(&f.junit, "junit", "", "write the run with these gate results as JUnit XML to FILE (- for stdout)")
	fl.StringVar(&f.markdown, "markdown", "", "write a markdown summary with these gate results to FILE (- for stdout)")
	fl.StringVar(&f.badge, "badge", "", "write a shields.io endpoint badge JSON for these gate results to FILE (- for stdout)")
	fl.StringArrayVar(&f.orderings, "ordering", nil, "with one RUN per variant: expected order of a metric, e.g. 'ndcg@10: bm25 <= rm3' (repeatable)")
	return cmd
}

func runGate(env *Env, ref string, f *gateFlags, cmd *cobra.Command) error {
	if f.ratchet && f.floors == "" {
		return usageError("for example: assay gate latest --floors "+gate.DefaultFloorsFile+" --ratchet", "--ratchet needs --floors FILE")
	}
	if (cmd.Flags().Changed("margin") || f.comment != "") && !f.ratchet {
		return usageError("add --ratchet", "--margin and --comment only apply with --ratchet")
	}
	if f.margin < 0 || math.IsNaN(f.margin) || math.IsInf(f.margin, 0) {
		return usageError("", "--margin must be a number >= 0, got %v", f.margin)
	}
	// Outputs are distinct files, none of them the floors file (--badge
	// assay.floors.json replaced the floors with a badge); one may be -.
	if err := distinctOutputs([]output{{"--floors", f.floors}, {"--junit", f.junit}, {"--markdown", f.markdown}, {"--badge", f.badge}}); err != nil {
		return err
	}
	if f.floors == "-" {
		return usageError("", "--floors reads and writes a file: give a path, not -")
	}
	if store.IsPathRef(ref) {
		if p, err := store.ResolvePath(ref); err == nil {
			for _, o := range []output{{"--floors", f.floors}, {"--junit", f.junit}, {"--markdown", f.markdown}, {"--badge", f.badge}} {
				if o.path != "" && o.path != "-" && sameFile(o.path, p) {
					return usageError("write it to another file", "%s %s would overwrite the run record %s", o.flag, o.path, p)
				}
			}
		}
	}
	exprs := make([]gate.Expr, 0, len(f.gates))
	for _, g := range f.gates {
		e, err := gate.Parse(g, "--gate")
		if err != nil {
			return inputError(err)
		}
		exprs = append(exprs, e)
	}

	st, closeStore, err := gateStore(env, f.storeDir, ref, f.baseline)
	if err != nil {
		return inputError(err)
	}
	defer closeStore()
	run, err := loadGateRef(env, st, ref)
	if err != nil {
		return inputError(err)
	}
	var base *assay.Run
	if f.baseline != "" {
		if base, err = loadGateRef(env, st, f.baseline); err != nil {
			return inputError(err)
		}
	}
	recorded := len(exprs) == 0 && f.floors == ""
	if recorded {
		for _, g := range run.Gates {
			e, err := gate.Parse(g.Expr, g.Source)
			if err != nil {
				return inputError(err)
			}
			exprs = append(exprs, e)
		}
		if len(exprs) == 0 {
			return usageError("give --gate EXPR or --floors FILE", "nothing to check: run %s records no gates", run.RunID)
		}
	}

	var skipped []string
	if base == nil {
		if exprs, skipped, err = harness.WithoutBaseline(exprs, recorded); err != nil {
			return err
		}
		if len(exprs) == 0 && f.floors == "" {
			return usageError("pass --baseline REF", "nothing to check without a baseline: every gate of run %s compares with one", run.RunID)
		}
	}
	verdict := gate.EvaluateExprs(exprs, run, base)
	verdict.Warnings = append(skipped, verdict.Warnings...)
	var floors *gate.Floors
	if f.floors != "" {
		if f.ratchet {
			// Concurrent ratchets of one file are serialised from the
			// read to the write: each checks and raises the floors the
			// one before it wrote, so no raise is lost and none lowers.
			lock, err := lockFloorsFile(env, f.floors)
			if err != nil {
				return inputError(err)
			}
			defer lock.Release()
		}
		floors, err = readFloorsFile(f.floors, f.ratchet)
		if err != nil {
			return inputError(err)
		}
		verdict = verdict.Merge(floors.Check(run, f.floors))
	}

	out := env.Stdout
	if f.junit == "-" || f.markdown == "-" || f.badge == "-" {
		out = env.Stderr // stdout holds that document alone
	}
	fmt.Fprintf(out, "run %s  suite %s  %s\n", run.RunID, report.Escape(run.Suite.Name), run.Status)
	if floors != nil && len(floors.Floors) == 0 {
		fmt.Fprintf(out, "%s holds no floors yet\n", f.floors)
		if !f.ratchet && len(verdict.Results) == 0 {
			return usageError("add --ratchet to set them, or give --gate EXPR",
				"nothing to check: %s holds no floors", f.floors)
		}
	} else if floors != nil && len(run.Variant) > 0 && !floorsFor(floors, run) {
		// Only other variants' floors: this run's are set by its first
		// --ratchet; without one there is nothing of it to check.
		fmt.Fprintf(out, "%s holds no floors for variant %s yet\n", f.floors, gate.VariantName(run.Variant))
		if !f.ratchet && len(verdict.Results) == 0 {
			return usageError("add --ratchet to set them, or give the floors file of this variant",
				"nothing to check: %s holds no floor for variant %s", f.floors, gate.VariantName(run.Variant))
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
	for _, e := range exprs {
		if !gate.AppliesTo(e, run) {
			fmt.Fprintf(out, "– %s  not checked: the run is variant %s\n", e.Text, gate.VariantName(run.Variant))
		}
	}
	if len(verdict.Results) == 0 && floors == nil {
		return usageError("scope the gate to the run's variant, or gate the run of that variant",
			"no gate applies to run %s (variant %s)", run.RunID, gate.VariantName(run.Variant))
	}
	nFail := len(verdict.Failed())
	fmt.Fprintf(out, "gates: %d held, %d failed\n", len(verdict.Results)-nFail, nFail)
	for _, w := range verdict.Warnings {
		fmt.Fprintf(env.Stderr, "assay: warning: %s\n", report.Escape(w))
	}

	if err := writeGateOutputs(env, f, run, base, verdict); err != nil {
		return inputError(err)
	}

	complete := run.Status == assay.StatusComplete
	if f.ratchet {
		switch {
		case !complete:
			fmt.Fprintf(out, "floors not raised: run %s is incomplete (an incomplete run never ratchets)\n", run.RunID)
		case !verdict.Pass:
			fmt.Fprintf(out, "floors not raised: the run fails %d gate(s)\n", nFail)
		default:
			changes, err := floors.Ratchet(run, gate.RatchetOptions{Margin: f.margin, Comment: f.comment, Now: time.Now().UTC(), Name: f.floors})
			if err != nil {
				return inputError(err)
			}
			if len(changes) == 0 {
				fmt.Fprintf(out, "floors unchanged: nothing rose above its floor\n")
			} else {
				if err := writeFloorsFile(f.floors, floors); err != nil {
					return inputError(err)
				}
				for _, c := range changes {
					verb := "raised"
					if c.Old == nil {
						verb = "set"
					}
					fmt.Fprintf(out, "%s floor %s\n", verb, c)
				}
				fmt.Fprintf(out, "wrote %s\n", f.floors)
			}
		}
	}

	switch {
	case !complete:
		return inputError(fmt.Errorf("run %s is incomplete: a partial run never passes", run.RunID))
	case len(verdict.Errors) > 0:
		return gateErrors(verdict.Errors)
	case !verdict.Pass:
		return failed()
	}
	return nil
}

func gateErrors(errs []string) error { return harness.GateErrors(errs) }

// runGateMatrix checks the runs of a variant matrix: each run against the
// --gate expressions that apply to its variant, then every --ordering
// across them.
func runGateMatrix(env *Env, refs []string, f *gateFlags) error {
	switch {
	case f.floors != "" || f.ratchet:
		return usageError("check floors one run at a time", "--floors takes one RUN, got %d", len(refs))
	case f.junit != "" || f.markdown != "" || f.badge != "":
		return usageError("write reports one run at a time", "--junit, --markdown and --badge take one RUN, got %d", len(refs))
	case f.baseline != "":
		return usageError("compare variants with --ordering, or one run at a time with --baseline", "--baseline takes one RUN, got %d", len(refs))
	case len(refs) < 2:
		return usageError("for example: assay gate RUN_FAST RUN_THOROUGH --ordering 'ndcg@10: fast <= thorough'", "--ordering compares variants: give one RUN per variant")
	}
	var exprs []gate.Expr
	for _, g := range f.gates {
		e, err := gate.Parse(g, "--gate")
		if err != nil {
			return inputError(err)
		}
		exprs = append(exprs, e)
	}
	var orderings []gate.Ordering
	for _, spec := range f.orderings {
		o, err := gate.ParseOrdering(spec, "--ordering")
		if err != nil {
			return inputError(err)
		}
		orderings = append(orderings, o)
	}
	if len(exprs) == 0 && len(orderings) == 0 {
		return usageError("give --gate EXPR or --ordering SPEC", "nothing to check across %d runs", len(refs))
	}
	// No baseline can be given with several runs.
	if _, _, err := harness.WithoutBaseline(exprs, false); err != nil {
		return err
	}
	st, closeStore, err := gateStore(env, f.storeDir, refs...)
	if err != nil {
		return inputError(err)
	}
	defer closeStore()
	byVariant := map[string]*assay.Run{}
	var runs []*assay.Run
	for _, ref := range refs {
		run, err := loadGateRef(env, st, ref)
		if err != nil {
			return inputError(err)
		}
		name := gate.VariantName(run.Variant)
		if name == "" {
			return inputError(fmt.Errorf("run %s records no variant: orderings compare the runs of a variant matrix", run.RunID))
		}
		if other, dup := byVariant[name]; dup {
			return inputError(fmt.Errorf("runs %s and %s are both variant %s", other.RunID, run.RunID, name))
		}
		byVariant[name] = run
		runs = append(runs, run)
	}
	// A gate scoped to a variant none of the runs is would check nothing.
	for _, e := range exprs {
		if !slices.ContainsFunc(runs, func(r *assay.Run) bool { return gate.AppliesTo(e, r) }) {
			return usageError("", "--gate %q applies to none of the runs (variants: %s)", e.Text, strings.Join(sortedKeys(byVariant), ", "))
		}
	}

	out := env.Stdout
	pass, complete := true, true
	var invalid []string
	for _, run := range runs {
		fmt.Fprintf(out, "variant %s  run %s  suite %s  %s\n", report.Escape(gate.VariantName(run.Variant)), run.RunID, report.Escape(run.Suite.Name), run.Status)
		complete = complete && run.Status == assay.StatusComplete
		v := gate.EvaluateExprs(exprs, run, nil)
		for _, r := range v.Results {
			fmt.Fprintf(out, "  %s\n", report.Escape(gate.Line(r)))
		}
		for _, w := range v.Warnings {
			fmt.Fprintf(env.Stderr, "assay: warning: %s\n", report.Escape(w))
		}
		pass = pass && v.Pass
		invalid = append(invalid, v.Errors...)
	}
	if len(orderings) > 0 {
		v := gate.CheckOrderings(orderings, byVariant)
		fmt.Fprintf(out, "orderings\n")
		for _, r := range v.Results {
			fmt.Fprintf(out, "  %s\n", report.Escape(gate.Line(r)))
		}
		pass = pass && v.Pass
	}
	switch {
	case !complete:
		return inputError(fmt.Errorf("a run of the matrix is incomplete: a partial run never passes"))
	case len(invalid) > 0:
		return gateErrors(invalid)
	case !pass:
		return failed()
	}
	return nil
}

// writeGateOutputs writes --junit, --markdown and --badge for the run with
// the gate results of this check in place of those it recorded.
func writeGateOutputs(env *Env, f *gateFlags, run, base *assay.Run, verdict gate.Verdict) error {
	if f.junit == "" && f.markdown == "" && f.badge == "" {
		return nil
	}
	shown := *run
	shown.Gates = verdict.Results
	shown.Warnings = append(append([]string(nil), run.Warnings...), verdict.Warnings...)
	var cmp *compare.Report
	if base != nil && f.markdown != "" {
		r := compare.Runs(base, run, compare.Options{})
		cmp = &r
	}
	outputs := []struct {
		path   string
		render func(io.Writer) error
	}{
		{f.junit, func(w io.Writer) error { return report.JUnit(w, &shown) }},
		{f.markdown, func(w io.Writer) error { return report.Markdown(w, &shown, cmp) }},
		{f.badge, func(w io.Writer) error { return report.Badge(w, &shown, verdict) }},
	}
	for _, o := range outputs {
		if o.path == "" {
			continue
		}
		if o.path == "-" {
			if err := o.render(env.Stdout); err != nil {
				return err
			}
			continue
		}
		if dir := filepath.Dir(o.path); dir != "." {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		if err := replaceFile(o.path, o.render); err != nil {
			return err
		}
	}
	return nil
}

func rateText(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return gate.FormatValue(*p)
}

// gateStore opens the run store when a REF needs it (anything but a path);
// paths work without one.
func gateStore(env *Env, flag string, refs ...string) (store.Store, func(), error) {
	dir, _ := storeRoot(env, flag)
	st, err := harness.OpenRefStore(dir, storeOptions(env, dir), refs...)
	if err != nil || st == nil {
		return nil, func() {}, err
	}
	return st, func() { st.Close() }, nil
}

// loadGateRef loads a run REF: a path without the store, anything else
// through it. A stopped run is gated on what it recorded (as runs shows).
func loadGateRef(env *Env, st store.Store, ref string) (*assay.Run, error) {
	run, _, err := harness.LoadRef(env.Ctx, st, ref)
	if err != nil {
		return nil, err
	}
	harness.Summarized(run)
	return run, nil
}

// readFloorsFile reads a floors file; a missing one is an empty file when
// it is about to be ratcheted, an error otherwise.
func readFloorsFile(path string, ratchet bool) (*gate.Floors, error) {
	fh, err := boundedfile.Open(path, boundedfile.Floors)
	if errors.Is(err, fs.ErrNotExist) {
		if ratchet {
			return gate.NewFloors(), nil
		}
		return nil, fmt.Errorf("%s: no such floors file (create it with --ratchet)", path)
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return gate.ReadFloors(fh, path)
}

// writeFloorsFile replaces the floors file atomically (temp file + rename),
// creating its directory as the other outputs do.
func writeFloorsFile(path string, f *gate.Floors) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Replace(path, f.Write)
}

// lockFloorsFile takes the lock a --ratchet holds on the floors file
// (a sibling PATH.lock, removed when released), creating the directory
// the file will be written to.
func lockFloorsFile(env *Env, path string) (*filelock.Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return filelock.Acquire(env.Ctx, path, filelock.DefaultTimeout)
}

// floorsFor reports whether any floor applies to the run: an unscoped one,
// or one scoped to its variant.
func floorsFor(fl *gate.Floors, run *assay.Run) bool {
	for _, e := range fl.Exprs("") {
		if gate.AppliesTo(e, run) {
			return true
		}
	}
	return false
}
