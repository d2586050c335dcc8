package gate_test

import (
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/runner"
)

// costRun is a run of n answered cases, each with 1000 input and 500
// output tokens costing usd (nil: not priced); noUsage more cases
// reported no usage.
func costRun(n int, usd *float64, noUsage int) *assay.Run {
	var results []assay.CaseResult
	for i := 0; i < n+noUsage; i++ {
		r := assay.CaseResult{ID: string(rune('a' + i))}
		if i < n {
			u := assay.Usage{Model: "m1", InputTokens: 1000, OutputTokens: 500, CostUSD: usd}
			if usd == nil {
				u.Unpriced = `model "m1" is not in the price table (priced: m2)`
			}
			r.Usage = &u
		}
		results = append(results, r)
	}
	return &assay.Run{Status: assay.StatusComplete, Summary: runner.Summarize(results, nil), Cases: results}
}

func f64(v float64) *float64 { return &v }

func evalOne(t *testing.T, expr string, run, base *assay.Run) assay.GateResult {
	t.Helper()
	v, err := gate.Evaluate([]assay.Gate{{Expr: expr}}, run, base)
	if err != nil {
		t.Fatal(err)
	}
	return v.Results[0]
}

// TestCostGates: cost_per_case_usd and ratio(cost) read the run's cost
// summary; a run some of whose answered cases have no usage or no price has
// no cost, and the gate fails saying why (never 0, never a pass).
func TestCostGates(t *testing.T) {
	run := costRun(4, f64(0.002), 0)
	if r := evalOne(t, "cost_per_case_usd <= 0.002", run, nil); !r.Pass || *r.Value != 0.002 {
		t.Fatalf("cost_per_case_usd: %+v, want a pass at 0.002", r)
	}
	if r := evalOne(t, "cost_usd <= 0.0079", run, nil); r.Pass || r.Value == nil || *r.Value != 0.008 {
		t.Fatalf("cost_usd: %+v, want a failure at 0.008", r)
	}
	if r := evalOne(t, "tokens_per_case == 1500", run, nil); !r.Pass {
		t.Fatalf("tokens_per_case: %+v, want 1500", r)
	}
	dearer := costRun(4, f64(0.0025), 0)
	if r := evalOne(t, "ratio(cost) <= 1.1", dearer, run); r.Pass || r.Value == nil || *r.Value != 1.25 {
		t.Fatalf("ratio(cost): %+v, want a failure at 1.25", r)
	}
	for _, c := range []struct {
		name string
		run  *assay.Run
		want string
	}{
		{"no usage at all", costRun(0, nil, 3), "cost_per_case_usd is undefined: no case reported usage"},
		{"some cases without usage", costRun(3, f64(0.002), 1), "cost_per_case_usd is undefined: case d reported no usage (3 of 4 answered cases priced)"},
		{"no price", costRun(2, nil, 0), `cost_per_case_usd is undefined: case a: model "m1" is not in the price table (priced: m2) (0 of 2 answered cases priced)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := evalOne(t, "cost_per_case_usd <= 1", c.run, nil)
			if r.Pass || r.Value != nil || !strings.HasPrefix(r.Detail, c.want) {
				t.Fatalf("pass %v value %v detail %q, want a failure: %q", r.Pass, r.Value, r.Detail, c.want)
			}
		})
	}
	if r := evalOne(t, "ratio(cost) <= 1.1", run, costRun(0, nil, 2)); r.Pass || !strings.HasPrefix(r.Detail, "baseline: cost is undefined") {
		t.Fatalf("ratio(cost) with a baseline without usage: %+v, want a failure naming the baseline", r)
	}
}
