// Package aggregate computes the summaries and trial statistics of case
// results: runner publishes them (runner.Summarize, runner.Aggregator,
// runner.Trials) and gate evaluates a scope the run records no summary for
// with them, so the two agree bit for bit without gate importing runner.
package aggregate

import (
	"math"
	"slices"
	"sort"

	"github.com/assay-eval/assay"
)

// Summarize aggregates results as runner.Summarize documents it (the
// definitions are in docs/metrics.md). metrics are the canonical metric
// names to report, in report order; nil reports every name.
func Summarize(results []assay.CaseResult, metrics []string) assay.Summary {
	a := NewAggregator(metrics)
	for i := range results {
		a.Add(&results[i])
	}
	return a.Summary()
}

// Segments groups results by every tag present and summarizes each group
// with Summarize: the key is "tag=value" ("lang=en"). A result belongs to
// one segment per tag it carries; results without tags are in none.
func Segments(results []assay.CaseResult, metrics []string) map[string]assay.Summary {
	a := NewAggregator(metrics)
	for i := range results {
		a.Add(&results[i])
	}
	return a.Segments()
}

// Aggregator computes Summarize and Segments one result at a time, so a
// run need not keep its results: added in the same order, it gives the
// same summaries, bit for bit. It keeps, per summary, counters, one sum per
// metric and the latencies (8 bytes a result, and 4 more for each stage its
// observation has: the percentiles are exact, the stages' to the µs).
type Aggregator struct {
	metrics []string // nil: every name the results carry
	want    map[string]bool
	all     acc
	segs    map[string]*acc
}

// acc is the state of one summary.
type acc struct {
	cases, graded, passed, errors      int
	retried, cached, notRun            int
	cost                               assay.CostAcc
	answered, noHit, refused, grounded int
	sums                               map[string]*metricSum
	unjudged                           map[string]*metricSum
	nuggets                            *assay.NuggetTally
	latencies                          []float64
	stages                             map[string][]uint32 // µs
}

type metricSum struct {
	sum float64
	n   int
	// upper sums the values with the unjudged documents counted relevant
	// over the nUpper results that recorded their judged coverage.
	upper  float64
	nUpper int
}

// NewAggregator returns an empty Aggregator for the metric names of
// Summarize.
func NewAggregator(metrics []string) *Aggregator {
	a := &Aggregator{metrics: metrics, segs: map[string]*acc{}}
	if metrics != nil {
		a.want = make(map[string]bool, len(metrics))
		for _, m := range metrics {
			a.want[m] = true
		}
	}
	return a
}

// Add counts one result in the run's summary and in its segments.
func (a *Aggregator) Add(r *assay.CaseResult) {
	a.all.add(r, a.want)
	for k, v := range r.Tags {
		key := k + "=" + v
		s := a.segs[key]
		if s == nil {
			s = &acc{}
			a.segs[key] = s
		}
		s.add(r, a.want)
	}
}

// Summary is Summarize of the results added so far.
func (a *Aggregator) Summary() assay.Summary { return a.all.summary(a.metrics) }

// Segments is Segments of the results added so far.
func (a *Aggregator) Segments() map[string]assay.Summary {
	out := make(map[string]assay.Summary, len(a.segs))
	for key, s := range a.segs {
		out[key] = s.summary(a.metrics)
	}
	return out
}

func (s *acc) add(r *assay.CaseResult, want map[string]bool) {
	s.cases++
	if r.Attempts > 1 {
		s.retried++
	}
	if r.Cached {
		s.cached++
	}
	if r.Graded() {
		s.graded++
		if r.Passed() {
			s.passed++
		}
	}
	s.cost.Add(r)
	if r.Error != nil {
		s.errors++
		if r.Error.Class == assay.ErrNotRun {
			s.notRun++
		}
	} else {
		s.answered++
		if r.Retrieved == 0 {
			s.noHit++
		}
		if r.Refused {
			s.refused++
		} else if r.Citations > 0 {
			s.grounded++
		}
	}
	if len(r.Nuggets) > 0 {
		if s.nuggets == nil {
			s.nuggets = &assay.NuggetTally{}
		}
		s.nuggets.Add(r.Nuggets)
	}
	if r.LatencyMs != nil {
		s.latencies = append(s.latencies, *r.LatencyMs)
	}
	for name, ms := range r.Stages {
		if s.stages == nil {
			s.stages = map[string][]uint32{}
		}
		s.stages[name] = append(s.stages[name], micros(ms))
	}
	for name, v := range r.Metrics {
		if want != nil && !want[name] && !assay.IsAttributionMetric(name) {
			continue
		}
		if s.sums == nil {
			s.sums = map[string]*metricSum{}
		}
		m := s.sums[name]
		if m == nil {
			m = &metricSum{}
			s.sums[name] = m
		}
		m.sum += v
		m.n++
		if r.Unjudged != nil && !assay.IsAttributionMetric(name) {
			if u, ok := r.Upper[name]; ok {
				v = u
			}
			m.upper += v
			m.nUpper++
		}
	}
	for name, v := range r.Unjudged {
		if s.unjudged == nil {
			s.unjudged = map[string]*metricSum{}
		}
		m := s.unjudged[name]
		if m == nil {
			m = &metricSum{}
			s.unjudged[name] = m
		}
		m.sum += v
		m.n++
	}
}

