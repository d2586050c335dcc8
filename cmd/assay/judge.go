package main

import (
	"context"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"
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
			return judgeCmd(env, storeDir, cli.JudgePlan{Ref: args[0]}, cli.JudgeLabels)
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
			return judgeCmd(env, storeDir, cli.JudgePlan{Ref: args[0], Labels: labelsFile, JSON: jsonOut}, cli.JudgeAgreement)
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

// judgeCmd opens the store of p's run (printing its repairs) and runs
// body.
func judgeCmd(env *Env, storeDir string, p cli.JudgePlan, body func(context.Context, cli.JudgePlan) error) error {
	st, done, err := openRefStore(env, storeDir, p.Ref)
	if err != nil {
		return inputError(err)
	}
	defer done()
	p.Store, p.Stdout, p.Stderr, p.Secrets = st, env.Stdout, env.Stderr, env.Secrets
	return body(env.Ctx, p)
}
