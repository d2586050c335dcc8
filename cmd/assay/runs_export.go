package main

import (
	"github.com/assay-eval/assay/cmd/assay/internal/cli"
	"github.com/spf13/cobra"
)

type exportFlags struct {
	trecRun, trecQrels, trecQrelsBinary, trecTag, suite string
}

// newRunsExportCmd is `assay runs export REF`: a stored run's rankings as a
// TREC run file, and its suite's judgments as qrels.
func newRunsExportCmd(env *Env, rf *runsFlags) *cobra.Command {
	f := &exportFlags{}
	cmd := &cobra.Command{
		Use:   "export REF --trec-run FILE [--trec-qrels FILE]",
		Short: "Write a stored run's rankings as a TREC run file (and its judgments as qrels)",
		Long: `Export writes the rankings a stored run recorded as a TREC run file
(qid Q0 docno rank score tag; the tag is the run id or --trec-tag), so the run
can be evaluated with trec_eval, ranx or ir_measures. With --trec-qrels it also
writes the judgments of the run's cases, read from the suite the run used
(--suite, default the path the run recorded), which must be unchanged since.

A suite with recall_over: relevant counts as relevant, for its binary
measures, only each case's relevant list, where trec_eval counts every
document graded 1 or more: --trec-qrels keeps the grades (for ndcg), and
--trec-qrels-binary FILE writes the qrels that give trec_eval's binary
measures assay's documents. Without it, a warning says when they differ.`,
		Example: `  assay runs export latest --trec-run run.txt --trec-qrels qrels.txt
  assay trec -m all_trec qrels.txt run.txt`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError("assay runs export REF --trec-run FILE", "runs export takes one run reference, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runsExport(env, args[0], rf, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.trecRun, "trec-run", "", "write the run's rankings to `FILE` as a TREC run")
	fl.StringVar(&f.trecQrels, "trec-qrels", "", "write the judgments of the run's cases to `FILE` as TREC qrels")
	fl.StringVar(&f.trecQrelsBinary, "trec-qrels-binary", "", "with --trec-qrels, also write to `FILE` qrels for trec_eval's binary measures of a recall_over: relevant suite (relevant list 1, other judgments 0)")
	fl.StringVar(&f.trecTag, "trec-tag", "", "the run `TAG` of --trec-run (default the run id)")
	fl.StringVar(&f.suite, "suite", "", "the suite `FILE` the judgments are read from (default the run's)")
	return cmd
}

func runsExport(env *Env, ref string, rf *runsFlags, f *exportFlags) error {
	p := cli.ExportPlan{Ref: ref, TrecRun: f.trecRun, TrecQrels: f.trecQrels, TrecQrelsBinary: f.trecQrelsBinary, TrecTag: f.trecTag, Suite: f.suite, Stderr: env.Stderr}
	if err := p.Check(); err != nil {
		return err
	}
	// The store's repairs are printed as every read command prints them.
	st, closeStore, err := openRefStore(env, rf.storeDir, ref)
	if err != nil {
		return inputError(err)
	}
	defer closeStore()
	p.Store = st
	return cli.Export(env.Ctx, p)
}
