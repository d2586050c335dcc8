package cli

import (
	"context"
	"fmt"
	"io"
	"maps"

	"github.com/assay-eval/assay/harness"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/internal/atomicfile"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/suite"
	"github.com/assay-eval/assay/trec"
)

// ExportPlan is a stored run written as TREC files (assay runs export).
type ExportPlan struct {
	// Ref is the run; TrecRun the TREC run file its rankings go to (tag
	// TrecTag, default the run id); TrecQrels the qrels file of its cases'
	// judgments, read from Suite (default the suite path the run recorded).
	Ref                         string
	TrecRun, TrecQrels, TrecTag string
	Suite                       string
	// TrecQrelsBinary, with TrecQrels, is a second qrels file for a suite
	// with recall_over: relevant: each case's relevant list at grade 1 and
	// its other judgments at 0, which gives trec_eval's binary measures
	// the documents assay's count (TrecQrels keeps the grades, for nDCG).
	TrecQrelsBinary string
	// Stderr receives warnings ("assay: warning: ..."); nil: none.
	Stderr io.Writer
	// Store resolves Ref when it is not a path; nil: opened from StoreDir
	// when needed (OpenRefStore).
	Store        store.Store
	StoreDir     string
	StoreOptions store.OpenOptions
}

// Export writes a stored run's rankings as a TREC run file, and its
// suite's judgments (of the cases the run ran) as qrels. The suite must
// be unchanged since the run (same fingerprint).
func Export(ctx context.Context, f ExportPlan) error {
	ref := f.Ref
	if err := f.Check(); err != nil {
		return err
	}
	st := f.Store
	if st == nil {
		var err error
		if st, err = OpenRefStore(f.StoreDir, f.StoreOptions, ref); err != nil {
			return inputError(err)
		}
		if st != nil {
			defer st.Close()
		}
	}
	return export(ctx, f, st)
}

// Check is the usage check of the plan, made before any store is opened.
func (f ExportPlan) Check() error {
	if f.TrecRun == "" && f.TrecQrels == "" {
		return usageError("assay runs export REF --trec-run FILE [--trec-qrels FILE]", "runs export needs --trec-run or --trec-qrels")
	}
	outs := []Output{{"--trec-run", f.TrecRun}, {"--trec-qrels", f.TrecQrels}, {"--trec-qrels-binary", f.TrecQrelsBinary}}
	if err := DistinctOutputs(outs); err != nil {
		return err
	}
	if f.TrecQrelsBinary != "" && f.TrecQrels == "" {
		return usageError("", "--trec-qrels-binary is a second qrels file beside --trec-qrels, which is not given")
	}
	for _, o := range outs {
		if o.Path == "-" {
			return usageError("", "%s writes a file: give a path, not -", o.Flag)
		}
	}
	if f.TrecTag != "" && f.TrecRun == "" {
		return usageError("", "--trec-tag names the run of --trec-run, which is not given")
	}
	if f.Suite != "" && f.TrecQrels == "" {
		return usageError("", "--suite is where --trec-qrels reads the judgments, and --trec-qrels is not given")
	}
	return nil
}

