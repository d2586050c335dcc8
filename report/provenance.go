package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/redact"
)

// Provenance writes the provenance of a run as `assay runs show` prints
// it, one "key  value" row each: id, status, suite and fingerprint,
// target, versions, times, assay version, git commit, options and the
// run.json path (file; left out when path is "", a run of a store
// without files).
func Provenance(w io.Writer, run *assay.Run, path string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, Escape(v)) }
	row("run", run.RunID)
	row("status", string(run.Status))
	suite := dash(run.Suite.Name)
	if run.Suite.Fingerprint != "" {
		suite += " (" + run.Suite.Fingerprint + ")"
	}
	row("suite", suite)
	target := dash(run.Target.Kind)
	if run.Target.Spec != "" && run.Target.Spec != run.Target.Kind {
		target += " " + run.Target.Spec
	}
	row("target", target)
	if len(run.Target.Versions) > 0 {
		var vs []string
		for _, k := range slices.Sorted(maps.Keys(run.Target.Versions)) {
			vs = append(vs, k+"="+run.Target.Versions[k])
		}
		row("versions", strings.Join(vs, " "))
	}
	row("started", FormatUTC(run.StartedAt))
	row("finished", FormatUTC(run.FinishedAt))
	row("assay", dash(run.AssayVersion))
	if len(run.Labels) > 0 {
		row("labels", LabelsText(run.Labels, 0))
	}
	if run.Git != nil {
		g := run.Git.Commit
		if run.Git.Dirty {
			g += " (dirty)"
		}
		row("git", g)
	}
	o := run.Options
	opts := fmt.Sprintf("k=%d trials=%d concurrency=%d", o.K, max(o.Trials, 1), o.Concurrency)
	if len(o.Cases) > 0 {
		opts += " cases=" + strings.Join(o.Cases, ",")
	}
	for _, k := range slices.Sorted(maps.Keys(o.Tags)) {
		opts += " tag:" + k + "=" + o.Tags[k]
	}
	row("options", opts)
	if sh := run.Shard; sh != nil {
		row("shard", fmt.Sprintf("%d/%d of group %s", sh.Index, sh.Count, sh.Group))
	}
	if m := run.Merged; m != nil {
		row("merged", fmt.Sprintf("group %s: %s", dash(m.Group), strings.Join(m.Runs, " ")))
	}
	if path != "" { // a run of a store without files has none
		row("file", path)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return nil
}

// FormatUTC is how the reports write a time: UTC, to the second ("-" for none).
func FormatUTC(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// A RunRow is one row of the runs table: a stored run as its listing
// shows it, ID already shortened by the caller.
type RunRow struct {
	ID        string
	StartedAt time.Time
	Suite     string
	Target    string
	Status    assay.RunStatus
	Cases     int
	PassRate  *float64
	// Headline is the name of the headline metric, HeadlineValue its
	// mean; the column shows "-" without both.
	Headline      string
	HeadlineValue *float64
	// Labels are the run's labels (Run.Labels); the table has a LABELS
	// column when a row has any.
	Labels map[string]string
}

// LabelsText writes labels as "k=v k=v" in key order, each value clipped
// to max runes (redact.Clip; 0: whole).
func LabelsText(labels map[string]string, max int) string {
	parts := make([]string, 0, len(labels))
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		v := labels[k]
		if max > 0 {
			v = redact.Clip(v, max)
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}

// RunList writes the table of `assay runs`: one row per run, its id,
// start time, suite, target, status, cases, pass rate and the headline
// metric.
func RunList(w io.Writer, entries []RunRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	labels := slices.ContainsFunc(entries, func(e RunRow) bool { return len(e.Labels) > 0 })
	head := "ID\tSTARTED (UTC)\tSUITE\tTARGET\tSTATUS\tCASES\tPASS\tHEADLINE"
	if labels {
		head += "\tLABELS"
	}
	fmt.Fprintln(tw, head)
	for _, e := range entries {
		pass := "-"
		if e.PassRate != nil {
			pass = fmt.Sprintf("%.1f%%", *e.PassRate*100)
		}
		headline := "-"
		if e.Headline != "" && e.HeadlineValue != nil {
			headline = fmt.Sprintf("%s %.4f", e.Headline, *e.HeadlineValue)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s", e.ID, FormatUTC(e.StartedAt),
			Escape(dash(e.Suite)), Escape(dash(redact.Clip(e.Target, 40))), e.Status, e.Cases, pass, Escape(headline))
		if labels {
			fmt.Fprintf(tw, "\t%s", Escape(dash(LabelsText(e.Labels, 40))))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
