package cli

import (
	"fmt"
	"io"

	"github.com/assay-eval/assay/harness"

	"github.com/assay-eval/assay/redact"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/suite"
	"github.com/assay-eval/assay/suite/lint"
	"github.com/assay-eval/assay/target"
)

// LintPlan is `assay lint SUITE`: a suite checked without running it.
type LintPlan struct {
	SuitePath, Split string
	// TargetFile, when set, is a target file whose surfaces and tools the
	// cases are checked against.
	TargetFile string
	// Format is the findings' format on Stdout: text, github or
	// codeclimate (a GitLab Code Quality report).
	Format string
	// JSON writes the assay.lint/v1 findings to that file ("-": Stdout,
	// and then no findings in Format).
	JSON string
	// WriteManifest records the sha256 of the suite's files in
	// assay.manifest.json beside it.
	WriteManifest bool
	// Stdout gets the findings; Stderr the summary line and the manifest
	// written.
	Stdout, Stderr io.Writer
	Secrets        *redact.Redactor
}

// Lint checks the suite (lint.Check) and shows its findings. A suite
// that cannot be read is an Input error; any finding that is an error
// makes it a GateFailed error (exit 1), with the findings already shown.
func Lint(p LintPlan) error {
	o := suite.LoadOptions{Split: p.Split}
	if p.TargetFile != "" {
		surf, err := target.Surfaces(p.TargetFile)
		if err != nil {
			return inputError(err)
		}
		o.Surfaces = surf
	}
	switch p.Format {
	case "text", "github", "codeclimate":
	default:
		return usageError("--format text, --format github or --format codeclimate", "unknown --format %q", p.Format)
	}
	st, found, err := lint.Check(p.SuitePath, o)
	if err != nil {
		return inputError(err)
	}
	findings := make([]report.Finding, len(found))
	for i, f := range found {
		findings[i] = report.Finding(f)
	}
	if p.JSON != "" {
		if err := WriteTo(p.Stdout, p.Secrets, p.JSON, func(w io.Writer) error { return report.LintJSON(w, p.SuitePath, st.N, findings) }); err != nil {
			return inputError(err)
		}
	}
	if p.JSON != "-" {
		if err := report.LintFindings(p.Stdout, p.Format, findings); err != nil {
			return err
		}
	}
	if p.WriteManifest {
		mp, err := suite.WriteManifestStreamed(st)
		if err != nil {
			return inputError(fmt.Errorf("write manifest: %w", err))
		}
		fmt.Fprintf(p.Stderr, "assay: wrote %s\n", mp)
	}
	line, errs := report.LintSummary(p.SuitePath, st.N, findings)
	fmt.Fprintf(p.Stderr, "assay: %s\n", line)
	if errs > 0 {
		return &harness.Error{Kind: harness.GateFailed}
	}
	return nil
}