func export(ctx context.Context, f ExportPlan, st store.Store) error {
	ref := f.Ref
	run, path, err := harness.LoadRef(ctx, st, ref)
	if err != nil {
		return inputError(err)
	}
	if run.Options.Trials > 1 {
		return usageError("export a run made with --trials 1", "run %s has %d trials per case, and a TREC run holds one ranking per case", report.ShortID(run.RunID), run.Options.Trials)
	}
	tag := f.TrecTag
	if tag == "" {
		tag = run.RunID
	}
	if _, err := trec.NewRunWriter(io.Discard, tag); err != nil {
		return usageError("", "--trec-tag: %v", err)
	}
	// The case ids of the run: the qrels cover these only (a run made with
	// --case or --tag ran part of its suite).
	inRun := map[string]bool{}
	if f.TrecRun != "" {
		err = atomicfile.Replace(f.TrecRun, func(w io.Writer) error {
			rw, err := trec.NewRunWriter(w, tag)
			if err != nil {
				return err
			}
			err = harness.RefCases(ctx, st, run, path, true, func(r assay.CaseResult) error {
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
	} else if err := harness.RefCases(ctx, st, run, path, false, func(r assay.CaseResult) error {
		inRun[r.ID] = true
		return nil
	}); err != nil {
		return inputError(err)
	}
	if f.TrecQrels == "" {
		return nil
	}
	sp := f.Suite
	if sp == "" {
		sp = run.Suite.Path
	}
	if sp == "" {
		return usageError("give --suite PATH", "run %s records no suite path to read the judgments from", report.ShortID(run.RunID))
	}
	ss, err := suite.Stream(sp, suite.LoadOptions{})
	if err != nil {
		return inputError(fmt.Errorf("--trec-qrels: %w", err))
	}
	if run.Suite.Fingerprint != "" && ss.Fingerprint != run.Suite.Fingerprint {
		return inputError(fmt.Errorf("--trec-qrels: suite %s has changed since run %s (fingerprint %s, the run's %s): give --suite the suite the run used", sp, report.ShortID(run.RunID), ss.Fingerprint, run.Suite.Fingerprint))
	}
	relevantOnly := ss.Suite.RecallOver == assay.RecallOverRelevant
	bin := binaryCheck{relevantOnly: relevantOnly}
	err = atomicfile.Replace(f.TrecQrels, func(w io.Writer) error {
		qw := trec.NewQrelsWriter(w)
		err := ss.Cases(func(c assay.Case) error {
			if !inRun[c.ID] {
				return nil
			}
			bin.add(c)
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
	if f.TrecQrelsBinary != "" {
		err = atomicfile.Replace(f.TrecQrelsBinary, func(w io.Writer) error {
			qw := trec.NewQrelsWriter(w)
			err := ss.Cases(func(c assay.Case) error {
				if !inRun[c.ID] {
					return nil
				}
				if relevantOnly {
					return qw.Add(c.ID, binaryJudgments(c))
				}
				return qw.Add(c.ID, binaryOf(c.Judgments))
			})
			if err != nil {
				return err
			}
			return qw.Flush()
		})
		if err != nil {
			return inputError(fmt.Errorf("--trec-qrels-binary %w", err))
		}
	} else if w := bin.warning(sp, "add --trec-qrels-binary FILE"); w != "" && f.Stderr != nil {
		report.Warnings(f.Stderr, []string{w})
	}
	return nil
}

// binaryCheck counts, for a suite with recall_over: relevant, the cases
// written to a qrels file whose grades make trec_eval's binary measures
// count other documents than assay's (its relevant list): the one check
// behind the warning of runs export --trec-qrels and run --trec-qrels.
type binaryCheck struct {
	relevantOnly     bool
	differ, exported int
}

// add counts a case whose judgments are written.
func (b *binaryCheck) add(c assay.Case) {
	if !b.relevantOnly || !c.Judged() {
		return
	}
	b.exported++
	if !maps.Equal(binaryJudgments(c), binaryOf(c.Judgments)) {
		b.differ++
	}
}

// warning is the warning to give when some written case differs ("" when
// none); fix says how to get the binary qrels.
func (b *binaryCheck) warning(suitePath, fix string) string {
	if b.differ == 0 {
		return ""
	}
	return fmt.Sprintf("--trec-qrels: suite %s has recall_over: relevant, and in %d of %d exported cases a document graded 1 or more is not on the case's relevant list (or one on it is graded 0): trec_eval's binary measures (recall, P, map, recip_rank, success, Rprec, bpref) count other documents than assay's; %s for qrels that give assay's (each case's relevant list at grade 1, its other judgments at 0), and keep --trec-qrels for ndcg", suitePath, b.differ, b.exported, fix)
}

// binaryJudgments are a case's judgments as its binary measures see them
// under recall_over: relevant: its relevant documents at grade 1, its
// other judged documents at 0.
func binaryJudgments(c assay.Case) map[string]int {
	out := make(map[string]int, len(c.Judgments)+len(c.Relevant))
	for d := range c.Judgments {
		out[d] = 0
	}
	for _, d := range c.Relevant {
		out[d] = 1
	}
	return out
}

// binaryOf is judgments as trec_eval's binary measures see them (at its
// default level 1): grade >= 1 relevant (1), the others judged (0).
func binaryOf(j map[string]int) map[string]int {
	out := make(map[string]int, len(j))
	for d, g := range j {
		out[d] = 0
		if g >= 1 {
			out[d] = 1
		}
	}
	return out
}

// CompareErr is the outcome of a comparison: a Usage error when the runs
// share no case (nothing was compared), Regressed, or nil.
func CompareErr(rep compare.Report) error {
	return CompareOutcome(rep, false)
}

// CompareOutcome is CompareErr where failOnInconclusive makes an
// inconclusive verdict Regressed too (--fail-on inconclusive).
func CompareOutcome(rep compare.Report, failOnInconclusive bool) error {
	if rep.PairedCases == 0 {
		return usageError("compare two runs of the same suite", "the two runs share no case: nothing was compared")
	}
	if rep.Verdict == compare.Regressed {
		return &harness.Error{Kind: harness.Regressed}
	}
	if rep.Verdict == compare.Inconclusive && failOnInconclusive {
		return &harness.Error{Kind: harness.Regressed, Err: fmt.Errorf("the comparison is inconclusive (--fail-on inconclusive)")}
	}
	return nil
}

// RunComparisonsOutcome is what the comparisons of `assay run --baseline`
// add to its exit status: with failOnInconclusive, an inconclusive
// comparison (of any variant) fails as a regression does; otherwise each
// inconclusive comparison gets its one-line warning on stderr (naming the
// variant of a matrix), and nil is returned. A regression is already the
// run's outcome (harness.Run).
func RunComparisonsOutcome(stderr io.Writer, res *harness.Result, failOnInconclusive bool) error {
	var warns []string
	for i, rep := range res.Comparisons {
		if rep == nil || rep.Verdict != compare.Inconclusive {
			continue
		}
		name := ""
		if res.Matrix && i < len(res.Runs) {
			name = gate.VariantName(res.Runs[i].Variant)
		}
		if failOnInconclusive {
			what := "the comparison is inconclusive"
			if name != "" {
				what = "the comparison of variant " + name + " is inconclusive"
			}
			return &harness.Error{Kind: harness.Regressed, Err: fmt.Errorf("%s (--fail-on inconclusive)", what)}
		}
		w := InconclusiveWarning(*rep)
		if name != "" {
			w = "variant " + name + ": " + w
		}
		warns = append(warns, w)
	}
	report.Warnings(stderr, warns)
	return nil
}

// InconclusiveWarning is the one line a caller prints when a comparison
// is inconclusive and that does not fail it: "" otherwise.
func InconclusiveWarning(rep compare.Report) string {
	if rep.Verdict != compare.Inconclusive {
		return ""
	}
	return "verdict inconclusive: neither a regression nor equivalence was shown (see the reasons); --fail-on inconclusive makes it fail"
}
