package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/assay-eval/assay/harness"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/redact"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
)

// ListPlan is a listing of the runs of a store (`assay runs list`).
type ListPlan struct {
	// StoreDir is the store; Explicit says the user chose it (a flag or
	// $ASSAY_STORE): then a missing store is an error, else the listing
	// says there are no runs yet.
	StoreDir     string
	Explicit     bool
	StoreOptions store.OpenOptions
	// Suite and Status ("", complete or incomplete) filter the runs;
	// Limit is the most listed (0: all).
	Suite, Status string
	Limit         int
	// Labels are KEY=VALUE labels every run listed carries.
	Labels []string
	// JSON writes the entries as a JSON array to that file ("-": Stdout)
	// instead of the table.
	JSON string
	// Stdout gets the table; Stderr what the store had to repair.
	Stdout, Stderr io.Writer
	Secrets        *redact.Redactor
}

// ListRuns lists the runs of p's store, newest first: a table
// (report.RunList, ids shortened to be unique among all the store's runs,
// with a line when the limit left runs out), or the entries as JSON. An
// incomplete run with no summary counts the case trials it recorded.
func ListRuns(ctx context.Context, p ListPlan) error {
	var status assay.RunStatus
	switch p.Status {
	case "", string(assay.StatusComplete), string(assay.StatusIncomplete):
		status = assay.RunStatus(p.Status)
	default:
		return usageError("--status complete or --status incomplete", "unknown status %q", p.Status)
	}
	if p.Limit < 0 {
		return usageError("--limit 0 lists every run", "--limit must not be negative, got %d", p.Limit)
	}
	labels, err := ParseLabels(p.Labels)
	if err != nil {
		return err
	}
	for k, v := range labels {
		if v == "" {
			return usageError("give --label "+k+"=VALUE", "--label %s=: a listing selects runs by a label's value", k)
		}
	}
	dir := p.StoreDir
	if _, err := os.Stat(dir); err != nil && !store.IsURL(dir) {
		if p.Explicit {
			return inputError(fmt.Errorf("no run store at %s", dir))
		}
		if p.JSON != "" {
			return WriteTo(p.Stdout, p.Secrets, p.JSON, func(w io.Writer) error { _, err := io.WriteString(w, "[]\n"); return err })
		}
		fmt.Fprintf(p.Stdout, "no runs yet (the store %s does not exist): run 'assay run SUITE' to make one\n", dir)
		return nil
	}
	o := p.StoreOptions
	o.ForReading = true
	st, err := OpenStore(dir, o)
	if err != nil {
		return inputError(err)
	}
	defer st.Close()
	report.Warnings(p.Stderr, st.Warnings())
	all, err := st.List(ctx, store.Filter{})
	if err != nil {
		return inputError(err)
	}
	entries, err := st.List(ctx, store.Filter{Suite: p.Suite, Status: status, Limit: p.Limit, Labels: labels})
	if err != nil {
		return inputError(err)
	}
	if p.JSON != "" {
		if entries == nil {
			entries = []store.Entry{}
		}
		return WriteJSON(p.Stdout, p.Secrets, p.JSON, entries)
	}
	if len(entries) == 0 {
		if len(all) == 0 {
			fmt.Fprintf(p.Stdout, "no runs in %s yet: run 'assay run SUITE' to make one\n", store.RedactURL(dir))
		} else {
			fmt.Fprintf(p.Stdout, "no run matches (the store %s holds %d)\n", store.RedactURL(dir), len(all))
		}
		return nil
	}
	for i, e := range entries {
		if e.Status == assay.StatusIncomplete && e.Cases == 0 {
			// A stopped run's index row has no summary: count what it recorded.
			st.Cases(ctx, e.RunID, false, func(assay.CaseResult) error { entries[i].Cases++; return nil })
		}
	}
	short := store.ShortIDs(all, 13)
	rows := make([]report.RunRow, len(entries))
	for i, e := range entries {
		rows[i] = report.RunRow{ID: short[e.RunID], StartedAt: e.StartedAt, Suite: e.Suite, Target: e.Target, Status: e.Status,
			Cases: e.Cases, PassRate: e.PassRate, Headline: e.Headline, HeadlineValue: e.HeadlineValue, Labels: e.Labels}
	}
	if err := report.RunList(p.Stdout, rows); err != nil {
		return err
	}
	if p.Limit > 0 && len(entries) == p.Limit && len(all) > p.Limit && p.Suite == "" && status == "" && len(labels) == 0 {
		fmt.Fprintf(p.Stdout, "(%d of %d runs; --limit 0 lists all)\n", len(entries), len(all))
	}
	return nil
}

// WriteRun shows one run as `assay runs show` does: its provenance
// (report.Provenance, path its run.json) and its summary (report.Text);
// for a stopped run, a summary of the case trials it recorded, saying so.
func WriteRun(w io.Writer, run *assay.Run, path string) error {
	if err := report.Provenance(w, run, path); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if harness.Summarized(run) {
		// A stopped run has no summary: it has one of what it recorded.
		fmt.Fprintf(w, "the run stopped before it finished; the summary covers the %d case trials it recorded\n\n", len(run.Cases))
	}
	if err := report.Text(w, run, report.TextOptions{MaxFailures: 20}); err != nil {
		return inputError(err)
	}
	return nil
}
