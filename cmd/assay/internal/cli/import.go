package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/suite"
)

// ImportPlan is `assay import FORMAT SRC`: a golden set of another format
// converted to a native suite.
type ImportPlan struct {
	Format, Src string // one of suite.ImportFormats (or gno-adversarial)
	// Out is the suite file written ("" or "-": the suite is written to
	// Stdout); JSONL writes a JSONL suite (Out must end in .jsonl).
	Out   string
	JSONL bool
	Split string
	// Map is the --map mapping of a tabular format ("target=column,...",
	// suite.ParseMap); ListSep splits a multi-valued column.
	Map, ListSep string
	// Stdout gets the suite or the files written; Stderr the warnings.
	Stdout, Stderr io.Writer
}

// Import converts p.Src (suite.LoadFormat, suite.Import). An unknown
// format is a Usage error whose hint names the format SRC looks like; a
// loader error too gets that hint when SRC looks like another format.
func Import(p ImportPlan) error {
	format, src, out := p.Format, p.Src, p.Out
	if format == suite.FormatGNOAdversarial {
		format = suite.FormatGNO
	}
	if !slices.Contains(suite.ImportFormats, format) {
		hint := "FORMAT is one of " + strings.Join(suite.ImportFormats, ", ")
		if got := suite.DetectFormat(src); got != "" {
			hint = fmt.Sprintf("%s looks like %s: assay import %s %s", src, got, got, src)
		}
		return usageError(hint, "unknown format %q", format)
	}
	o := suite.LoadOptions{Split: p.Split, ListSep: p.ListSep}
	if p.Map != "" {
		m, err := suite.ParseMap(p.Map)
		if err != nil {
			return usageError("", "--map: %v", err)
		}
		o.Map = m
	}
	if out == "" || out == "-" {
		s, err := suite.LoadFormat(format, src, o)
		if err != nil {
			return importError(err, format, src)
		}
		report.Warnings(p.Stderr, s.Warnings)
		if slices.ContainsFunc(s.Cases, func(c assay.Case) bool { return c.Expect.JSONSchema == suite.AnyJSONSchema }) {
			report.Warnings(p.Stderr, []string{"is-json refers to " + suite.AnyJSONSchema + ", which only -o FILE writes: import with -o, or write that schema beside the suite"})
		}
		comment := fmt.Sprintf("imported by `assay import %s %s`", format, filepath.ToSlash(src))
		write := suite.WriteNative
		if p.JSONL {
			write = suite.WriteNativeJSONL
		}
		if err := write(p.Stdout, s, suite.ExportOptions{Dir: ".", Comment: comment}); err != nil {
			return inputError(err)
		}
		return nil
	}
	if p.JSONL && !strings.HasSuffix(strings.ToLower(out), ".jsonl") {
		return usageError("assay import "+format+" "+src+" -o "+strings.TrimSuffix(out, filepath.Ext(out))+".jsonl", "--jsonl: the output %s does not end in .jsonl", out)
	}
	s, written, err := suite.Import(format, src, out, o)
	if err != nil {
		return importError(err, format, src)
	}
	if schema, err := suite.WriteAnyJSONSchema(s, filepath.Dir(out)); err != nil {
		return inputError(err)
	} else if schema != "" {
		fmt.Fprintf(p.Stdout, "wrote %s (the schema of is-json)\n", schema)
	}
	report.Warnings(p.Stderr, s.Warnings)
	for _, w := range written[:len(written)-1] {
		fmt.Fprintf(p.Stdout, "wrote %s (%d documents)\n", w, len(s.Corpus))
	}
	fmt.Fprintf(p.Stdout, "wrote %s (%s, %d cases, %d gates)\n", out, s.Format, len(s.Cases), len(s.Gates))
	return nil
}

// importError is an Input error with the loader's error, and a hint when
// SRC looks like another format than the one asked for.
func importError(err error, format, src string) error {
	if got := suite.DetectFormat(src); got != "" && got != format {
		return &harness.Error{Kind: harness.Input, Err: err, Hint: fmt.Sprintf("%s looks like %s: assay import %s %s", src, got, got, src)}
	}
	return inputError(err)
}
