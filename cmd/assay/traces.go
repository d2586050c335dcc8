package main

import (
	"strings"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"
	"github.com/assay-eval/assay/propose"
	"github.com/assay-eval/assay/redact"
	"github.com/spf13/cobra"
)

func minArgs(n int, usage string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usageError("usage: "+usage, "%s takes at least %d argument(s), got %d", cmd.CommandPath(), n, len(args))
		}
		return nil
	}
}

func newTracesCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "traces",
		Short:   "Read production traces (OpenTelemetry) into observations",
		Example: `  assay traces import export.json -o replay.jsonl`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageError("assay traces import FILE... -o replay.jsonl", "traces needs a subcommand: import")
		},
	}
	cmd.AddCommand(newTracesImportCmd(env))
	return cmd
}

func newTracesImportCmd(env *Env) *cobra.Command {
	p := cli.TracesImportPlan{}
	cmd := &cobra.Command{
		Use:   "import FILE... -o replay.jsonl [--json FILE]",
		Short: "Turn OTLP/JSON trace exports into a replay file of observations",
		Long: `Read OpenTelemetry trace exports in OTLP/JSON (the collector's file exporter
format: one {"resourceSpans": [...]} object, or one a line) whose spans carry
the GenAI semantic conventions (gen_ai.*) or OpenInference attributes
(openinference.span.kind, retrieval.documents.N.document.*, llm.*), and write
one observation per root span whose trace holds a retrieval or an answer:
the ranking, the answer, tool calls, spans, latency, tokens, the model, and
its provenance (trace id, service, time, session, the question, the user's
feedback, evaluations). Spans of one trace are joined across files and
services. The observation's case is the trace id; with --conversations,
the traces of one session are the turns of one case named by the session id.
A file may also hold
Langfuse's own trace export (the trace objects of its public API).

The replay file is what --target replay:FILE reads, and what assay propose
picks candidate cases from. Values of attributes named like a credential
(authorization, api_key, ...) are taken out of everything written.

The report on stderr lists each observation found and each span or trace
skipped, with the reason; --json writes it as assay.traces-import/v1. The
attribute mapping is in docs/traces.md.`,
		Example: `  assay traces import export.json -o replay.jsonl
  assay traces import a.jsonl b.jsonl -o replay.jsonl --json import.json`,
		Args: minArgs(1, "assay traces import FILE... -o replay.jsonl"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p.Files, p.Stdout, p.Stderr, p.Secrets = args, env.Stdout, env.Stderr, env.Secrets
			return cli.TracesImport(p)
		},
	}
	cmd.Flags().StringVarP(&p.Out, "output", "o", "", "write the replay file (observations, one a line) to `FILE` (- for stdout)")
	cmd.Flags().StringVar(&p.JSON, "json", "", "write the assay.traces-import/v1 report to `FILE` (- for stdout)")
	cmd.Flags().BoolVar(&p.Conversations, "conversations", false, "make the traces of one session (session.id, gen_ai.conversation.id) the turns of one conversation case, named by the session id, in start-time order")
	return cmd
}

func newProposeCmd(env *Env) *cobra.Command {
	p := cli.ProposePlan{}
	var reasons, keep []string
	cmd := &cobra.Command{
		Use:   "propose REPLAY... -o candidates.jsonl [--suite SUITE] [--run RUN]",
		Short: "Pick turns of imported traces worth adding to the golden set",
		Long: `Read observations imported from traces (assay traces import) and write the
turns worth adding to the golden set as a candidate suite (JSONL): each case
has the trace's question, tags.reason, provenance (trace id, time, feedback)
and review: pending.

A turn is picked for negative feedback (thumbs_down, or a score below
--feedback-below), a low evaluation or judge score (below --judge-below), a
failed case of --run, a refusal, an empty ranking, a failed tool call, a root
span in error, or a latency above --slow-ms; --reason keeps only the reasons
named. --sample N adds N more turns sampled evenly across the values of
--stratify-by (service, or a tag of the trace's metadata).

Near-duplicates are dropped (the same question once lower-cased and stripped
of punctuation), and so is a candidate equal to a case of --suite; the counts
are reported. The question is redacted: secret values, credentials written in
it, e-mail addresses, phone numbers and runs of --pii-digits or more digits
(--keep-pii KIND leaves a kind alone).

Nothing enters the golden set without a person: assay lint reports every
pending case as an error; review each case, add what it expects, and remove
its review field to make it active.`,
		Example: `  assay propose replay.jsonl -o candidates.jsonl --suite golden.yaml
  assay propose replay.jsonl -o - --reason negative_feedback --sample 20`,
		Args: minArgs(1, "assay propose REPLAY... -o candidates.jsonl"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p.Files, p.Stdout, p.Stderr, p.Secrets = args, env.Stdout, env.Stderr, env.Secrets
			p.Options.Only, p.Options.PII.Keep = reasons, keep
			return cli.Propose(p)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&p.Out, "output", "o", "", "write the candidate suite (JSONL) to `FILE` (- for stdout)")
	fl.StringVar(&p.Name, "name", "candidates", "the candidate suite's `NAME`")
	fl.StringVar(&p.Suite, "suite", "", "the golden set `SUITE`: a candidate equal to one of its cases is dropped")
	fl.StringVar(&p.Run, "run", "", "a run of the imported observations (`RUN`.json or its directory): failed cases and low judge scores are reasons")
	fl.StringVar(&p.JSON, "json", "", "write the assay.propose/v1 counts to `FILE` (- for stdout)")
	fl.StringArrayVar(&reasons, "reason", nil, "keep only turns picked for `REASON` (repeatable): "+strings.Join(propose.Reasons[:len(propose.Reasons)-1], ", "))
	fl.Float64Var(&p.Options.FeedbackBelow, "feedback-below", propose.DefaultFeedbackBelow, "a feedback `SCORE` below this is negative")
	fl.Float64Var(&p.Options.JudgeBelow, "judge-below", propose.DefaultJudgeBelow, "an evaluation or judge `SCORE` below this is low")
	fl.Float64Var(&p.Options.SlowMs, "slow-ms", propose.DefaultSlowMs, "a latency above `MS` is slow")
	fl.IntVar(&p.Options.Sample, "sample", 0, "add `N` turns no reason picked, sampled across --stratify-by")
	fl.StringVar(&p.Options.StratifyBy, "stratify-by", propose.DefaultStratifyBy, "the strata of --sample: service or a trace tag `NAME`")
	fl.Uint64Var(&p.Options.Seed, "seed", 0, "the `SEED` of --sample's order")
	fl.StringArrayVar(&keep, "keep-pii", nil, "leave personal data of `KIND` unredacted (repeatable): "+strings.Join(redact.PIIKinds, ", "))
	fl.IntVar(&p.Options.PII.Digits, "pii-digits", redact.DefaultDigitRun, "redact runs of `N` or more digits")
	return cmd
}
