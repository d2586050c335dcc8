package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/suite"
	"github.com/spf13/cobra"
)

func newImportCmd(env *Env) *cobra.Command {
	var out, split string
	var jsonl bool
	cmd := &cobra.Command{
		Use:   "import FORMAT SRC [-o suite.yaml|suite.jsonl] [--jsonl]",
		Short: "Convert a golden set of another format to a native suite",
		Long: `Read SRC as FORMAT and write the native suite (assay: 1) it is equivalent to:
running the written suite gives the same results as running SRC.

FORMAT is one of: ` + strings.Join(suite.ImportFormats, ", ") + `.
  gno        GNO queries.json or hybrid-adversarial.json (corpus/ beside it)
  gno-ask    GNO ask-cases.json
  kebab      kebab golden_queries.yaml (no corpus)
  knowlex    Knowlex golden_qa.json (inline corpus and thresholds)
  beir       a BEIR directory (corpus.jsonl[.gz], queries.jsonl, qrels/); --split
  trec       a qrels file with its topics beside it, or a directory of both
  cranfield  the Cranfield 1400 directory (cran.all.1400, cran.qry, cranqrel)

With -o the suite is written to that file; a corpus directory or JSONL file is
referenced by a path relative to it, and a corpus with no such file (Knowlex,
Cranfield) is written beside it as <name>.corpus.jsonl. Without -o the suite
is printed, with such a corpus inline and paths relative to the current
directory. An output ending in .jsonl, or --jsonl without -o, is a JSONL
suite: the header object on the first line, one case a line (the encoding
for large golden sets: it is read line by line). The mapping of each format
is described in docs/suite.md.`,
		Example: `  assay import gno ../gno/queries.json -o gno.yaml
  assay import beir scifact/ --split test -o scifact.yaml
  assay import beir scifact/ --split test -o scifact.jsonl`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageError("assay import FORMAT SRC [-o suite.yaml]", "import takes FORMAT and SRC, got %d argument(s)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			format, src := args[0], args[1]
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
			o := suite.LoadOptions{Split: split}
			if out == "" || out == "-" {
				s, err := suite.LoadFormat(format, src, o)
				if err != nil {
					return importError(err, format, src)
				}
				importWarnings(env, s.Warnings)
				comment := fmt.Sprintf("imported by `assay import %s %s`", format, filepath.ToSlash(src))
				write := suite.WriteNative
				if jsonl {
					write = suite.WriteNativeJSONL
				}
				if err := write(env.Stdout, s, suite.ExportOptions{Dir: ".", Comment: comment}); err != nil {
					return inputError(err)
				}
				return nil
			}
			if jsonl && !strings.HasSuffix(strings.ToLower(out), ".jsonl") {
				return usageError("assay import "+format+" "+src+" -o "+strings.TrimSuffix(out, filepath.Ext(out))+".jsonl", "--jsonl: the output %s does not end in .jsonl", out)
			}
			s, written, err := suite.Import(format, src, out, o)
			if err != nil {
				return importError(err, format, src)
			}
			importWarnings(env, s.Warnings)
			for _, w := range written[:len(written)-1] {
				fmt.Fprintf(env.Stdout, "wrote %s (%d documents)\n", w, len(s.Corpus))
			}
			fmt.Fprintf(env.Stdout, "wrote %s (%s, %d cases, %d gates)\n", out, s.Format, len(s.Cases), len(s.Gates))
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the native suite to `FILE` (default: print it)")
	cmd.Flags().StringVar(&split, "split", "", "qrels split `NAME` of a BEIR directory (default test)")
	cmd.Flags().BoolVar(&jsonl, "jsonl", false, "write a JSONL suite (a header line, then a case a line); -o FILE.jsonl does too")
	return cmd
}

// importError is exit 2 with the loader's error, and a hint when SRC looks
// like another format than the one asked for.
func importError(err error, format, src string) error {
	if got := suite.DetectFormat(src); got != "" && got != format {
		return &harness.Error{Kind: harness.Input, Err: err, Hint: fmt.Sprintf("%s looks like %s: assay import %s %s", src, got, got, src)}
	}
	return inputError(err)
}

// importWarnings prints load warnings, one line each, on stderr.
func importWarnings(env *Env, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(env.Stderr, "assay: warning: %s\n", report.Escape(w))
	}
}
