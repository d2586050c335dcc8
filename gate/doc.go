// Package gate decides whether a run is good enough: it parses gate
// expressions, evaluates them against a run (and a baseline run), checks and
// ratchets quality floors, and computes the trial statistics that expose
// flaky cases.
//
// In the pipeline (docs/README.md) gate sits after the runner and compare:
//
//	(Run, baseline Run) ── gate.Evaluate ──► gate.Verdict{Results, Pass, Warnings}
//
// The user's contract (grammar, names, undefined values, scopes, floors) is
// docs/gates.md; the floors file is described in docs/json.md. The CLI turns
// a failing verdict into exit status 1. The package never
// prints, reads files or the environment: floors are read from an io.Reader
// and written to an io.Writer, and the clock is passed in.
//
// # Grammar
//
// One expression per suite list item or --gate flag:
//
//	gate      = [ scope ] body
//	body      = METRIC OP NUMBER                     threshold
//	          | "delta(" METRIC ")" OP NUMBER        run value - baseline value
//	          | "ratio(" METRIC ")" OP NUMBER        run value / baseline value
//	          | "no_new_failures" [ "(strict)" ] [ scope ]
//	                                               no new failure shown (strict:
//	                                               no case went pass -> fail)
//	          | "noninferior(" METRIC "," MARGIN ")"  shown not worse by MARGIN
//	scope     = "[" TAG "=" VALUE "]"                the cases tagged TAG=VALUE
//	OP        = ">=" | ">" | "<=" | "<" | "=="
//	NUMBER    = a decimal number as Go's strconv.ParseFloat reads it (no NaN, no Inf)
//
// Spaces between tokens are optional. Examples:
//
//	pass_rate >= 0.8
//	p95_latency_ms <= 10000
//	[lang=zh] recall@10 >= 0.47
//	delta(ndcg@10) >= -0.02
//	ratio(p95_latency_ms) <= 1.2
//	no_new_failures
//	no_new_failures(strict)
//	no_new_failures [category=identifier]
//	[variant=fast] p95_latency_ms <= 1000
//
// # Metric names
//
// METRIC is case-insensitive. Per-case IR metrics are any name package
// metric accepts, ir_measures spellings included (nDCG@10, R@10, P@5, RR,
// AP, Success@5); they are normalised to the canonical name (ndcg@10,
// recall@10, precision@5, mrr, map, hit@5) and read as the run's mean over
// judged cases (Summary.Metrics[name].Mean). The run-level names are read
// from the run's Summary, whose unit is one case result (a case × trial);
// the three trial names count cases across their trials:
//
//	pass_rate       passed / graded cases
//	error_rate      errored / cases
//	no_hit_rate     answered cases with an empty ranking / answered
//	refusal_rate    refused / answered
//	grounded_rate   answered, not refused, with >= 1 citation / answered
//	p50_latency_ms p95_latency_ms p99_latency_ms max_latency_ms   nearest rank
//	cases graded passed failed errors                            counts
//	flaky_cases     graded cases whose trials disagree
//	pass_any_rate   pass@N: graded cases with some passing trial / graded
//	pass_all_rate   pass^N: graded cases whose every trial passed / graded
//	cost_usd        the system's cost of the run, US dollars (Summary.Cost)
//	cost_per_case_usd, cost   its cost per priced case
//	tokens          input + output tokens of the run
//	tokens_per_case (input + output) per case with usage
//
// An unknown name is a parse error that names the source, the expression and
// the known names:
//
//	suite.yaml:12: gate "pass_rat >= 0.8": unknown metric "pass_rat" (did you mean pass_rate?) (known: ...)
//
// A name that is no metric, has the shape assay.IsMeasureName accepts and
// is not close to a known name (suggest finds nothing within edit distance
// 2) is a run-level measure (Expr.Measure), read from Run.Measures: the
// numbers a target reports about the run as a whole (index_bytes,
// build_ms). Threshold, delta and ratio apply as to a metric. A measure the
// run, or for delta and ratio the baseline, does not hold is undefined and
// fails its gate with the reason; a tag scope on a measure fails too (a
// measure has no per-case value), a variant scope selects the run as for
// any gate. The choice of bare names over a prefix keeps the GNO-style
// promotion gate as it is written, ratio(index_bytes) <= 1.10; a typo far
// from every metric becomes an undefined measure that fails the gate and
// says "or is NAME a misspelt metric?", never a silent pass. Floors and
// orderings take metrics only.
//
// # Evaluation
//
// Comparisons hold within Epsilon (1e-9), so 24/30 >= 0.8 holds. A value the
// run does not have makes its gate fail with the reason as the detail
// (never 0, never a pass): a ranking metric the run does not compute (not
// among its options' metrics: "metric mrr is not computed by this suite
// (its metrics: ndcg@10; add it to metrics:)"), a metric no judged case
// produced ("metric ndcg@10 was not computed (no judged cases)"), a pass_rate with no graded
// case, a rate over nothing (no_hit_rate, refusal_rate, grounded_rate when
// no case was answered, that is every one errored, as when the target is
// down; error_rate of a run with no case), a latency percentile with no
// timed observation or no answered case ("p95_latency_ms is undefined: no
// case was answered (30 of 30 errored)"), a judge metric (judge.CRITERION)
// the judge scored on fewer than MinJudgedShare of the results (of the run
// or the scope: a budget, the breaker, judge errors or failed targets left
// the others unscored). A run recorded before these were
// null holds 0 for them; they are read as undefined all the same when every
// case errored. Ratchet never sets or raises a floor from an undefined
// value. A scope reads the run's segment
// "TAG=VALUE"; when the run has no such segment it is summarised from the
// cases carrying the tag, exactly as runner.Summarize does.
//
// The cost names are undefined (the gate fails with the reason) unless
// every answered result reported usage and, for the costs, had a price
// (assay.CostSummary): the cost of the part of a run that is known is not
// the run's cost.
//
// A scope no case carries measures nothing, whatever the gate's form
// (threshold, delta, ratio, no_new_failures, a floor): the gate fails with
// a detail that names the scope and suggests the nearest tag the run has
// ("scope [categroy=security] matches no case (did you mean
// [category=security]?)"), and the verdict lists it in Errors, which the
// CLI turns into exit 2 (a misconfigured gate, not a regression) after
// reporting every gate. For delta, ratio and no_new_failures the baseline
// must carry the scope too. A variant scope is not a tag scope: it selects
// the run of a variant (see Variants).
//
// delta, ratio and no_new_failures need a baseline run; without one they fail
// with the detail "... needs a baseline run". ratio against a baseline value
// of 0 is undefined (fails) unless both are 0 (ratio 1). no_new_failures
// pairs graded cases by id: a case passes when every one of its trials
// passed (pass^N), and a new failure is a case that passed in the baseline
// and does not pass in the run; cases present in only one run are not
// counted. Its value is the number of new failures, its bound 0.
//
// no_new_failures weighs those flips as package compare does
// (compare.AssessFlips, against the earlier runs EvaluateHistory is given):
// on deterministic evidence every flip is a new failure; otherwise a flip
// is one when its case's exact test against its record is significant
// (Holm over McNemar's test and the cases' tests, at 0.05), and every flip
// counts when McNemar's exact test shows more pass -> fail than chance.
// Flips left unconfirmed are named in the detail and the gate holds.
// no_new_failures(strict) fails on any flip.
//
// # Non-inferiority
//
// noninferior(METRIC, MARGIN) passes when the one-sided 95% bound of the
// paired mean delta (run - baseline, per case, from package compare's
// PairMeasure and DeltaInterval: the matching end of the sign-flip test's
// two-sided 90% interval) clears the margin: the lower bound is above
// -MARGIN for a measure where higher is better, the upper bound below
// +MARGIN where lower is better. METRIC is an IR metric or a rate compare
// pairs with a direction (pass_rate, error_rate, no_hit_rate,
// grounded_rate); MARGIN >= 0. Its value is the bound; with no paired case
// it is undefined and fails, and with fewer cases than the one-sided test
// needs to reach 0.05 (4 or fewer: 1/2^n >= 0.05) it fails, saying so.
// The noninferior gates on one measure and margin scoped to segments of one
// tag form a family: their one-sided p-values (the sign-flip test of the
// deltas shifted by the margin) are Holm-adjusted, and each holds only
// when its adjusted p < 0.05 (segmentFamilies); the detail shows both. A
// delta gate on such a measure adds the same test's 95% interval to its
// detail ("paired delta -0.012, 95% CI [-0.031, +0.005] over 30 cases").
//
// # Variants
//
// The runs of a variant matrix (a target that declares variants:) carry
// Run.Variant, e.g. {"mode": "fast"}. A gate scoped [variant=NAME] (NAME is
// VariantName: the value, or the values joined by "/") or [KEY=VALUE] with
// KEY a variant key applies only to the run of that variant: Evaluate
// leaves it out of the other variants' verdicts (AppliesTo). On a run
// without variants such a scope is an ordinary tag scope.
//
// An Ordering states how a metric must rank the variants:
//
//	ordering  = METRIC ":" VARIANT { OP VARIANT } [ "tolerance" NUMBER ]
//	OP        = "<=" | "<" | ">=" | ">"
//
// e.g. "ndcg@10: fast <= balanced <= thorough tolerance 0.005". With
// tolerance t, "a <= b" holds when a <= b + t. Ordering.Check reads the
// metric from each variant's run and fails, naming the broken pair, when
// the order does not hold.
//
// When every variant's run holds its cases and the metric is paired per
// case, Check also tests each adjacent step on the shared cases (the mean
// paired difference in the ordering's direction against -tolerance, by
// package compare's sign-flip test), adjusts the steps' p-values by Holm
// (compare.Holm), and calls a step shown, reversed or not shown: a
// reversed step fails the ordering; otherwise it holds, even when a step
// that is not shown has its means out of order (noise is not a regression).
// The evidence is in Detail.
//
// Gates evaluate whatever the run holds; whether an incomplete run can pass
// is the caller's decision (the CLI never lets one pass).
//
// # Floors
//
// A floors file (assay.floors.json, schema assay.floors/v1) holds per-metric
// lower bounds for metrics where higher is better (IR metrics, pass_rate,
// grounded_rate, pass_any_rate, pass_all_rate), keyed by metric and
// optionally scoped ("[lang=zh] recall@10"). Checking a run against floors
// evaluates "KEY >= FLOOR" for each. Ratchet raises each floor to what a
// complete run achieved minus a margin, never lowers one, and appends every
// raise to the file's log (date, run id, metric, old -> new, comment). The
// first ratchet of an empty file sets floors for pass_rate and every metric
// the run computed. A run that is incomplete, or that fails its floors,
// never ratchets. Floors are stored rounded down to 4 decimals, so a run
// always holds the floors it set.
//
// # Trials
//
// Trials computes, over a run's case results (one per case and trial), the
// passing trials per case, pass@N, pass^N, the flaky cases (mixed results)
// and each metric's mean and sample standard deviation across trials (the
// spread of the per-trial means).
package gate
