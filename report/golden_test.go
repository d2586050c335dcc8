package report

import (
	"testing"
	"time"

	"github.com/assay-eval/assay"
	goldenfile "github.com/assay-eval/assay/internal/golden"
)

// golden compares got with testdata/<name> (go test ./report -update
// rewrites it). Every renderer test in this package uses it.
func golden(t *testing.T, name string, got []byte) { t.Helper(); goldenfile.Check(t, name, got) }

func lineDiff(a, b string) string { return goldenfile.LineDiff(a, b) }

func ptr[T any](v T) *T { return &v }

// zeroRates are rates measured as 0 (not undefined).
func zeroRates() assay.Rates {
	return assay.Rates{NoHit: ptr(0.0), Refusal: ptr(0.0), Grounded: ptr(0.0), Error: ptr(0.0)}
}

// sampleRun is a small run with every part a report shows: metrics, rates,
// latency, segments, gates (one failing), a failing case, an errored case,
// an ungraded case and a warning.
func sampleRun() *assay.Run {
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	return &assay.Run{
		Schema:       assay.RunSchema,
		RunID:        "019ad3c1-7f2e-7c4d-9a55-3b8d2f0c1e77",
		Status:       assay.StatusComplete,
		Suite:        assay.SuiteRef{Name: "kb", Fingerprint: "sha256:abc", Path: "kb.yaml", Cases: 4},
		Target:       assay.TargetInfo{Kind: "replay", Spec: "replay:t.jsonl"},
		AssayVersion: "0.1.0-test",
		Options:      assay.RunOptions{K: 10, Trials: 1, Concurrency: 4, Metrics: []string{"ndcg@10", "mrr"}},
		StartedAt:    t0,
		FinishedAt:   t0.Add(1500 * time.Millisecond),
		Gain:         assay.GainLinear,
		TieRule:      TieRule,
		Summary: assay.Summary{
			Cases: 4, Graded: 3, Passed: 1, Failed: 2, Errors: 1, PassRate: ptr(1.0 / 3),
			Metrics:   map[string]assay.MetricAgg{"ndcg@10": {Mean: 0.6131, N: 3}, "mrr": {Mean: 0.5, N: 3}},
			Rates:     assay.Rates{NoHit: ptr(0.0), Refusal: ptr(1.0 / 3), Grounded: ptr(1.0 / 3), Error: ptr(0.25)},
			LatencyMs: assay.Latency{P50: 12.1, P95: 40.2, P99: 40.2, Max: 40.2, N: 3},
			// stages out of pipeline order and one unknown to the
			// baseline: the reports list analyze, bm25, answer, then zz.
			Stages: map[string]assay.Latency{
				"answer":  {P50: 2, P95: 3.5, P99: 3.5, Max: 3.5, N: 3},
				"zz":      {P50: 0.25, P95: 0.25, P99: 0.25, Max: 0.25, N: 1},
				"analyze": {P50: 0.125, P95: 0.5, P99: 0.5, Max: 0.5, N: 3},
				"bm25":    {P50: 10, P95: 36, P99: 36, Max: 36, N: 3},
			},
		},
		Segments: map[string]assay.Summary{
			"lang=en": {Cases: 3, Graded: 2, Passed: 1, Failed: 1, PassRate: ptr(0.5),
				Metrics: map[string]assay.MetricAgg{"ndcg@10": {Mean: 0.8, N: 2}}, Rates: zeroRates()},
			"lang=de": {Cases: 1, Graded: 1, Failed: 1, Errors: 1, PassRate: ptr(0.0), Metrics: map[string]assay.MetricAgg{}, Rates: zeroRates()},
		},
		Gates: []assay.GateResult{
			{Expr: "pass_rate >= 0.3", Pass: true, Value: ptr(1.0 / 3), Bound: 0.3, Op: ">=", Source: "kb.yaml:5"},
			{Expr: "ndcg@10 >= 0.7", Pass: false, Value: ptr(0.6131), Bound: 0.7, Op: ">=", Source: "--gate"},
		},
		Cases: []assay.CaseResult{
			{ID: "q1", Pass: ptr(true), Checks: []assay.Check{{Kind: "answer_includes", Pass: true}},
				Metrics: map[string]float64{"ndcg@10": 1, "mrr": 1}, LatencyMs: ptr(12.1), Tags: map[string]string{"lang": "en"}, Retrieved: 3, Citations: 1},
			{ID: "q2", Pass: ptr(false), Checks: []assay.Check{
				{Kind: "answer_includes", Pass: false, Detail: `missing "sha-256"`},
				{Kind: "cites", Pass: false, Detail: "unsurfaced d9"}},
				Metrics: map[string]float64{"ndcg@10": 0.6131, "mrr": 0.5}, LatencyMs: ptr(40.2), Tags: map[string]string{"lang": "en"}, Retrieved: 2, Refused: true},
			{ID: "q3", Pass: nil, Metrics: map[string]float64{"ndcg@10": 0.2262, "mrr": 0}, Checks: nil, LatencyMs: ptr(5.0), Tags: map[string]string{"lang": "en"}, Retrieved: 1},
			{ID: "q4", Pass: ptr(false), Error: &assay.Error{Class: assay.ErrTimeout, Message: "no observation after 30s"},
				Checks: []assay.Check{{Kind: "refusal", Pass: false, Detail: "timeout: no observation after 30s"}}, Tags: map[string]string{"lang": "de"},
				Observation: &assay.Observation{Case: "q4"}},
		},
		Warnings: []string{"need >= 10 paired cases for a 95% CI"},
	}
}
