package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/assay-eval/assay/harness"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/internal/atomicfile"
	"github.com/assay-eval/assay/redact"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/ui"
)

// WriteCIOutputs writes the JUnit, markdown (also appended to
// $GITHUB_STEP_SUMMARY when set), badge and report directory of one run as
// assay run does, from those fields of f (and Stdout, Getenv, Secrets):
// what assay merge writes of the merged run.
func WriteCIOutputs(f *RunPlan, run *assay.Run, verdict gate.Verdict, cmp *compare.Report) error {
	if f.Stdout == nil {
		f.Stdout = io.Discard
	}
	if f.Getenv == nil {
		f.Getenv = func(string) string { return "" }
	}
	return writeCIOutputs(f, run, verdict, cmp)
}

// writeCIOutputs writes --junit, --markdown (also appended to
// $GITHUB_STEP_SUMMARY when set), --badge and --report-dir.
func writeCIOutputs(f *RunPlan, run *assay.Run, verdict gate.Verdict, cmp *compare.Report) error {
	if f.JUnit != "" {
		if err := writeTo(f, f.JUnit, func(w io.Writer) error { return report.JUnit(w, run) }); err != nil {
			return err
		}
	}
	md := func(w io.Writer) error { return report.MarkdownWith(w, run, cmp, MarkdownOptions(f.ReportURL, run)) }
	if f.Markdown != "" {
		if err := writeTo(f, f.Markdown, md); err != nil {
			return err
		}
	}
	if p := f.Getenv("GITHUB_STEP_SUMMARY"); p != "" && (f.Markdown != "" || f.ReportDir != "") {
		if err := appendTo(p, redacting(f.Secrets, md)); err != nil {
			return fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
		}
	}
	badge := func(w io.Writer) error { return report.Badge(w, run, verdict) }
	if f.Badge != "" {
		if err := writeTo(f, f.Badge, badge); err != nil {
			return err
		}
	}
	if f.ReportDir != "" {
		now := run.StartedAt
		if now.IsZero() {
			now = time.Now()
		}
		if _, err := report.WriteReportDir(f.ReportDir, run, cmp, verdict, now); err != nil {
			return fmt.Errorf("--report-dir %s: %w", f.ReportDir, err)
		}
	}
	return nil
}

// MarkdownOptions are the markdown's options for an HTML report of run
// served at base (--report-url): each case listed links to its page,
// base/cases/NAME.html, or its place in a group's file in the report of a
// large run (ui.CasePage). With base "" nothing is linked.
func MarkdownOptions(base string, run *assay.Run) report.MarkdownOptions {
	if base == "" {
		return report.MarkdownOptions{}
	}
	base = strings.TrimSuffix(base, "/")
	return report.MarkdownOptions{CaseURL: func(id string) string { return base + "/" + ui.CasePage(id, run) }}
}

// appendTo appends what fn writes to the file at path, creating it.
func appendTo(path string, fn func(io.Writer) error) error {
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	err = fn(fh)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return err
}

// Output is a file flag and its value.
type Output struct{ Flag, Path string }

// DistinctOutputs rejects two flags naming one file (the second would
// overwrite the first), more than one - (stdout), and a path that is a
// directory, before anything runs. Empty paths are unset.
func DistinctOutputs(outs []Output) error {
	seen := map[string]string{}
	var toStdout []string
	for _, o := range outs {
		switch o.Path {
		case "":
			continue
		case "-":
			toStdout = append(toStdout, o.Flag)
			continue
		}
		if fi, err := os.Stat(o.Path); err == nil && fi.IsDir() {
			return usageError("", "%s %s: is a directory, want a file", o.Flag, o.Path)
		}
		key := filepath.Clean(o.Path)
		if abs, err := filepath.Abs(key); err == nil {
			key = abs
		}
		if other, dup := seen[key]; dup {
			return usageError("give each output its own file", "%s and %s both name %s: one would overwrite the other", other, o.Flag, o.Path)
		}
		seen[key] = o.Flag
	}
	if len(toStdout) > 1 {
		return usageError("write the others to files", "only one output may be - (stdout), got %s", strings.Join(toStdout, " and "))
	}
	return nil
}

// replaceFile writes what fn writes to path whole or not at all
// (atomicfile.Replace): a write that fails part way leaves the file it
// would have replaced as it was.
func replaceFile(path string, fn func(io.Writer) error) error { return atomicfile.Replace(path, fn) }

// WriteTo writes what fn writes to the file at path (whole or not at all),
// or to stdout for "-", through the redaction of secrets.
func WriteTo(stdout io.Writer, secrets *redact.Redactor, path string, fn func(io.Writer) error) error {
	return writeTo(&RunPlan{Stdout: stdout, Plan: harness.Plan{Secrets: secrets}}, path, fn)
}

// WriteJSON writes v as indented JSON (two spaces, a final newline) as
// WriteTo does.
func WriteJSON(stdout io.Writer, secrets *redact.Redactor, path string, v any) error {
	return WriteTo(stdout, secrets, path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}
