package report

import (
	"time"

	"github.com/assay-eval/assay"
)

// ciRun is the fixture of the CI renderers (JUnit, markdown, badge): a
// complete run with two trials per case in which q2 is flaky, q3 fails both
// trials, q4 errored once, q5 is not graded, two segments and two gates (one
// failing). Its strings carry characters XML and markdown must escape.
func ciRun() *assay.Run {
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	pass := func(b bool) *bool { return &b }
	lat := func(v float64) *float64 { return &v }
	en := map[string]string{"lang": "en"}
	de := map[string]string{"lang": "de"}
	cases := []assay.CaseResult{
		{ID: "q1", Trial: 0, Pass: pass(true), Checks: []assay.Check{{Kind: "answer_includes", Pass: true}}, Metrics: map[string]float64{"ndcg@10": 1}, LatencyMs: lat(120), Tags: en, Retrieved: 3, Citations: 1},
		{ID: "q1", Trial: 1, Pass: pass(true), Checks: []assay.Check{{Kind: "answer_includes", Pass: true}}, Metrics: map[string]float64{"ndcg@10": 1}, LatencyMs: lat(130), Tags: en, Retrieved: 3, Citations: 1},
		{ID: "q2", Trial: 0, Pass: pass(true), Checks: []assay.Check{{Kind: "cites", Pass: true}}, Metrics: map[string]float64{"ndcg@10": 0.5}, LatencyMs: lat(900), Tags: en, Retrieved: 3, Citations: 1},
		{ID: "q2", Trial: 1, Pass: pass(false), Checks: []assay.Check{{Kind: "cites", Pass: false, Detail: "unsurfaced docs/a&b.md"}}, Metrics: map[string]float64{"ndcg@10": 0.3}, LatencyMs: lat(2300), Tags: en, Retrieved: 3},
		{ID: "q3", Trial: 0, Pass: pass(false), Checks: []assay.Check{
			{Kind: "answer_includes", Pass: false, Detail: `missing "<sha-256>"`},
			{Kind: "answer_excludes", Pass: false, Detail: `found "md5" | "sha1"`}}, Metrics: map[string]float64{"ndcg@10": 0}, LatencyMs: lat(80), Tags: de, Retrieved: 2},
		{ID: "q3", Trial: 1, Pass: pass(false), Checks: []assay.Check{
			{Kind: "answer_includes", Pass: false, Detail: `missing "<sha-256>"`}}, Metrics: map[string]float64{"ndcg@10": 0}, LatencyMs: lat(85), Tags: de, Retrieved: 2},
		{ID: "q4", Trial: 0, Pass: pass(true), Checks: []assay.Check{{Kind: "refusal", Pass: true}}, LatencyMs: lat(40), Tags: de, Refused: true},
		{ID: "q4", Trial: 1, Pass: pass(false), Error: &assay.Error{Class: assay.ErrTimeout, Message: "no observation after 30s"},
			Checks: []assay.Check{{Kind: "refusal", Pass: false, Detail: "timeout: no observation after 30s"}}, Tags: de},
		{ID: "q5", Trial: 0, Metrics: map[string]float64{"ndcg@10": 0.25}, LatencyMs: lat(60), Retrieved: 5},
		{ID: "q5", Trial: 1, Metrics: map[string]float64{"ndcg@10": 0.25}, LatencyMs: lat(70), Retrieved: 5},
	}
	passRate := 3.0 / 8
	return &assay.Run{
		Schema:       assay.RunSchema,
		RunID:        "019ad3c1-7f2e-7c4d-9a55-3b8d2f0c1e77",
		Status:       assay.StatusComplete,
		Suite:        assay.SuiteRef{Name: "kb", Fingerprint: "sha256:abc", Path: "kb.yaml", Cases: 5},
		Target:       assay.TargetInfo{Kind: "replay", Spec: "replay:t.jsonl"},
		AssayVersion: "0.1.0-test",
		Options:      assay.RunOptions{K: 10, Trials: 2, Concurrency: 4, Metrics: []string{"ndcg@10"}},
		StartedAt:    t0,
		FinishedAt:   t0.Add(4250 * time.Millisecond),
		Gain:         assay.GainLinear,
		Summary: assay.Summary{
			Cases: 10, Graded: 8, Passed: 3, Failed: 5, Errors: 1, PassRate: &passRate,
			Metrics:   map[string]assay.MetricAgg{"ndcg@10": {Mean: 0.4125, N: 8}},
			Rates:     assay.Rates{NoHit: ptr(1.0 / 9), Refusal: ptr(1.0 / 9), Grounded: ptr(3.0 / 9), Error: ptr(0.1)},
			LatencyMs: assay.Latency{P50: 85, P95: 2300, P99: 2300, Max: 2300, N: 9},
			Stages: map[string]assay.Latency{
				"answer": {P50: 20, P95: 60, P99: 60, Max: 60, N: 9},
				"bm25":   {P50: 60, P95: 2200, P99: 2200, Max: 2200, N: 9},
			},
		},
		Segments: map[string]assay.Summary{
			"lang=en": {Cases: 4, Graded: 4, Passed: 3, Failed: 1, PassRate: lat(0.75), Metrics: map[string]assay.MetricAgg{"ndcg@10": {Mean: 0.7, N: 4}}},
			"lang=de": {Cases: 4, Graded: 4, Passed: 1, Failed: 3, Errors: 1, PassRate: lat(0.25), Metrics: map[string]assay.MetricAgg{"ndcg@10": {Mean: 0, N: 2}}},
		},
		Gates: []assay.GateResult{
			{Expr: "pass_rate >= 0.3", Pass: true, Value: lat(passRate), Bound: 0.3, Op: ">=", Source: "kb.yaml:5"},
			{Expr: "p95_latency_ms <= 1000", Pass: false, Value: lat(2300), Bound: 1000, Op: "<=", Source: "--gate"},
		},
		Cases:    cases,
		Warnings: []string{"system versions drifted during the run: pin them & re-run"},
	}
}
