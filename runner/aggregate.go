package runner

import (
	"math"
	"sort"

	"github.com/assay-eval/assay"
)

// Summarize aggregates results in the §5 way. metrics are the canonical
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
//     graded or not.
//   - PassRate = Passed / Graded; nil when nothing was graded (a suite of
//     judgments only).
//   - Metrics: for each name (every name the results carry when metrics is
//     nil), the mean over the results that carry the value
//     (judged cases; an errored judged case carries zeros), with its n. A
//     metric no result carries is omitted.
//   - Rates. The denominators are answered results (no error), except
//     error: Error = Errors / Cases; NoHit = answered with an empty ranking /
//     answered; Refusal = answered and refused / answered; Grounded =
//     answered, not refused and with ≥ 1 citation / answered. A rate whose
//     denominator is zero is 0.
//   - LatencyMs: nearest-rank p50, p95, p99 (Percentile) and max over every
//     result that has a latency, errored or not, with n; all 0 when n = 0.
func Summarize(results []assay.CaseResult, metrics []string) assay.Summary {
	s := assay.Summary{Cases: len(results), Metrics: map[string]assay.MetricAgg{}}
	var answered, noHit, refused, grounded int
	var latencies []float64
	for _, r := range results {
		if r.Graded() {
			s.Graded++
			if r.Passed() {
				s.Passed++
			}
		}
		if r.Error != nil {
			s.Errors++
		} else {
			answered++
			if r.Retrieved == 0 {
				noHit++
			}
			if r.Refused {
				refused++
			} else if r.Citations > 0 {
				grounded++
			}
		}
		if r.LatencyMs != nil {
			latencies = append(latencies, *r.LatencyMs)
		}
	}
	s.Failed = s.Graded - s.Passed
	if s.Graded > 0 {
		rate := float64(s.Passed) / float64(s.Graded)
		s.PassRate = &rate
	}
	if metrics == nil {
		metrics = metricNames(results)
	}
	for _, name := range metrics {
		if _, dup := s.Metrics[name]; dup {
			continue
		}
		var sum float64
		n := 0
		for _, r := range results {
			if v, ok := r.Metrics[name]; ok {
				sum += v
				n++
			}
		}
		if n > 0 {
			s.Metrics[name] = assay.MetricAgg{Mean: sum / float64(n), N: n}
		}
	}
	s.Rates = assay.Rates{
		NoHit:    ratio(noHit, answered),
		Refusal:  ratio(refused, answered),
		Grounded: ratio(grounded, answered),
		Error:    ratio(s.Errors, s.Cases),
	}
	if len(latencies) > 0 {
		sort.Float64s(latencies)
		s.LatencyMs = assay.Latency{
			P50: Percentile(latencies, 50),
			P95: Percentile(latencies, 95),
			P99: Percentile(latencies, 99),
			Max: latencies[len(latencies)-1],
			N:   len(latencies),
		}
	}
	return s
}

// metricNames lists every metric any result carries, sorted.
func metricNames(results []assay.CaseResult) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range results {
		for name := range r.Metrics {
			if !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Segments groups results by every tag present and summarizes each group
// with Summarize: the key is "tag=value" ("lang=en"). A result belongs to
// one segment per tag it carries; results without tags are in none.
func Segments(results []assay.CaseResult, metrics []string) map[string]assay.Summary {
	groups := map[string][]assay.CaseResult{}
	for _, r := range results {
		for k, v := range r.Tags {
			key := k + "=" + v
			groups[key] = append(groups[key], r)
		}
	}
	out := make(map[string]assay.Summary, len(groups))
	for key, rs := range groups {
		out[key] = Summarize(rs, metrics)
	}
	return out
}

// Percentile returns the nearest-rank p-th percentile of sorted (ascending):
// the value at 1-based rank ceil(p/100 × n), clamped to [1, n]. It returns 0
// for an empty slice. Percentile(s, 100) is the maximum; p ≤ 0 gives the
// minimum. Ranks within 1e-9 above a whole number round down to it, so
// float rounding never moves a percentile up one rank.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	// p*n/100 rather than p/100*n: for whole p the product is exact, so a
	// rank that is a whole number is not pushed up by rounding (95% of 20);
	// the small tolerance does the same for fractional p (99.9% of 1000).
	rank := int(math.Ceil(p*float64(n)/100 - 1e-9))
	if rank < 1 {
		rank = 1
	}
	if rank > n {
		rank = n
	}
	return sorted[rank-1]
}

func ratio(num, den int) float64 {
	if den == 0 {
		return 0
	}
	return float64(num) / float64(den)
}