func (s *acc) summary(metrics []string) assay.Summary {
	out := assay.Summary{
		Cases: s.cases, Graded: s.graded, Passed: s.passed, Errors: s.errors, Retried: s.retried, Cached: s.cached,
		Failed:  s.graded - s.passed,
		Metrics: map[string]assay.MetricAgg{},
		NotRun:  s.notRun,
		Cost:    s.cost.Summary(),
	}
	if s.nuggets != nil {
		t := *s.nuggets
		out.Nuggets = &t
	}
	if s.graded > 0 {
		rate := float64(s.passed) / float64(s.graded)
		out.PassRate = &rate
	}
	if metrics == nil {
		metrics = make([]string, 0, len(s.sums))
		for name := range s.sums {
			metrics = append(metrics, name)
		}
		sort.Strings(metrics)
	} else {
		// The attribution metrics are summarized whenever a case has
		// them, named in the run's metrics or not.
		metrics = append(metrics[:len(metrics):len(metrics)], assay.AttributionMetrics...)
	}
	for _, name := range metrics {
		if m, ok := s.sums[name]; ok && m.n > 0 {
			agg := assay.MetricAgg{Mean: m.sum / float64(m.n), N: m.n}
			if m.nUpper == m.n {
				u := m.upper / float64(m.n)
				agg.Upper = &u
			}
			out.Metrics[name] = agg
		}
	}
	for name, m := range s.unjudged {
		if out.Unjudged == nil {
			out.Unjudged = make(map[string]assay.MetricAgg, len(s.unjudged))
		}
		out.Unjudged[name] = assay.MetricAgg{Mean: m.sum / float64(m.n), N: m.n}
	}
	out.Rates = assay.Rates{
		NoHit:    ratio(s.noHit, s.answered),
		Refusal:  ratio(s.refused, s.answered),
		Grounded: ratio(s.grounded, s.answered),
		Error:    ratio(s.errors, s.cases),
	}
	if s.answered > 0 {
		out.LatencyMs = latency(s.latencies)
	}
	for name, ms := range s.stages {
		if out.Stages == nil {
			out.Stages = make(map[string]assay.Latency, len(s.stages))
		}
		out.Stages[name] = stageLatency(ms)
	}
	return out
}

// maxStageMicros is the longest stage time kept: about 71 minutes.
const maxStageMicros = math.MaxUint32

// micros is a stage time in ms as whole microseconds (4 bytes a sample
// rather than 8: a run keeps one per result and stage), clamped to
// [0, maxStageMicros]; NaN is 0.
func micros(ms float64) uint32 {
	us := math.Round(ms * 1000)
	switch {
	case !(us > 0):
		return 0
	case us >= maxStageMicros:
		return maxStageMicros
	}
	return uint32(us)
}

// stageLatency is the percentiles of stage times in µs, reported in ms.
func stageLatency(us []uint32) assay.Latency {
	slices.Sort(us)
	n := len(us)
	at := func(p float64) float64 { return float64(us[percentileRank(p, n)-1]) / 1000 }
	return assay.Latency{P50: at(50), P95: at(95), P99: at(99), Max: float64(us[n-1]) / 1000, N: n}
}

// latency is the percentiles of values (undefined when empty). It sorts
// values in place: the percentiles depend on the values, not their order.
func latency(values []float64) assay.Latency {
	n := len(values)
	if n == 0 {
		return assay.Latency{}
	}
	sort.Float64s(values)
	return assay.Latency{
		P50: Percentile(values, 50),
		P95: Percentile(values, 95),
		P99: Percentile(values, 99),
		Max: values[n-1],
		N:   n,
	}
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
	return sorted[percentileRank(p, n)-1]
}

// percentileRank is the 1-based nearest rank of the p-th percentile of n
// (n > 0) values: ceil(p/100 × n), clamped to [1, n].
func percentileRank(p float64, n int) int {
	// p*n/100 rather than p/100*n: for whole p the product is exact, so a
	// rank that is a whole number is not pushed up by rounding (95% of 20);
	// the small tolerance does the same for fractional p (99.9% of 1000).
	rank := int(math.Ceil(p*float64(n)/100 - 1e-9))
	return min(max(rank, 1), n)
}

// ratio is num/den, nil (undefined) when den is 0.
func ratio(num, den int) *float64 {
	if den == 0 {
		return nil
	}
	r := float64(num) / float64(den)
	return &r
}
