package harness_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/assay-eval/assay/harness"
)

// A baseline that only the comparison reads is loaded in compact form (the
// Result holds its record without cases); a gate that compares with it
// gets it whole. The comparison is the same either way.
func TestRunBaselineCompactUnlessAGateReadsIt(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	res, err := harness.Run(ctx, plan(harness.Plan{StoreDir: dir}))
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	var verdicts []string
	for _, tc := range []struct {
		gates []string
		whole bool
	}{
		{nil, false},
		{[]string{"delta(pass_rate) >= -0.5"}, true},
	} {
		res, err := harness.Run(ctx, plan(harness.Plan{StoreDir: dir, Baseline: res.Runs[0].RunID, Gates: tc.gates}))
		if err != nil {
			t.Fatalf("gates %q: %v", tc.gates, err)
		}
		base := res.Baseline
		if base == nil || res.Comparisons[0] == nil {
			t.Fatalf("gates %q: baseline %v, comparison %v", tc.gates, base, res.Comparisons[0])
		}
		if whole := len(base.Cases) > 0; whole != tc.whole {
			t.Errorf("gates %q: baseline read whole = %v (%d cases), want %v", tc.gates, whole, len(base.Cases), tc.whole)
		}
		if c := res.Comparisons[0]; c.PairedCases != 24 {
			t.Errorf("gates %q: %d paired cases, want 24", tc.gates, c.PairedCases)
		}
		// The second run has the first as history, so only the measures
		// are compared.
		b, err := json.Marshal(res.Comparisons[0].Metrics)
		if err != nil {
			t.Fatal(err)
		}
		verdicts = append(verdicts, string(res.Comparisons[0].Verdict)+" "+string(b))
		res.Close()
	}
	if verdicts[0] != verdicts[1] {
		t.Errorf("the comparison differs with the baseline compact (%q) and whole (%q)", verdicts[0], verdicts[1])
	}
}
