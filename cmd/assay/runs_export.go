package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/internal/atomicfile"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/suite"
	"github.com/assay-eval/assay/trec"
	"github.com/spf13/cobra"
)

type exportFlags struct {
	trecRun, trecQrels, trecTag, suite string
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
(--suite, default the path the run recorded), which must be unchanged since.`,
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
	fl.StringVar(&f.trecTag, "trec-tag", "", "the run tag of --trec-run (default the run id)")
	fl.StringVar(&f.suite, "suite", "", "the suite `PATH` the judgments are read from (default the run's)")
	return cmd
}

func runsExport(env *Env, ref string, rf *runsFlags, f *exportFlags) error {
	if f.trecRun == "" && f.trecQrels == "" {
		return usageError("assay runs export REF --trec-run FILE [--trec-qrels FILE]", "runs export needs --trec-run or --trec-qrels")
	}
	if err := distinctOutputs([]output{{"--trec-run", f.trecRun}, {"--trec-qrels", f.trecQrels}}); err != nil {
		return err
	}
	for _, o := range []output{{"--trec-run", f.trecRun}, {"--trec-qrels", f.trecQrels}} {
		if o.path == "-" {
			return usageError("", "%s writes a file: give a path, not -", o.flag)
		}
	}
	if f.trecTag != "" && f.trecRun == "" {
		return usageError("", "--trec-tag names the run of --trec-run, which is not given")
	}
	if f.suite != "" && f.trecQrels == "" {
		return usageError("", "--suite is where --trec-qrels reads the judgments, and --trec-qrels is not given")
	}
	st, closeStore, err := openRefStore(env, rf.storeDir, ref)
	if err != nil {
		return inputError(err)
	}
	defer closeStore()
	path, err := resolveRunRef(env, st, ref)
	if err != nil {
		return inputError(err)
	}
	run, err := store.LoadRun(path)
	if err != nil {
		return inputError(err)
	}
	if run.Options.Trials > 1 {
		return usageError("export a run made with --trials 1", "run %s has %d trials per case, and a TREC run holds one ranking per case", harness.ShortID(run.RunID), run.Options.Trials)
	}
	tag := f.trecTag
	if tag == "" {
		tag = run.RunID
	}
	if _, err := trec.NewRunWriter(io.Discard, tag); err != nil {
		return usageError("", "--trec-tag: %v", err)
	}
	dir := filepath.Dir(path)
	// The case ids of the run: the qrels cover these only (a run made with
	// --case or --tag ran part of its suite).
	inRun := map[string]bool{}
	if f.trecRun != "" {
		err = atomicfile.Replace(f.trecRun, func(w io.Writer) error {
			rw, err := trec.NewRunWriter(w, tag)
			if err != nil {
				return err
			}
			err = store.ReadCases(dir, func(r assay.CaseResult) error {
				inRun[r.ID] = true
				if r.Error != nil || r.Observation == nil {
					return nil // scored as an empty ranking; nothing to write
				}
				return rw.Add(r.ID, r.Observation.Ranking())
			})
			if err != nil {
				return err
			}
			return rw.Flush()
		})
		if err != nil {
			return inputError(fmt.Errorf("--trec-run %w", err))
		}
	} else if err := store.ReadCases(dir, func(r assay.CaseResult) error {
		inRun[r.ID] = true
		return nil
	}); err != nil {
		return inputError(err)
	}
	if f.trecQrels == "" {
		return nil
	}
	sp := f.suite
	if sp == "" {
		sp = run.Suite.Path
	}
	if sp == "" {
		return usageError("give --suite PATH", "run %s records no suite path to read the judgments from", harness.ShortID(run.RunID))
	}
	ss, err := suite.Stream(sp, suite.LoadOptions{})
	if err != nil {
		return inputError(fmt.Errorf("--trec-qrels: %w", err))
	}
	if run.Suite.Fingerprint != "" && ss.Fingerprint != run.Suite.Fingerprint {
		return inputError(fmt.Errorf("--trec-qrels: suite %s has changed since run %s (fingerprint %s, the run's %s): give --suite the suite the run used", sp, harness.ShortID(run.RunID), ss.Fingerprint, run.Suite.Fingerprint))
	}
	err = atomicfile.Replace(f.trecQrels, func(w io.Writer) error {
		qw := trec.NewQrelsWriter(w)
		err := ss.Cases(func(c assay.Case) error {
			if !inRun[c.ID] {
				return nil
			}
			return qw.Add(c.ID, c.Judgments)
		})
		if err != nil {
			return err
		}
		return qw.Flush()
	})
	if err != nil {
		return inputError(fmt.Errorf("--trec-qrels %w", err))
	}
	return nil
}
