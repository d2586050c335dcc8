package report

import (
	"bytes"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
)

// TestGateRunGolden: what `assay gate` shows of one run: the header and
// its note, the trial statistics, a line per gate, the gates scoped to
// another variant, the tally and the sensitivity line, then the floors
// raised.
func TestGateRunGolden(t *testing.T) {
	t.Parallel()
	run := &assay.Run{RunID: "01a250e3-c71f", Suite: assay.SuiteRef{Name: "alpha"}, Status: assay.StatusComplete,
		Variant: map[string]string{"model": "small"}}
	pr := 0.5
	run.Summary.PassRate = &pr
	held, err := gate.Parse("pass_rate >= 0.4", "suite.yaml:3")
	if err != nil {
		t.Fatal(err)
	}
	failed, err := gate.Parse("pass_rate >= 0.9", "suite.yaml:4")
	if err != nil {
		t.Fatal(err)
	}
	other, err := gate.Parse("[model=large] pass_rate >= 0.95", "suite.yaml:5")
	if err != nil {
		t.Fatal(err)
	}
	g := GateRun{
		Run:         run,
		Note:        "no floors file yet",
		Trials:      assay.TrialStats{Trials: 3, PassAny: ptr(0.75), Flaky: []string{"q2", "q7"}},
		Verdict:     gate.EvaluateExprs([]gate.Expr{held, failed}, run, nil),
		NotApplied:  []gate.Expr{other},
		Sensitivity: "sensitivity: a line",
	}
	var b bytes.Buffer
	GateHead(&b, g)
	GateBody(&b, g)
	GateTally(&b, g)
	Ratchet(&b, "", []gate.FloorChange{{Metric: "pass_rate", New: 0.5}, {Metric: "ndcg@10", Old: ptr(0.4), New: 0.45}}, "floors.yaml")
	Ratchet(&b, "the run failed a gate", nil, "floors.yaml")
	Ratchet(&b, "", nil, "floors.yaml")
	golden(t, "TestGateRun.golden.txt", b.Bytes())
}
