package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/judge/agreement"
	"github.com/assay-eval/assay/redact"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
)

// JudgePlan is `assay judge labels RUN` and `assay judge agreement RUN
// --labels FILE [--json FILE]` (docs/judge.md).
type JudgePlan struct {
	Ref string
	// Store is the run store (nil when Ref is a path).
	Store store.Store
	// Labels is the labels file and JSON the report's JSON output ("-":
	// stdout, instead of the text) of agreement.
	Labels string
	JSON   string
	Stdout io.Writer
	Stderr io.Writer
	// Secrets redacts what is written to a file.
	Secrets *redact.Redactor
}

// JudgeLabels writes a labels template of the run's cases and criteria
// (with each case's question, as the run kept it, else from the run's
// suite file when it is unchanged, and its first answer) to Stdout.
func JudgeLabels(ctx context.Context, p JudgePlan) error {
	var rows []agreement.TemplateRow
	var queries map[string]string
	_, err := judgedRun(ctx, p, true, func(run *assay.Run, path string) {
		queries = map[string]string{}
		harness.RunSuiteCases(ctx, p.Store, run, path, func(c assay.Case) bool { queries[c.ID] = c.Query; return true })
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
	return agreement.WriteTemplate(p.Stdout, rows)
}

// JudgeAgreement writes the agreement of the run's judge with the labels
// file: as text to Stdout, and as JSON to p.JSON when set.
func JudgeAgreement(ctx context.Context, p JudgePlan) error {
	if p.Labels == "" {
		return usageError("assay judge agreement RUN --labels FILE (write one with assay judge labels RUN)", "judge agreement needs --labels FILE")
	}
	l, err := agreement.ReadLabelsFile(p.Labels)
	if err != nil {
		return inputError(err)
	}
	scores := agreement.NewScores(agreement.KeepLabelled(l))
	rubric, err := judgedRun(ctx, p, false, nil, func(r *assay.CaseResult, _ []assay.JudgeCriterion, _ bool) { scores.Add(r) })
	if err != nil {
		return err
	}
	rep, err := agreement.Compute(rubric, scores, l, agreement.Options{})
	if err != nil {
		return inputError(err)
	}
	if p.JSON != "" {
		if err := WriteTo(p.Stdout, p.Secrets, p.JSON, rep.WriteJSON); err != nil {
			return inputError(err)
		}
		if p.JSON == "-" {
			return nil
		}
	}
	return rep.WriteText(p.Stdout)
}

// judgedRun loads the plan's run, calls loaded with it (when not nil),
// then fn with each of its results, with their observations when withObs
// (seen: an earlier trial of the case came first), returning the judge's
// rubric as the run recorded it. A run without a judge is an input error.
func judgedRun(ctx context.Context, p JudgePlan, withObs bool, loaded func(run *assay.Run, path string), fn func(r *assay.CaseResult, rubric []assay.JudgeCriterion, seen bool)) ([]assay.JudgeCriterion, error) {
	run, path, err := harness.LoadRef(ctx, p.Store, p.Ref)
	if err != nil {
		return nil, inputError(err)
	}
	js := run.Summary.Judge
	if js == nil {
		return nil, inputError(fmt.Errorf("run %s has no judge scores: run it with a judge (judge: in the suite, or --judge FILE)", report.ShortID(run.RunID)))
	}
	rubric := js.Rubric
	if len(rubric) == 0 {
		// A run recorded before runs kept their rubric: the default's.
		rubric = assay.DefaultJudgeRubric
		report.Warnings(p.Stderr, []string{"the run records no judge rubric: its scores are read on the default rubric (relevance, groundedness, completeness, 0 to 1)"})
	}
	if loaded != nil {
		loaded(run, path)
	}
	seen := map[string]bool{}
	err = harness.RefCases(ctx, p.Store, run, path, withObs, func(r assay.CaseResult) error {
		fn(&r, rubric, seen[r.ID])
		seen[r.ID] = true
		return nil
	})
	if err != nil {
		return nil, inputError(err)
	}
	return rubric, nil
}
