package gate

import (
	"slices"
	"testing"

	"github.com/assay-eval/assay"
)

func TestNewFailuresLeavesOutChangedCases(t *testing.T) {
	t.Parallel()
	hashed := func(r assay.CaseResult, h string) assay.CaseResult { r.Hash = h; return r }
	base := runOf("b",
		hashed(result("q1", 0, "pass", nil, nil), "sha256:1"),
		hashed(result("q2", 0, "pass", nil, nil), "sha256:2"),
		hashed(result("q3", 0, "pass", nil, nil), "sha256:3"),
		result("q4", 0, "pass", nil, nil))
	run := runOf("c",
		hashed(result("q1", 0, "fail", nil, nil), "sha256:1"),        // same case, now fails: a new failure
		hashed(result("q2", 0, "fail", nil, nil), "sha256:2-edited"), // edited case: not paired
		hashed(result("q3", 0, "pass", nil, nil), "sha256:3"),
		hashed(result("q4", 0, "fail", nil, nil), "sha256:4")) // the baseline has no hash: paired
	flips, paired := NewFailures(run, base, nil)
	if want := []string{"q1", "q4"}; !slices.Equal(flips, want) || paired != 3 {
		t.Errorf("NewFailures = %v, %d paired; want %v, 3 paired (q2 changed)", flips, paired, want)
	}
}
