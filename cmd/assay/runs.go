package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
	"github.com/spf13/cobra"
)

type runsFlags struct {
	storeDir string
	suite    string
	status   string
	limit    int
	json     string
	caseID   string
}

func newRunsCmd(env *Env) *cobra.Command {
	f := &runsFlags{}
	cmd := &cobra.Command{
		Use:   "runs [list | show REF]",
		Short: "List stored runs, newest first, or show one",
		Long: `Runs lists the runs in the store (--store, $ASSAY_STORE or .assay), newest
first: id prefix, start time (UTC), suite, target, status, cases, pass rate and
the headline metric. An incomplete run (stopped or killed before it finished)
is listed as such and never chosen by latest.

runs show REF prints one run: its provenance and its summary.`,
		Example: "  assay runs --suite kb -n 5\n  assay runs --json runs.json",
		Args:    noArgs("assay runs [list | show REF]"),
		RunE:    func(cmd *cobra.Command, args []string) error { return runsList(env, f) },
	}
	cmd.PersistentFlags().StringVar(&f.storeDir, "store", "", "run store `DIR` (default $ASSAY_STORE, else .assay)")
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
	var status assay.RunStatus
	switch f.status {
	case "", string(assay.StatusComplete), string(assay.StatusIncomplete):
		status = assay.RunStatus(f.status)
	default:
		return usageError("--status complete or --status incomplete", "unknown status %q", f.status)
	}
	if f.limit < 0 {
		return usageError("--limit 0 lists every run", "--limit must not be negative, got %d", f.limit)
	}
	dir, explicit := storeRoot(env, f.storeDir)
	if _, err := os.Stat(dir); err != nil && !store.IsURL(dir) {
		if explicit {
			return inputError(fmt.Errorf("no run store at %s", dir))
		}
		if f.json != "" {
			return writeTo(env, f.json, func(w io.Writer) error { _, err := io.WriteString(w, "[]\n"); return err })
		}
		fmt.Fprintf(env.Stdout, "no runs yet (the store %s does not exist): run 'assay run SUITE' to make one\n", dir)
		return nil
	}
	st, err := openStore(env, dir)
	if err != nil {
		return inputError(err)
	}
	defer st.Close()
	all, err := st.List(env.Ctx, store.Filter{})
	if err != nil {
		return inputError(err)
	}
	entries, err := st.List(env.Ctx, store.Filter{Suite: f.suite, Status: status, Limit: f.limit})
	if err != nil {
		return inputError(err)
	}
	if f.json != "" {
		if entries == nil {
			entries = []store.Entry{}
		}
		return writeTo(env, f.json, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(entries)
		})
	}
	if len(entries) == 0 {
		if len(all) == 0 {
			fmt.Fprintf(env.Stdout, "no runs in %s yet: run 'assay run SUITE' to make one\n", store.RedactURL(dir))
		} else {
			fmt.Fprintf(env.Stdout, "no run matches (the store %s holds %d)\n", store.RedactURL(dir), len(all))
		}
		return nil
	}
	for i, e := range entries {
		if e.Status == assay.StatusIncomplete && e.Cases == 0 {
			// A stopped run's index row has no summary: count what it recorded.
			st.Cases(env.Ctx, e.RunID, false, func(assay.CaseResult) error { entries[i].Cases++; return nil })
		}
	}
	if err := report.RunList(env.Stdout, entries, store.ShortIDs(all, 13)); err != nil {
		return err
	}
	if f.limit > 0 && len(entries) == f.limit && len(all) > f.limit && f.suite == "" && status == "" {
		fmt.Fprintf(env.Stdout, "(%d of %d runs; --limit 0 lists all)\n", len(entries), len(all))
	}
	return nil
}

func runsShow(env *Env, ref string, f *runsFlags) error {
	st, closeStore, err := openRefStore(env, f.storeDir, ref)
	if err != nil {
		return inputError(err)
	}
	defer closeStore()
	if f.caseID != "" {
		return showCase(env, st, ref, f.caseID, "")
	}
	run, path, err := harness.LoadRef(env.Ctx, st, ref)
	if err != nil {
		return inputError(err)
	}
	if f.json != "" {
		return writeTo(env, f.json, func(w io.Writer) error { return report.JSON(w, run) })
	}
	if err := report.Provenance(env.Stdout, run, path); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout)
	if harness.Summarized(run) {
		// A stopped run has no summary: it has one of what it recorded.
		fmt.Fprintf(env.Stdout, "the run stopped before it finished; the summary covers the %d case trials it recorded\n\n", len(run.Cases))
	}
	if err := report.Text(env.Stdout, run, report.TextOptions{MaxFailures: 20}); err != nil {
		return inputError(err)
	}
	return nil
}

// showCase prints every trial of one case of the run ref whole.
func showCase(env *Env, st store.Store, ref, id, heading string) error {
	run, views, err := harness.RefCaseViews(env.Ctx, st, ref, id)
	if err != nil {
		return inputError(err)
	}
	return report.CaseDetails(env.Stdout, heading, run.RunID, views)
}
