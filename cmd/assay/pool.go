package main

import (
	"github.com/assay-eval/assay/cmd/assay/internal/cli"
	"github.com/assay-eval/assay/pool"
	"github.com/spf13/cobra"
)

// newPoolCmd is `assay pool RUN... --depth K`: the unjudged documents of
// the runs' top K, to label (docs/judging.md).
func newPoolCmd(env *Env) *cobra.Command {
	p := cli.PoolPlan{}
	var storeDir string
	cmd := &cobra.Command{
		Use:   "pool RUN... --depth K",
		Short: "Write the unjudged documents of runs' top K for people to label",
		Long: `Pool writes the documents people should judge next, by TREC's pooling
method: for each case, the union of the top K documents (--depth) of every run
given, less those the suite judges already (any grade, 0 included). Each line
carries the case, its query, the document's id, title and text (the corpus
document's, else the text the target returned), its best rank, how many of
the runs have it in their top K, and an empty grade and labeller to fill in.

RUN is a run id, a run.json path, latest or latest~N, as for compare. The
judgments, queries and corpus are read from --suite (default the suite the
first run recorded), as it is now: a suite whose judgments grew since the
runs pools fewer documents.

The pool is JSONL (one object per line), or TSV with --format tsv or an
-o name ending in .tsv (a header line, then one row per document; tabs and
line breaks inside a value become spaces). Give the labelled file back to
'assay judgments import'. What the pool held is told on stderr.`,
		Example: `  assay pool latest latest~1 --depth 10 -o pool.jsonl
  assay judgments import pool.jsonl --suite suite.yaml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("assay pool RUN... --depth K", "pool needs at least one run")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("depth") {
				return usageError("assay pool RUN... --depth K", "pool needs --depth K, the number of top documents of each run to pool")
			}
			st, closeStore, err := openRefStore(env, storeDir, args...)
			if err != nil {
				return inputError(err)
			}
			defer closeStore()
			p.Refs, p.Store, p.Stdout, p.Stderr, p.Secrets = args, st, env.Stdout, env.Stderr, env.Secrets
			return cli.Pool(env.Ctx, p)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&p.Depth, "depth", 0, "pool the top `K` documents of each run's ranking per case")
	fl.StringVar(&p.Suite, "suite", "", "the suite `FILE` whose judgments, queries and corpus are read (default the first run's)")
	fl.StringVarP(&p.Out, "output", "o", "-", "write the pool to `FILE` (- for stdout)")
	fl.StringVar(&p.Format, "format", "", "pool `FORMAT` jsonl or tsv (default by the -o extension, else jsonl)")
	storeFlagVar(fl, &storeDir)
	return cmd
}

// newJudgmentsCmd is `assay judgments import FILE...`.
func newJudgmentsCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "judgments import FILE... --suite SUITE",
		Short: "Merge labels people made into a suite's judgments file",
		Example: `  assay pool latest latest~1 --depth 10 -o pool.jsonl
  assay judgments import pool.jsonl --suite suite.yaml --labeller ana`,
	}
	p := cli.JudgmentsImportPlan{}
	var onConflict string
	imp := &cobra.Command{
		Use:   "import FILE... --suite SUITE",
		Short: "Merge labels (a labelled pool file) into the suite's judgments_file",
		Long: `Import merges labels into the judgments file the suite names with
judgments_file: (a JSONL file the suite reads at load), rewriting it whole or
not at all; the suite file itself is never edited, so its comments and layout
stay as written.

FILE is a labelled pool file (JSONL, or TSV when its name ends in .tsv): each
line with a grade is one label {case, doc, grade, labeller, time}; lines whose
grade is empty or null are skipped and counted. A label without a labeller
takes --labeller (without one, the import is refused); one without a time
takes the time of the import. A document named by its path or title is
imported under its corpus id, with a warning; the case must be one of the
suite's and, with a corpus, the document one of the corpus's.

A label whose grade differs from the one the suite has for that document (in
its judgments file or its own judgments:), or from another label of the
import, is a conflict. --on-conflict says what to do:

  error    refuse the import, listing the conflicts (the default)
  keep     keep the grade the suite has (of two new labels, the first)
  replace  take the new label (of two new labels, the last)
  max      take the higher grade
  min      take the lower grade

A grade of the suite's own judgments: can only be kept (keep, or max/min when
it wins): import writes the judgments file only, so replacing one is refused;
edit the suite instead.`,
		Example: `  assay judgments import pool.jsonl --suite suite.yaml --labeller ana
  assay judgments import labels.tsv --suite suite.yaml --on-conflict max`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("assay judgments import FILE... --suite SUITE", "judgments import needs at least one labels file")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if p.Suite == "" {
				return usageError("assay judgments import FILE... --suite SUITE", "judgments import needs --suite, the suite whose judgments_file takes the labels")
			}
			if err := p.OnConflict.UnmarshalText([]byte(onConflict)); err != nil {
				return usageError("", "--on-conflict: %v", err)
			}
			p.Files, p.Stdout, p.Stderr, p.Now = args, env.Stdout, env.Stderr, env.now
			return cli.JudgmentsImport(p)
		},
	}
	fl := imp.Flags()
	fl.StringVar(&p.Suite, "suite", "", "the suite `FILE` whose judgments_file takes the labels")
	fl.StringVar(&onConflict, "on-conflict", string(pool.ConflictError), "`RULE` for a label whose grade differs from the suite's: error, keep, replace, max or min")
	fl.StringVar(&p.Labeller, "labeller", "", "the labeller `NAME` of labels that name none")
	cmd.AddCommand(imp)
	return cmd
}
