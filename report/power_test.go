package report

import (
	"bytes"
	"testing"

	"github.com/assay-eval/assay/compare"
)

func TestPowerTextGolden(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	n := func(v int) *int { return &v }
	sp := compare.SuitePower{Suite: "kb", Latest: "0193a1c4-1a2b-7000", Previous: "0193a1b2-7c3d-7000", Alpha: 0.05, Power: compare.Power,
		Measures: []compare.MeasurePower{
			{Name: "pass_rate", N: 120, SD: 0.31, Basis: "paired", MDE: f(0.0793)},
			{Name: "ndcg@10", N: 118, SD: 0.12, Basis: "paired", MDE: f(0.031), Delta: f(0.02), CasesNeeded: n(283)},
			{Name: "mrr", N: 118, SD: 0.2, Basis: "spread", MDE: f(0.0516)},
			{Name: "recall@10", N: 1, Delta: f(0.05)},
		}}
	var b bytes.Buffer
	if err := PowerText(&b, sp); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestPowerText.golden.txt", b.Bytes())
}
