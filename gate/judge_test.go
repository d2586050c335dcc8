package gate

import (
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
