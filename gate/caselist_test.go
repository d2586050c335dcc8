package gate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// A gate broken by many cases names the first MaxListedCases and counts
// the rest; its value counts them all.
func TestNewFailuresDetailIsBounded(t *testing.T) {
	var base, cand []assay.CaseResult
	for i := range 17_615 {
		id := fmt.Sprintf("q%05d", i)
		base = append(base, result(id, 0, "pass", nil, nil))
		cand = append(cand, result(id, 0, "fail", nil, nil))
	}
	strict, _ := Parse("no_new_failures(strict)", "test")
	weighed, _ := Parse("no_new_failures", "test")
	v := EvaluateExprs([]Expr{strict, weighed}, runOf("c", cand...), runOf("b", base...))
	for _, r := range v.Results {
		if r.Value == nil || *r.Value != 17_615 {
			t.Errorf("%s: value %v, want 17615", r.Expr, r.Value)
		}
		if !strings.Contains(r.Detail, ": q00000, q00001, ") || !strings.Contains(r.Detail, "q00019, and 17,595 more") || strings.Contains(r.Detail, "q00020") {
			t.Errorf("%s: detail %q; want the first 20 ids and \"and 17,595 more\"", r.Expr, r.Detail)
		}
		if len(r.Detail) > 600 {
			t.Errorf("%s: detail of %d bytes", r.Expr, len(r.Detail))
		}
	}
	if got := caseList([]string{"a", "b"}); got != "a, b" {
		t.Errorf("caseList of two = %q", got)
	}
}
