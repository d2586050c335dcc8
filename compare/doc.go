// Package compare pairs two runs of one suite and says whether the
// candidate regressed, stayed the same, got better, or whether the data
// cannot tell (docs/metrics.md#the-verdict). It
// takes assay.Run records (from store.LoadRun or a runner) and returns a
// Report that the report package renders (text in the style of benchstat,
// markdown, assay.compare/v1 JSON). It uses the standard library only, so
// every number can be checked by reading this package.
//
// # Pairing
//
// Case results are paired by (case id, trial). Cases present in one run only
// are left out and counted (Report.OnlyBaseline, OnlyCandidate); the
// warnings say how many were compared. Pairs are sorted by id, then trial,
// before any resampling, so the order of the files does not matter.
//
// A case whose results carry a hash in both runs (assay.CaseResult.Hash:
// its query, expectations and judgments) is paired only when the hashes
// are equal; the others are listed in Report.ChangedCases, once each and
// sorted, counted nowhere else, and named in a warning. A result without a
// hash (a run made before assay recorded them) is paired by id as above.
// Runs with different assay.Run.GradingVersion are compared with a
// warning; a run that records no version (an older assay) gets a warning
// that changed cases could not be told apart.
//
// The unit of every statistic is the case: with several trials, each
// measure's paired value for a case is the mean over its paired trials
// (baseline and candidate alike), so a case run 3 times counts once in the
// sign-flip test and its interval, not 3 times. MetricDelta.N counts cases;
// Report.PairedValues counts the case trials behind them.
//
// # Measures
//
// For every IR metric that both runs recorded for a pair (ndcg@10, mrr, ...)
// the paired values are the per-case metric values. The suite-level rates
// are compared as per-case 0/1 outcomes (their trial means with several
// trials) over the pairs where both runs define them:
//
//	pass_rate      passed, over pairs graded in both runs      higher is better  gated
//	error_rate     the target failed, over all pairs           lower is better   reported
//	no_hit_rate    empty ranking, over pairs answered in both  lower is better   reported
//	refusal_rate   refused, over pairs answered in both        no direction      reported
//	grounded_rate  not refused and >= 1 citation, same pairs   higher is better  reported
//
// pass_rate and error_rate are always listed; the other rates only when they
// are non-zero in one of the runs. Baseline and candidate are the means over
// the pairs, delta is the mean of the paired deltas (candidate - baseline).
//
// # Statistics
//
// p-value: a two-sided paired sign-flip (randomization) test of "the mean
// delta is 0". Under that hypothesis each delta is as likely to have the
// other sign, so p is the share of sign assignments whose |sum of deltas| is
// at least the observed one (with a relative tolerance of 1e-9 for rounding).
// Zero deltas do not change any sum and are dropped, so n here is the number
// m of non-zero paired deltas (as in the sign test). With m <= 20
// (Options.ExactMax) all 2^m assignments are enumerated: p = count / 2^m,
// exact. Otherwise 10,000 random assignments are drawn (Options.Samples) and
// p = (count + 1) / (10,000 + 1), which is never 0. The PCG stream of the
// test is fixed by the seed and the deltas themselves, so equal deltas get
// equal p (measures with equal deltas are computed once). So a change confined to
// 5 cases can never be significant (the smallest p is 2/2^5 = 0.0625), and
// one to 6 cases can (2/2^6 = 0.031) when they all move the same way.
//
// Confidence interval: the interval the same test gives, so the CI shown
// and the "~" can never disagree. It is the set of values theta that the
// sign-flip test of "the mean delta is theta" does not reject at alpha
// (p(theta) >= 0.05): the test applied to the shifted deltas d_i - theta,
// over all n paired cases, with its sign assignments fixed once (all 2^n
// when n <= 20, else 10,000 from a PCG stream fixed by the seed and the
// deltas), so p(theta) is one deterministic function. Each endpoint is
// found by bisection from the mean delta (where p = 1) toward the nearest
// end of the deltas' range, to 1e-9 of the width, with theta = 0 as an
// anchor whose p is the reported p: 0 lies inside the interval exactly
// when p >= alpha. Beyond the range of the deltas the test's p no longer
// changes (only assignments of one sign reach the observed sum); when it
// is still >= alpha there (5 or fewer cases: 2/2^5 = 0.0625), the test
// excludes nothing on that side and the interval stops at the range's end,
// or at 0 when 0 lies beyond it.
//
// Cost: the test and the interval of a measure each take time in
// proportion to its non-zero deltas times the samples, and memory beyond
// one copy of the deltas in proportion to the samples alone (under 1 MB
// at 10,000 samples), however many cases there are: the samples are drawn
// a random word at a time across all of them, each from its own stretch
// of the PCG stream, so the numbers are those of drawing one sample after
// the other.
//
// A change is significant when p < alpha (0.05) and the delta is not 0,
// which is the same as its 95% interval excluding 0; renderers mark the
// others "~" and print that rule. A significant change is "better" or
// "worse" by the measure's direction.
//
// # Effect size and power
//
// Each MetricDelta carries an Effect: SD, the sample sd (n - 1) of the
// paired case deltas; DZ = mean delta / SD (nil when SD is 0); Wins, Ties
// and Losses, the cases whose delta went the better way, was exactly 0,
// or went the worse way (up counts as better for a measure with no
// direction); and MDE, the smallest true mean delta a two-sided test at
// Alpha detects with Power (0.8), by the normal approximation of MDE (nil
// when SD is 0: a pair without noise cannot size a change). Deltas equal
// up to 1e-12 of their scale count as equal (allEqual), so float rounding
// is not variance. PowerOf sizes a suite from stored runs (assay power).
//
// With several paired trials per case, MetricDelta.Variance splits the
// per-trial paired deltas by a one-way analysis of variance grouped by case
// into Between = max(0, (MS_between - MS_within) / k0) and Within =
// MS_within (k0 the effective trials per case), and advises "more trials"
// when Within / Trials > Between, else "more cases".
//
// # Clusters
//
// When the suite names a cluster tag (Run.Suite.Cluster, or
// Options.Cluster), each measure's per-case values are averaged within each
// cluster (a case without the tag is its own cluster) before the test, so
// the sign-flip test, its interval and the effect count clusters, not
// cases. MetricDelta.Clusters counts them and N still counts cases; with
// MaxUndecidableClusters (5) or fewer clusters no p can fall below 0.05 and
// a warning says so.
//
// # Flips
//
// A case passes in a run when every one of its paired trials that was graded
// in both runs passed. pass_to_fail lists the case ids that passed in the
// baseline and not in the candidate; fail_to_pass the reverse. Ungraded cases
// never flip.
//
// Refusal flips (kebab's compare lists them) use the trials answered without
// error in both runs: a case is refused in a run when every such trial was
// refused (CaseResult.Refused, the grade rule), answered when none was; a
// case refused in some trials only does not flip. answered_to_refused lists
// the cases answered in the baseline and refused in the candidate,
// refused_to_answered the reverse.
//
// # Top scores
//
// top_scores lists every paired case whose top score (CaseResult.TopScore,
// the score of the first retrieved document, the mean over the paired trials
// that have one in both runs) changed, with both values and the delta,
// largest |delta| first, ties by id. Scores are the target's own scale, so
// they are reported, never gated.
//
// # Latency
//
// p50 and p95 (nearest rank) of each run over the pairs with a latency in
// both, and their deltas. Latency is reported, not gated: bound it with a
// gate (p95_latency_ms <= 2000).
//
// # Verdict
//
// The gated measures are every IR metric and pass_rate. With McNemar's
// exact test on the flipped cases ("flips") and each case whose own test
// joins (below), they form one family whose p-values are adjusted by Holm's
// step-down procedure (Options.Multiplicity; NoAdjustment keeps the raw p).
// MetricDelta.PAdjusted and Report.Family hold the adjusted values; the
// marks of Change stay each measure's own test. Matrix compares the
// variants of a matrix with their baselines as one family: the tests of
// every comparison are adjusted together.
//
//	regressed     a gated measure significantly worse after adjustment; the
//	              flips significantly more pass -> fail than fail -> pass after
//	              adjustment; a confirmed new failure; or, on deterministic
//	              evidence, a case flipped answered -> refused (unless the
//	              candidate passes that case's refusal: true check)
//	better        a gated measure or the flips significantly better after
//	              adjustment, or a deterministic system's case fixed, and
//	              nothing regressed
//	same          every gated measure's CI95 inside ±its margin (Margin,
//	              Options.Margins; DefaultRateMargin for pass_rate,
//	              DefaultMetricMargin for a metric) and no flip left
//	              unconfirmed
//	inconclusive  otherwise; Reasons name each measure not shown equivalent
//	              with about how many paired cases would decide it (the
//	              fewer of CasesNeeded for the observed delta and for the
//	              margin left, from the sd of the paired deltas), and the
//	              flips more trials would confirm
//
// Report.Method is the one line that says how the verdict was reached.
// The CLI exits 1 on regressed.
//
// # Flips as evidence
//
// AssessFlips weighs each flip by what is known of its case's noise: the
// graded outcomes of the baseline's trials and of Options.History (earlier
// runs of the same suite and target: SameSystem), against the candidate's
// trials. When no case varied within a run's trials nor across the
// baseline and history, and the target kind is builtin, replay or trec, or
// both runs have 2 or more trials, or there are 2 or more history runs, the
// system is deterministic: every pass -> fail flip is a confirmed new
// failure. Otherwise each case is tested on its own: the one-sided exact
// conditional (Fisher) test that the candidate fails it more often than its
// prior record, P(X >= failures) for X hypergeometric given the totals.
// A case joins the family only when the smallest p its totals allow is at
// most alpha over the family's size including it (Tarone's rule; the
// smallest such size is used), so cases that cannot reach significance do
// not dilute the others. Confirmed cases are those whose adjusted p is
// below alpha; other flipped cases are listed as flaky (their record
// varies) or unconfirmed (a stable record too short), with advice.
//
// # Compact runs
//
// A comparison reads only a few facts of each case trial: its id, trial and
// hash, whether it was graded, passed, errored, refused, retrieved or cited
// anything, whether a refusal check passed, its metric values, latency,
// top score, cost, tokens and tags. Compact holds those (metric names and
// tag pairs through per-run tables), filled one case at a time by Add, so
// that a caller that reads a run as a stream never holds its full results.
// RunsCompact compares two of them; Runs and Matrix make them from full
// runs. The report is the same either way, byte for byte.
// PairCompact is PairMeasure on two of them (one measure's paired deltas,
// for a gate or a segment), with a filter on the candidate's case trials
// (Compact.Tag and Compact.ID read them).
//
// # Warnings
//
// Warnings are data, worded as the remedy: an incomplete run; suites or
// suite fingerprints that differ (the intersection was compared, with its
// size); cases present in one run only; system versions that differ; metrics
// recorded by one run only; trials or k that differ; fewer than 10 paired cases (Options.MinPaired); no
// paired case at all.
package compare
