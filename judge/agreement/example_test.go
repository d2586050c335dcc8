package agreement_test

import (
	"fmt"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/judge/agreement"
)

// A run's judge scores, read one result at a time, against a labels file.
func ExampleCompute() {
	labels, err := agreement.ReadLabels(strings.NewReader(`{"case": "a", "criterion": "relevance", "label": true}
{"case": "b", "criterion": "relevance", "label": false}
{"case": "c", "criterion": "relevance", "label": true}
{"case": "d", "criterion": "relevance", "label": false}
`), "labels.jsonl")
	if err != nil {
		panic(err)
	}
	scores := agreement.NewScores(agreement.KeepLabelled(labels))
	for id, s := range map[string]float64{"a": 0.9, "b": 0.2, "c": 0.4, "d": 0.1} {
		scores.Add(&assay.CaseResult{ID: id, Judge: &assay.JudgeResult{Scores: []assay.JudgeScore{{Criterion: "relevance", Score: s}}}})
	}
	rubric := []assay.JudgeCriterion{{Name: "relevance", Min: 0, Max: 1}}
	rep, err := agreement.Compute(rubric, scores, labels, agreement.Options{})
	if err != nil {
		panic(err)
	}
	c := rep.Criterion("relevance")
	fmt.Printf("n %d  kappa %.2f  accuracy %.2f  TPR %.2f  TNR %.2f\n", c.N, c.Kappa.Value, *c.Accuracy, *c.TPR, *c.TNR)
	fmt.Printf("judge mean %.3f, corrected %.3f\n", c.PPI.JudgeMean, c.PPI.Estimate)
	fmt.Println(rep.Validate("relevance", 0.6))
	// Output:
	// n 4  kappa 0.50  accuracy 0.75  TPR 0.50  TNR 1.00
	// judge mean 0.400, corrected 0.500
	// the judge is not validated on relevance: 4 labelled cases it scored, fewer than the 30 min_kappa needs
}
