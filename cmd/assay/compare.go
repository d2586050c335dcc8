package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
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
	fl.StringVar(&f.storeDir, "store", "", "run store `DIR` (default $ASSAY_STORE, else .assay)")
	fl.StringVar(&f.caseID, "case", "", "print the case `ID` of both runs whole instead of the comparison")
	return cmd
}

func runCompare(env *Env, baseRef, candRef string, f *compareFlags) error {
	if err := distinctOutputs([]output{{"--json", f.jsonOut}, {"--markdown", f.markdownOut}}); err != nil {
		return err
	}
	st, closeStore, err := openRefStore(env, f.storeDir, baseRef, candRef)
	if err != nil {
		return inputError(err)
	}
	defer closeStore()
	if f.caseID != "" {
		if err := showCase(env, st, baseRef, f.caseID, "base"); err != nil {
			return err
		}
		fmt.Fprintln(env.Stdout)
		return showCase(env, st, candRef, f.caseID, "cand")
	}
	rep, err := harness.CompareRefs(env.Ctx, st, baseRef, candRef, harness.Output{Flag: "--json", Path: f.jsonOut}, harness.Output{Flag: "--markdown", Path: f.markdownOut})
	if err != nil {
		return err
	}
	text := env.Stdout
	if f.jsonOut == "-" || f.markdownOut == "-" {
		text = env.Stderr
	}
	if err := report.CompareText(text, rep); err != nil {
		return inputError(err)
	}
	if f.jsonOut != "" {
		if err := writeTo(env, f.jsonOut, func(w io.Writer) error { return report.CompareJSON(w, rep) }); err != nil {
			return inputError(err)
		}
	}
	if f.markdownOut != "" {
		if err := writeTo(env, f.markdownOut, func(w io.Writer) error { return report.CompareMarkdown(w, rep) }); err != nil {
			return inputError(err)
		}
	}
	return harness.CompareErr(rep)
}

// storeRoot is the store directory: the flag, else $ASSAY_STORE, else
// .assay; explicit reports whether the user chose it.
func storeRoot(env *Env, flag string) (dir string, explicit bool) {
	if flag != "" {
		return flag, true
	}
	if d := env.Getenv("ASSAY_STORE"); d != "" {
		return d, true
	}
	return ".assay", false
}

// openRefStore opens the run store when one of refs needs it (anything
// but a path); paths work with no store at all. It prints what the store
// had to repair.
func openRefStore(env *Env, flag string, refs ...string) (store.Store, func(), error) {
	dir, _ := storeRoot(env, flag)
	st, err := harness.OpenRefStore(dir, storeOptions(env, dir), refs...)
	if err != nil || st == nil {
		return nil, func() {}, err
	}
	for _, w := range st.Warnings() {
		fmt.Fprintf(env.Stderr, "assay: warning: %s\n", report.Escape(w))
	}
	return st, func() { st.Close() }, nil
}

// openStore opens the store at dir for reading (read-only when it cannot
// be written) and prints what it had to repair.
func openStore(env *Env, dir string) (store.Store, error) {
	o := storeOptions(env, dir)
	o.ForReading = true
	st, err := harness.OpenStore(dir, o)
	if err != nil {
		return nil, err
	}
	for _, w := range st.Warnings() {
		fmt.Fprintf(env.Stderr, "assay: warning: %s\n", report.Escape(w))
	}
	return st, nil
}

// storeOptions are the store options of every command: one line on stderr
// when the index has been locked by another process for about a second.
func storeOptions(env *Env, dir string) store.OpenOptions {
	return store.OpenOptions{Getenv: env.Getenv, Waiting: func() {
		fmt.Fprintf(env.Stderr, "assay: waiting for the lock on %s (another assay process is writing to the store)\n", filepath.Join(dir, store.DBFile))
	}}
}

// storeFlag is the store of a --store flag's value (storeRoot) and its
// options (storeOptions): what a command hands a harness plan.
func storeFlag(env *Env, flag string) (string, store.OpenOptions) {
	dir, _ := storeRoot(env, flag)
	return dir, storeOptions(env, dir)
}
