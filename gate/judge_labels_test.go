package gate

import (
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// TestJudgeGateUndefinedUnderMinKappa: with min_kappa, a judge metric is
// read only on a criterion the labels validate; otherwise its gate fails
// with the reason, in the run's scope and a tag scope alike. Without
// min_kappa the labels change nothing.
func TestJudgeGateUndefinedUnderMinKappa(t *testing.T) {
	t.Parallel()
	floor := 0.6
	run := func(minKappa *float64, undefined string) *assay.Run {
		cases := []assay.CaseResult{{ID: "a", Tags: map[string]string{"lang": "en"}, Metrics: map[string]float64{"judge.relevance": 0.9}}}
		return &assay.Run{Status: assay.StatusComplete, Cases: cases, Summary: assay.Summary{Cases: 1,
			Metrics: map[string]assay.MetricAgg{"judge.relevance": {Mean: 0.9, N: 1}, "judge.completeness": {Mean: 0.9, N: 1}},
			Judge: &assay.JudgeSummary{Labels: &assay.JudgeLabels{File: "l.jsonl", MinKappa: minKappa, Criteria: []assay.JudgeAgreement{
				{Criterion: "relevance", N: 40, Undefined: undefined}, {Criterion: "completeness"},
			}}}}}
	}
	why := "the judge is not validated on relevance: kappa 0.4000 < min_kappa 0.6 on 40 labels"
	for _, tc := range []struct {
		name   string
		run    *assay.Run
		expr   string
		pass   bool
		detail string
	}{
		{"validated", run(&floor, ""), "judge.relevance >= 0.8", true, ""},
		{"below the floor", run(&floor, why), "judge.relevance >= 0.8", false, "judge.relevance is undefined: " + why},
		{"below the floor in a scope", run(&floor, why), "[lang=en] judge.relevance >= 0.8", false, why},
		{"no floor", run(nil, why), "judge.relevance >= 0.8", true, ""},
		{"another criterion", run(&floor, why), "judge.completeness >= 0.8", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Evaluate([]assay.Gate{{Expr: tc.expr}}, tc.run, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := v.Results[0]
			if r.Pass != tc.pass || !strings.Contains(r.Detail, tc.detail) {
				t.Errorf("%s: %+v", tc.expr, r)
			}
		})
	}
}
