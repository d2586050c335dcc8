package gate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// Judge metrics (judge.CRITERION) are metrics like any other: in gates,
// orderings and floors, undefined (failing) when nothing was judged.
func TestJudgeMetricsInGatesAndOrderings(t *testing.T) {
	t.Parallel()
	judged := func(v float64) *assay.Run {
		r := &assay.Run{Status: assay.StatusComplete, Summary: assay.Summary{Metrics: map[string]assay.MetricAgg{"judge.relevance": {Mean: v, N: 3}}}}
		return r
	}
	for _, tc := range []struct {
		expr   string
		run    *assay.Run
		pass   bool
		detail string
	}{
		{"judge.relevance >= 0.8", judged(0.9), true, ""},
		{"Judge.Relevance >= 0.8", judged(0.7), false, ""},
		{"judge.relevance >= 0.8", &assay.Run{Status: assay.StatusComplete}, false, "metric judge.relevance was not computed"},
	} {
		v, err := Evaluate([]assay.Gate{{Expr: tc.expr}}, tc.run, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		if v.Results[0].Pass != tc.pass || !strings.Contains(v.Results[0].Detail, tc.detail) {
			t.Errorf("%s: %+v", tc.expr, v.Results[0])
		}
	}
	for _, bad := range []string{"judge. >= 1", "judge.reasoning >= 1", "judge.Bad-Name >= 1"} {
		if _, err := Parse(bad, "--gate"); err == nil {
			t.Errorf("Parse(%q) accepted it", bad)
		}
	}
	o, err := ParseOrdering("judge.relevance: slim <= balanced <= quality", "targets.yaml:3")
	if err != nil {
		t.Fatal(err)
	}
	r := o.Check(map[string]*assay.Run{"slim": judged(0.5), "balanced": judged(0.6), "quality": judged(0.55)})
	if r.Pass || !strings.Contains(r.Detail, "balanced 0.6 is not <= quality 0.55") {
		t.Errorf("ordering: %+v", r)
	}
}

// TestJudgeGateOverTooFewJudgedResultsIsUndefined: a judge gate reads the
// mean only when the judge scored at least MinJudgedShare of the results
// (a budget that stopped after 1 of 20 cases let judge.relevance >= 0.5
// pass on that one).
func TestJudgeGateOverTooFewJudgedResultsIsUndefined(t *testing.T) {
	t.Parallel()
	run := func(judged, cases int) *assay.Run {
		return &assay.Run{Status: assay.StatusComplete, Summary: assay.Summary{Cases: cases,
			Metrics: map[string]assay.MetricAgg{"judge.relevance": {Mean: 0.9, N: judged}, "ndcg@10": {Mean: 0.9, N: 1}}}}
	}
	for _, tc := range []struct {
		judged, cases int
		pass          bool
	}{
		{1, 20, false}, {15, 20, false}, {16, 20, true}, {20, 20, true}, {4, 5, true}, {3, 5, false},
	} {
		v, err := Evaluate([]assay.Gate{{Expr: "judge.relevance >= 0.5"}}, run(tc.judged, tc.cases), nil)
		if err != nil {
			t.Fatal(err)
		}
		r := v.Results[0]
		if r.Pass != tc.pass || v.Pass != tc.pass {
			t.Errorf("%d of %d judged: %+v", tc.judged, tc.cases, r)
		}
		if !tc.pass && (r.Value != nil || !strings.Contains(r.Detail, fmt.Sprintf("the judge scored %d of %d results, and a judge gate needs at least 80%%", tc.judged, tc.cases))) {
			t.Errorf("%d of %d judged: detail %q value %v", tc.judged, tc.cases, r.Detail, r.Value)
		}
	}
	// Other metrics keep their rule: a mean over the judged cases.
	if v, _ := Evaluate([]assay.Gate{{Expr: "ndcg@10 >= 0.5"}}, run(1, 20), nil); !v.Pass {
		t.Errorf("ndcg@10 over 1 of 20 judged cases: %+v", v.Results[0])
	}
	// delta reads the baseline by the same rule.
	v, _ := Evaluate([]assay.Gate{{Expr: "delta(judge.relevance) >= -0.1"}}, run(20, 20), run(1, 20))
	if v.Pass || !strings.Contains(v.Results[0].Detail, "the judge scored 1 of 20 results") {
		t.Errorf("delta against a baseline judged on 1 of 20: %+v", v.Results[0])
	}
}
