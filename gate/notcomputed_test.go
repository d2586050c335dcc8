package gate

import (
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

func TestNotComputed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		computed []string
		want     string
	}{
		{"mrr", []string{"ndcg@10"}, "metric mrr is not computed by this suite (its metrics: ndcg@10; add it to metrics:)"},
		{"recall_5", []string{"recall@5"}, ""}, // trec_eval spelling of a computed metric
		{"ndcg@10", []string{"NDCG@10", "mrr"}, ""},
		{"pass_rate", []string{"ndcg@10"}, ""}, // no ranking metric
		{"mrr", nil, ""},                       // a run that does not say
	} {
		if got := NotComputed(tc.name, tc.computed); got != tc.want {
			t.Errorf("NotComputed(%q, %q) = %q, want %q", tc.name, tc.computed, got, tc.want)
		}
	}
}

// TestGateOnAMetricNotComputed: the gate fails with the reason, and a run
// that does not record its metrics keeps the older detail.
func TestGateOnAMetricNotComputed(t *testing.T) {
	run := &assay.Run{Options: assay.RunOptions{Metrics: []string{"ndcg@10"}}, Summary: assay.Summary{Cases: 1}}
	v, err := Evaluate([]assay.Gate{{Expr: "mrr >= 0.5"}}, run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Pass || len(v.Results) != 1 || !strings.Contains(v.Results[0].Detail, "not computed by this suite") {
		t.Fatalf("verdict = %+v", v)
	}
	run.Options.Metrics = nil
	v, _ = Evaluate([]assay.Gate{{Expr: "mrr >= 0.5"}}, run, nil)
	if v.Pass || !strings.Contains(v.Results[0].Detail, "no judged cases") {
		t.Fatalf("verdict = %+v", v)
	}
}
