package main

import (
	"github.com/assay-eval/assay/cmd/assay/internal/cli"
	"github.com/spf13/cobra"
)

func newLintCmd(env *Env) *cobra.Command {
	p := cli.LintPlan{}
	cmd := &cobra.Command{
		Use:   "lint SUITE",
		Short: "Check a suite without running it",
		Long: `Check a suite without running it.

lint loads SUITE (the native format or any auto-detected one) and reports,
one line per finding, "file:line: error: message" or "file:line: warning:
message", sorted by line:

  errors    duplicate or missing case ids, missing or empty queries, invalid
            regexps, unknown metrics, bad json_schema files, k < 1, unknown
            gain; judgments (graded > 0), retrieves and cites naming documents
            the corpus lacks (by id, path or title); cases with neither
            expectations nor judgments; calls_tool / never_calls naming a tool
            not in the suite's "tools:" list; gate expressions that do not parse;
            contradictory expectations (calls_tool and never_calls naming one
            tool, no_citations with cites, an answer_includes string containing
            an answer_excludes one); cases pending review (review: pending,
            proposed from traces by assay propose)
  warnings  members of a "group" tag that disagree on their judged documents;
            leakage (an expected answer string, or a judged document id, inside
            the case's own query); judged non-relevant documents the corpus
            lacks; a document in "relevant" judged 0 in "judgments"; more
            "retrieves" documents than k; files that changed since
            assay.manifest.json was written
  notes     document references left unchecked because the suite has no corpus

With --target FILE (a target file), a case's surface: must be one of the
file's surfaces, and its calls_tool / never_calls must name tools that surface
lists (instead of the suite's tools: list).

--write-manifest records the sha256 of the suite file, every corpus file and
every json_schema file in assay.manifest.json beside the suite; later lints and
runs warn when one of them no longer matches.

Exit status: 2 when the suite cannot be read or parsed at all (syntax, unknown
field, wrong type, unreadable corpus; one positioned line on stderr), 1 when
any finding is an error, 0 otherwise (warnings and notes only).`,
		Example: `  assay lint suite.yaml
  assay lint suite.yaml --format github --json lint.json
  assay lint suite.yaml --format codeclimate > gl-code-quality-report.json`,
		Args: exactArgs(1, "assay lint SUITE [--target FILE] [--write-manifest]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p.SuitePath, p.Stdout, p.Stderr, p.Secrets = args[0], env.Stdout, env.Stderr, env.Secrets
			return cli.Lint(p)
		},
	}
	cmd.Flags().BoolVar(&p.WriteManifest, "write-manifest", false, "record the sha256 of the suite's files in assay.manifest.json beside it")
	cmd.Flags().StringVar(&p.Split, "split", "", "qrels split `NAME` of a BEIR directory (default test)")
	cmd.Flags().StringVar(&p.TargetFile, "target", "", "a target `FILE` whose surfaces and tools the cases are checked against")
	cmd.Flags().StringVar(&p.JSON, "json", "", "write the assay.lint/v1 findings JSON to `FILE` (- for stdout)")
	cmd.Flags().StringVar(&p.Format, "format", "text", "findings on stdout in `FORMAT` text, github (::error file=...,line=...:: annotations) or codeclimate (a GitLab Code Quality report)")
	return cmd
}
