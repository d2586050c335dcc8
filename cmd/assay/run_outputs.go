package main

import (
	"fmt"
	"github.com/assay-eval/assay/internal/atomicfile"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/report"
)

// writeCIOutputs writes --junit, --markdown (also appended to
// $GITHUB_STEP_SUMMARY when set), --badge and --report-dir.
func writeCIOutputs(env *Env, f *runFlags, run *assay.Run, verdict gate.Verdict, cmp *compare.Report) error {
	if f.junit != "" {
		if err := writeTo(env, f.junit, func(w io.Writer) error { return report.JUnit(w, run) }); err != nil {
			return err
		}
	}
	md := func(w io.Writer) error { return report.Markdown(w, run, cmp) }
	if f.markdown != "" {
		if err := writeTo(env, f.markdown, md); err != nil {
			return err
		}
	}
	if p := env.Getenv("GITHUB_STEP_SUMMARY"); p != "" && (f.markdown != "" || f.reportDir != "") {
		if err := appendTo(p, redacting(env, md)); err != nil {
			return fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
		}
	}
	badge := func(w io.Writer) error { return report.Badge(w, run, verdict) }
	if f.badge != "" {
		if err := writeTo(env, f.badge, badge); err != nil {
			return err
		}
	}
	if f.reportDir != "" {
		now := run.StartedAt
		if now.IsZero() {
			now = time.Now()
		}
		if _, err := report.WriteReportDir(f.reportDir, run, cmp, verdict, now); err != nil {
			return fmt.Errorf("--report-dir %s: %w", f.reportDir, err)
		}
	}
	return nil
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

// printComparison compares run with base, prints the comparison and returns
// it.
func printComparison(w io.Writer, base, run *assay.Run) (*compare.Report, error) {
	rep := compare.Runs(base, run, compare.Options{})
	fmt.Fprintln(w)
	if err := report.CompareText(w, rep); err != nil {
		return nil, err
	}
	return &rep, nil
}

// output is a file flag and its value.
type output struct{ flag, path string }

// distinctOutputs rejects two flags naming one file (the second would
// overwrite the first), more than one - (stdout), and a path that is a
// directory, before anything runs. Empty paths are unset.
func distinctOutputs(outs []output) error {
	seen := map[string]string{}
	var toStdout []string
	for _, o := range outs {
		switch o.path {
		case "":
			continue
		case "-":
			toStdout = append(toStdout, o.flag)
			continue
		}
		if fi, err := os.Stat(o.path); err == nil && fi.IsDir() {
			return usageError("", "%s %s: is a directory, want a file", o.flag, o.path)
		}
		key := filepath.Clean(o.path)
		if abs, err := filepath.Abs(key); err == nil {
			key = abs
		}
		if other, dup := seen[key]; dup {
			return usageError("give each output its own file", "%s and %s both name %s: one would overwrite the other", other, o.flag, o.path)
		}
		seen[key] = o.flag
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
