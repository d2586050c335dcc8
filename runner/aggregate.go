package runner

import (
	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/aggregate"
)

// Summarize aggregates results as docs/metrics.md defines it. metrics are the canonical
// metric names to report, in report order.
//
// The counting unit is one CaseResult, that is one case × trial: a suite of
// 10 cases run with 3 trials has Cases = 30, and each trial's pass, error,
// metric values and latency count once.
//
//   - Cases: number of results. Graded: results with a non-nil Pass (the case
//     stated expectations). Passed: graded results that passed. Failed:
//     Graded − Passed (an errored graded result counts as failed, since grade
//     sets its Pass to false). Errors: results whose observation errored,
//     graded or not. Retried: results whose observation needed more than
//     one attempt (a target that retried a transient failure).
//   - PassRate = Passed / Graded; nil when nothing was graded (a suite of
//     judgments only).
//   - Metrics: for each name (every name the results carry when metrics is
//     nil), the mean over the results that carry the value
//     (judged cases; an errored judged case carries zeros), with its n. A
//     metric no result carries is omitted.
//   - Each metric's Upper: the mean of the values with the unjudged
//     documents counted relevant (CaseResult.Upper, else the value), set
//     when every result of its n recorded its judged coverage.
//   - Nuggets: the nugget assignments of the results, counted by
//     assignment and by who assigned them; nil when no result has one.
//   - Unjudged: per cutoff ("unj@10"), the mean of CaseResult.Unjudged
//     over the results that carry it (judged cases), with its n.
//   - Rates. The denominators are answered results (no error), except
//     error: Error = Errors / Cases; NoHit = answered with an empty ranking /
//     answered; Refusal = answered and refused / answered; Grounded =
//     answered, not refused and with ≥ 1 citation / answered. A rate whose
//     denominator is zero is undefined: nil (JSON null), never 0, so a
//     gate on it fails (a target that is down answers nothing: its no_hit
//     and refusal rates are not 0, they were not measured).
//   - LatencyMs: nearest-rank p50, p95, p99 (Percentile) and max over every
//     result that has a latency, errored or not, with n. Undefined (n = 0,
//     JSON null) when no result has a latency or no result was answered:
//     the time a down target takes to refuse a connection is not the
//     system's latency.
//   - Stages: per stage name (CaseResult.Stages, the observation's spans
//     summed by name), the same percentiles over the results that have
//     that stage, at microsecond resolution (a stage time is kept as whole
//     µs, at most about 71 minutes); omitted when no result has a span.
func Summarize(results []assay.CaseResult, metrics []string) assay.Summary {
	return aggregate.Summarize(results, metrics)
}

// Segments groups results by every tag present and summarizes each group
// with Summarize: the key is "tag=value" ("lang=en"). A result belongs to
// one segment per tag it carries; results without tags are in none.
func Segments(results []assay.CaseResult, metrics []string) map[string]assay.Summary {
	return aggregate.Segments(results, metrics)
}

// Aggregator computes Summarize and Segments one result at a time, so a
// run need not keep its results: added in the same order, it gives the
// same summaries, bit for bit. It keeps, per summary, counters, one sum per
// metric and the latencies (8 bytes a result, and 4 more for each stage its
// observation has: the percentiles are exact, the stages' to the µs).
type Aggregator struct{ a *aggregate.Aggregator }

// NewAggregator returns an empty Aggregator for the metric names of
// Summarize.
func NewAggregator(metrics []string) *Aggregator {
	return &Aggregator{aggregate.NewAggregator(metrics)}
}

// Add counts one result in the run's summary and in its segments.
func (a *Aggregator) Add(r *assay.CaseResult) { a.a.Add(r) }

// Summary is Summarize of the results added so far.
func (a *Aggregator) Summary() assay.Summary { return a.a.Summary() }

// Segments is Segments of the results added so far.
func (a *Aggregator) Segments() map[string]assay.Summary { return a.a.Segments() }

// Trials computes the trial statistics of a run over its case results (one
// per case and trial): per case how many trials passed, pass@N (some trial
// passed) and pass^N (every trial passed), the flaky cases (graded, and
// the trials disagree), and per metric the mean over trials of the
// per-trial mean over cases with the sample standard deviation of those
// means. A trial whose target failed counts as not passed; a case is graded
// when any of its trials is graded or errored.
func Trials(cases []assay.CaseResult) assay.TrialStats { return aggregate.Trials(cases) }
