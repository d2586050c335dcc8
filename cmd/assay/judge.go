package main

import (
	"fmt"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/judge/agreement"
	"github.com/assay-eval/assay/report"
	"github.com/spf13/cobra"
)

// newJudgeCmd is `assay judge labels|agreement` (docs/judge.md).
func newJudgeCmd(env *Env) *cobra.Command {
	var storeDir string
	cmd := &cobra.Command{
		Use:     "judge labels | agreement RUN",
		Short:   "Check a run's model judge against people's labels",
		Example: "  assay judge labels latest > labels.jsonl\n  assay judge agreement latest --labels labels.jsonl",
	}
	storeFlagVar(cmd.PersistentFlags(), &storeDir)
	labels := &cobra.Command{
		Use:     "labels RUN",
		Short:   "Write a labels file template (JSON Lines) of a judged run's cases and criteria, for people to fill in",
		Example: "  assay judge labels latest > labels.jsonl",
		Args:    exactRun("assay judge labels RUN"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var rows []agreement.TemplateRow
			var queries map[string]string
			_, err := judgedRun(env, storeDir, args[0], true, func(run *assay.Run) {
				// The questions, from the suite the run recorded when it is
				// unchanged (else the rows carry none).
				queries = map[string]string{}
				harness.SuiteCases(run.Suite, func(c assay.Case) bool { queries[c.ID] = c.Query; return true })
			}, func(r *assay.CaseResult, rubric []assay.JudgeCriterion, seen bool) {
				if seen {
					return
				}
				answer := ""
				if r.Observation != nil {
					answer = r.Observation.Answer
				}
				for _, c := range rubric {
					rows = append(rows, agreement.TemplateRow{Case: r.ID, Criterion: c.Name, Query: queries[r.ID], Answer: answer})
				}
			})
			if err != nil {
				return err
			}
			return agreement.WriteTemplate(env.Stdout, rows)
		},
	}
	var labelsFile, jsonOut string
	agree := &cobra.Command{
		Use:   "agreement RUN --labels FILE",
		Short: "Measure how a run's judge agrees with people's labels: kappa, AC1, accuracy, TPR, TNR, the corrected mean",
		Long: `Measure how a run's judge agrees with a labels file (docs/judge.md):
per criterion n, Cohen's kappa and Gwet's AC1 with 95% bootstrap intervals
over cases, accuracy, TPR, TNR, the confusion matrix, Spearman's rho when
people gave scores, the prediction-powered (PPI) mean beside the judge's,
the cases where judge and people disagree most, and with two or more
labellers their own agreement.`,
		Example: "  assay judge agreement latest --labels labels.jsonl\n  assay judge agreement latest --labels labels.jsonl --json agreement.json",
		Args:    exactRun("assay judge agreement RUN --labels FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if labelsFile == "" {
				return usageError("assay judge agreement RUN --labels FILE (write one with assay judge labels RUN)", "judge agreement needs --labels FILE")
			}
			l, err := agreement.ReadLabelsFile(labelsFile)
			if err != nil {
				return inputError(err)
			}
			scores := agreement.NewScores(agreement.KeepLabelled(l))
			rubric, err := judgedRun(env, storeDir, args[0], false, nil, func(r *assay.CaseResult, _ []assay.JudgeCriterion, _ bool) { scores.Add(r) })
			if err != nil {
				return err
			}
			rep, err := agreement.Compute(rubric, scores, l, agreement.Options{})
			if err != nil {
				return inputError(err)
			}
			if jsonOut != "" {
				if err := writeTo(env, jsonOut, rep.WriteJSON); err != nil {
					return inputError(err)
				}
				if jsonOut == "-" {
					return nil
				}
			}
			return rep.WriteText(env.Stdout)
		},
	}
	agree.Flags().StringVar(&labelsFile, "labels", "", "the labels `FILE` (JSON Lines; assay judge labels writes a template)")
	agree.Flags().StringVar(&jsonOut, "json", "", "write the report as JSON to `FILE` (- for stdout)")
	cmd.AddCommand(labels, agree)
	return cmd
}

func exactRun(usage string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usageError("usage: "+usage, "%s needs one RUN, got %d arguments", cmd.CommandPath(), len(args))
		}
		return nil
	}
}

// judgedRun loads the run ref, calls loaded with it (when not nil), then
// fn with each of its results, with their observations when withObs (seen:
// an earlier trial of the case came first), returning the judge's rubric
// as the run recorded it. A run without a judge is an input error.
func judgedRun(env *Env, storeDir, ref string, withObs bool, loaded func(*assay.Run), fn func(r *assay.CaseResult, rubric []assay.JudgeCriterion, seen bool)) ([]assay.JudgeCriterion, error) {
	st, done, err := openRefStore(env, storeDir, ref)
	if err != nil {
		return nil, inputError(err)
	}
	defer done()
	run, path, err := harness.LoadRef(env.Ctx, st, ref)
	if err != nil {
		return nil, inputError(err)
	}
	js := run.Summary.Judge
	if js == nil {
		return nil, inputError(fmt.Errorf("run %s has no judge scores: run it with a judge (judge: in the suite, or --judge FILE)", harness.ShortID(run.RunID)))
	}
	rubric := js.Rubric
	if len(rubric) == 0 {
		// A run recorded before runs kept their rubric: the default's.
		rubric = assay.DefaultJudgeRubric
		report.Warnings(env.Stderr, []string{"the run records no judge rubric: read its scores on the default rubric (relevance, groundedness, completeness, 0 to 1)"})
	}
	if loaded != nil {
		loaded(run)
	}
	seen := map[string]bool{}
	err = harness.RefCases(env.Ctx, st, run, path, withObs, func(r assay.CaseResult) error {
		fn(&r, rubric, seen[r.ID])
		seen[r.ID] = true
		return nil
	})
	if err != nil {
		return nil, inputError(err)
	}
	return rubric, nil
}
