package gate_test

import (
	"fmt"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
)

func Example() {
	passRate := 0.75
	run := &assay.Run{
		RunID:  "0190c0de",
		Status: assay.StatusComplete,
		Summary: assay.Summary{
			Cases: 4, Graded: 4, Passed: 3, Failed: 1, PassRate: &passRate,
			Metrics:   map[string]assay.MetricAgg{"ndcg@10": {Mean: 0.61, N: 4}},
			LatencyMs: assay.Latency{P50: 120, P95: 900, P99: 900, Max: 900, N: 4},
		},
	}
	v, err := gate.Evaluate([]assay.Gate{
		{Expr: "pass_rate >= 0.8", Source: "suite.yaml:7"},
		{Expr: "nDCG@10 >= 0.6", Source: "suite.yaml:8"},
		{Expr: "p95_latency_ms <= 1000", Source: "--gate"},
	}, run, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range v.Results {
		fmt.Println(gate.Line(r))
	}
	fmt.Println("pass:", v.Pass)
	// Output:
	// ✗ pass_rate >= 0.8  value 0.75, bound 0.8  [suite.yaml:7]
	// ✓ nDCG@10 >= 0.6  value 0.61, bound 0.6  [suite.yaml:8]
	// ✓ p95_latency_ms <= 1000  value 900, bound 1000
	// pass: false
}

func ExampleParse() {
	_, err := gate.Parse("pass_rat >= 0.8", "suite.yaml:12")
	fmt.Println(err.Error()[:90])
	e, _ := gate.Parse("[lang=zh] DELTA(R@10) >= -0.02", "--gate")
	fmt.Println(e.Kind, e.Scope, e.Metric, e.Op, e.Bound)
	// Output:
	// suite.yaml:12: gate "pass_rat >= 0.8": unknown metric "pass_rat" (did you mean pass_rate?)
	// delta lang=zh recall@10 >= -0.02
}

func ExampleFloors_Ratchet() {
	floors := gate.NewFloors()
	floors.Floors["ndcg@10"] = 0.55
	passRate, ndcg := 0.9, 0.612
	run := &assay.Run{RunID: "0190c0de", Status: assay.StatusComplete, Summary: assay.Summary{
		PassRate: &passRate, Metrics: map[string]assay.MetricAgg{"ndcg@10": {Mean: ndcg, N: 20}},
	}}
	if v := floors.Check(run, "assay.floors.json"); !v.Pass {
		fmt.Println("below the floors: no ratchet")
		return
	}
	changes, err := floors.Ratchet(run, gate.RatchetOptions{Margin: 0.002, Comment: "new chunker", Now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range changes {
		fmt.Println("raised", c, "by run", c.RunID, "on", c.Date)
	}
	// Output:
	// raised ndcg@10 0.55 -> 0.61 by run 0190c0de on 2026-11-30T09:00:00Z
}

// A run-level measure the target reported (Run.Measures) is named bare; a
// ratio reads it against the baseline's, as a promotion gate on the size of
// the index a build made.
func Example_measures() {
	base := &assay.Run{RunID: "base", Status: assay.StatusComplete, Measures: map[string]float64{"index_bytes": 1_000_000}}
	cand := &assay.Run{RunID: "cand", Status: assay.StatusComplete, Measures: map[string]float64{"index_bytes": 1_150_000}}
	v, err := gate.Evaluate([]assay.Gate{
		{Expr: "ratio(index_bytes) <= 1.10", Source: "--gate"},
		{Expr: "build_ms <= 60000", Source: "--gate"},
	}, cand, base)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range v.Results {
		fmt.Println(gate.Line(r))
	}
	// Output:
	// ✗ ratio(index_bytes) <= 1.10  value 1.15, bound 1.1 (baseline 1000000, run 1150000)
	// ✗ build_ms <= 60000  measure build_ms is undefined: the target did not report it (reported: index_bytes)
}
