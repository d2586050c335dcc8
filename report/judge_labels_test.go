package report

import (
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// TestLabelsLines: the judge's agreement under its totals, with why a
// criterion's gates are undefined, and nothing for a criterion with no
// labels and no floor.
func TestLabelsLines(t *testing.T) {
	t.Parallel()
	floor, acc, lo, hi, mean := 0.6, 0.925, 0.65, 1.0, 0.655
	l := &assay.JudgeLabels{File: "labels.jsonl", MinKappa: &floor, Criteria: []assay.JudgeAgreement{
		{Criterion: "relevance", N: 40, Kappa: &assay.JudgeInterval{Value: 0.8429, Lo: &lo, Hi: &hi}, AC1: &assay.JudgeInterval{Value: 0.8572}, Accuracy: &acc, JudgeMean: &mean, PPI: &assay.JudgeInterval{Value: 0.5625}},
		{Criterion: "completeness", Undefined: "the judge is not validated on completeness: labels.jsonl has no labels for it"},
	}}
	got := strings.Join(labelsLines(l), "\n")
	want := `labels labels.jsonl  min_kappa 0.6
relevance: n 40  kappa 0.8429 [0.6500, 1.0000]  AC1 0.8572  accuracy 0.9250  TPR undefined  TNR undefined  mean 0.6550, corrected 0.5625
the judge is not validated on completeness: labels.jsonl has no labels for it`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	l.MinKappa, l.Criteria[1].Undefined = nil, ""
	if got := labelsLines(l); len(got) != 2 || strings.Contains(got[0], "min_kappa") {
		t.Errorf("without a floor: %q", got)
	}
}
