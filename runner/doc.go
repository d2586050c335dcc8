// Package runner runs a suite's cases against a target and aggregates the
// results (docs/metrics.md#aggregates).
//
// Stream sends every case of an assay.Seq[assay.Case] (times every trial: a case's trials
// go one after another) to the target with bounded concurrency, a per-case
// timeout and cancellation; it grades each observation with package grade
// and hands the result to an OnResult callback (for the store, the trace
// recorder, the aggregation and progress) in suite order, then trial.
// Results that finish early wait for the earlier ones, at most Window of
// them, so a run holds a bounded number of observations however many cases
// it has, and everything computed from the results in order (sums,
// percentiles, the first system version) is deterministic. Run is Stream
// over a slice that also returns the results.
//
// Failure is data: when the target returns an error the case is recorded with
// the error's class (timeout when the per-case deadline passed, canceled when
// the run was interrupted, otherwise the class the target gave) and the run
// goes on. When the run's context is canceled (Ctrl-C), no new case starts,
// cases in flight are abandoned and not recorded, and the result is marked
// incomplete. With MaxErrors > 0 the run also stops early, incomplete, at
// the MaxErrors-th errored observation in suite order (the system under test
// is plainly down): the results end with it, whatever else was in flight. An
// error from the case sequence (a suite file that changed) stops the run the same
// way and is returned.
//
// Cost: each observation's usage (assay.UsageOf) is priced with
// Options.Prices into CaseResult.Usage. With Options.MaxCost or MaxTokens
// the system has a budget that fails closed (budget.go): a case is
// reserved, in suite order, at the dearest case settled so far before it
// is sent (the first case goes alone), and settled with its usage; the
// first case whose reservation would pass a bound, and every case after
// it, is recorded not run (error class not_run, graded, never a pass), and
// the run is incomplete with Result.Budget saying where it stopped. An
// answer without usage (or without a price, under MaxCost) stops the run:
// what is not counted cannot be bounded.
//
// Targets may offer two optional capabilities, found by type assertion:
// Setup(ctx) error, called once before the first case (a failure stops the
// run), and Cleanup(ctx, case, observation) error, called after each case is
// graded, also when it failed, unless Options.Keep is set. A cleanup that
// fails is recorded as a failed "cleanup" check of its case (the case keeps
// its verdict: it was graded before) and named in Result.Warnings (the first
// five by case, the rest counted), so the run says what it left behind.
//
// A third, Measures() map[string]float64, reports run-level measures
// (index_bytes, build_ms): read once after the last case (also of a run that
// stopped early) into Result.Measures. Observations may carry measures too
// (Observation.Measures): per name the result keeps the value of the last
// case in suite order (emission order, so concurrency does not change it),
// and the Measures method, read after them, overrides. A value that is not
// a finite number, or a name assay.IsMeasureName refuses, is left out with
// a warning, so a gate on it fails as undefined.
//
// Secrets: each observation is graded as the target returned it, and only
// then redacted (package redact), with Options.Redactor or, when that is
// nil, the target's own secrets (the optional capability Secrets()
// []redact.Secret): the result OnResult receives (observation, checks,
// cleanup details, error) holds no secret, nor do the warnings, versions,
// Stopped text and error of the Result. Grading the raw observation is what
// keeps a secret that is also a corpus word (a token "demo" and a document
// demo.md) from changing the grades; the redacted result may then show
// that word as ${VAR} (the document as ${KB_TOKEN}.md), by design.
//
// A conversation case (assay.Case.Turns) is one job: its turns are
// observed one after another by the worker that took it, each as the
// case c.TurnCase gives (the turn's query and expectations, its Turn, and
// its History: the earlier user messages and answers, grade.History), with
// its own timeout, and every turn is observed even after one failed. The
// conversation is graded by grade.Conversation; its Cleanup is called
// once, after the last turn, with the conversation's observation
// (grade.ConversationObservation); the judge, when set, reads the last
// turn with the history before it (and the conversation's judge bounds
// when it states any).
//
// Summarize and Segments implement the aggregation of docs/metrics.md; an Aggregator
// computes the same one result at a time.
package runner
