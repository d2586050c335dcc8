package main

import (
	"strings"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"

	"github.com/assay-eval/assay/suite"
	"github.com/spf13/cobra"
)

func newImportCmd(env *Env) *cobra.Command {
	var out, split, mapping, listSep string
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
  nuggets    nuggetizer's nugget assignments JSONL (TREC RAG): cases with
             expect.nuggets and the recorded assignments
  csv        a CSV file, a case a row; --map names the columns
  jsonl      a JSONL file (or a JSON array), a case an object, as a Hugging
             Face dataset exports it; --map names the fields
  ragas      a Ragas dataset (JSON, JSONL or CSV: user_input/question,
             reference/ground_truth, reference_contexts)
  deepeval   DeepEval goldens (JSON or CSV: input, expected_output, context,
             expected_tools)
  promptfoo  promptfoo tests (a YAML list, a promptfooconfig with tests:, or
             a tests CSV): the deterministic assertions assay grades

--map maps case fields to columns: --map query=question,expect.answer_includes=answer,tags.topic=category.
Targets: ` + strings.Join(suite.MapTargets, ", ") + `.
A multi-valued column is split on --list-sep (";" for CSV).

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
  assay import beir scifact/ --split test -o scifact.jsonl
  assay import nuggets assignments.jsonl -o nuggets.yaml
  assay import csv golden.csv --map query=question,expect.answer_includes=must -o golden.yaml
  assay import promptfoo promptfooconfig.yaml --map query=question -o suite.yaml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageError("assay import FORMAT SRC [-o suite.yaml]", "import takes FORMAT and SRC, got %d argument(s)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return cli.Import(cli.ImportPlan{Format: args[0], Src: args[1], Out: out, JSONL: jsonl, Split: split, Map: mapping, ListSep: listSep, Stdout: env.Stdout, Stderr: env.Stderr})
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the native suite to `FILE` (default: print it)")
	cmd.Flags().StringVar(&split, "split", "", "qrels split `NAME` of a BEIR directory (default test)")
	cmd.Flags().StringVar(&mapping, "map", "", "map case fields to the columns of a csv, jsonl, ragas or deepeval file (`TARGET=COLUMN,...`); promptfoo: query=VAR")
	cmd.Flags().StringVar(&listSep, "list-sep", "", "split a multi-valued column on `SEP` (default \";\" for CSV; JSON strings are not split)")
	cmd.Flags().BoolVar(&jsonl, "jsonl", false, "write a JSONL suite (a header line, then a case a line); -o FILE.jsonl does too")
	return cmd
}
