package harness_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/assay-eval/assay/harness"
)

// A baseline whose cases no gate reads is loaded in compact form (the
// Result holds its record without cases): no gate, or delta and ratio
// gates on its summaries (the run's or a recorded segment's); a gate that
// pairs its cases (no_new_failures) gets it whole. The comparison and the
// summary gates' results are the same either way.
func TestRunBaselineCompactUnlessAGateReadsIt(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	res, err := harness.Run(ctx, plan(harness.Plan{StoreDir: dir}))
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	first := res.Runs[0]
	segs := slices.Sorted(maps.Keys(first.Segments))
	if len(segs) == 0 {
		t.Fatal("the first run recorded no segment")
	}
	seg := segs[0]
	summaryGates := []string{"delta(pass_rate) >= -0.5", "ratio(ndcg@10) >= 0.5", "[" + seg + "] delta(pass_rate) >= -0.5"}
	var verdicts, gates []string
	for _, tc := range []struct {
		gates []string
		whole bool
	}{
		{nil, false},
		{summaryGates, false},
		{append(slices.Clone(summaryGates), "no_new_failures"), true},
	} {
		res, err := harness.Run(ctx, plan(harness.Plan{StoreDir: dir, Baseline: first.RunID, Gates: tc.gates}))
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
		// The later runs have the first as history, so only the measures
		// are compared.
		b, err := json.Marshal(res.Comparisons[0].Metrics)
		if err != nil {
			t.Fatal(err)
		}
		verdicts = append(verdicts, string(res.Comparisons[0].Verdict)+" "+string(b))
		if len(tc.gates) > 0 {
			g := res.Runs[0].Gates[:len(summaryGates)]
			for _, r := range g {
				if r.Value == nil {
					t.Errorf("gates %q: %s has no value: %s", tc.gates, r.Expr, r.Detail)
				}
			}
			b, err := json.Marshal(g)
			if err != nil {
				t.Fatal(err)
			}
			gates = append(gates, string(b))
		}
		res.Close()
	}
	if verdicts[0] != verdicts[1] || verdicts[1] != verdicts[2] {
		t.Errorf("the comparison differs with the baseline compact and whole:\n%s", strings.Join(verdicts, "\n"))
	}
	if gates[0] != gates[1] {
		t.Errorf("the summary gates differ with the baseline compact (%s) and whole (%s)", gates[0], gates[1])
	}
}
