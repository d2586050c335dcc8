package store

import (
	"bytes"
	"testing"

	"github.com/assay-eval/assay"
)

// The capacity hint counts the cases of a run record, and a case can never
// be encoded in fewer than minCaseBytes, so the hint's bound holds.
func TestCaseCountHint(t *testing.T) {
	t.Parallel()
	run := &assay.Run{Schema: assay.RunSchema, RunID: "r", Status: assay.StatusComplete,
		Cases: []assay.CaseResult{{}, {ID: "a"}, {ID: "b", Trial: 1}}}
	b, err := EncodeRun(run)
	if err != nil {
		t.Fatal(err)
	}
	if got := caseCount(b); got != 3 {
		t.Errorf("caseCount = %d, want 3", got)
	}
	one, err := EncodeRun(&assay.Run{Cases: []assay.CaseResult{{}}})
	if err != nil {
		t.Fatal(err)
	}
	none, err := EncodeRun(&assay.Run{Cases: []assay.CaseResult{}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(one) - len(none); n <= minCaseBytes {
		t.Errorf("the smallest case takes %d bytes in run.json, not more than minCaseBytes = %d", n, minCaseBytes)
	}
	if got := caseCount(bytes.Repeat([]byte(`"id":`), 1000)); got > 5000/minCaseBytes {
		t.Errorf("caseCount of 1,000 bare id keys = %d, want at most %d", got, 5000/minCaseBytes)
	}
}
