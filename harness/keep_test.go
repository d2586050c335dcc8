package harness

import (
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
)

// Whether a run keeps its cases in memory is decided from the gates
// parsed once when the session is planned, not from their text: a scope value or a source that spells a
// trial metric does not make a gate need the cases.
func TestKeepCasesFromParsedExpressions(t *testing.T) {
	for _, tc := range []struct {
		expr string
		keep bool
	}{
		{"pass_rate >= 0.5", false},
		{"[category=no_new_failures] pass_rate >= 0.5", false},
		{"[name=flaky_cases] ndcg@10 >= 0.1", false},
		{"flaky_cases <= 0", true},
		{"pass_all_rate >= 0.9", true},
		{"no_new_failures", true},
		{"no_new_failures [category=x]", true},
	} {
		e, err := gate.Parse(tc.expr, "t.yaml:1")
		if err != nil {
			t.Fatal(err)
		}
		ss := &session{f: &Plan{Trials: 1}, gates: []assay.Gate{{Expr: tc.expr, Source: "t.yaml:1"}}, exprs: []gate.Expr{e}}
		if got := ss.keepCases(); got != tc.keep {
			t.Errorf("gate %q: keepCases = %v, want %v", tc.expr, got, tc.keep)
		}
	}
	o, err := gate.ParseOrdering("pass_any_rate: a <= b", "t")
	if err != nil {
		t.Fatal(err)
	}
	if ss := (&session{f: &Plan{Trials: 1}, orderings: []gate.Ordering{o}}); !ss.keepCases() {
		t.Errorf("an ordering of pass_any_rate does not keep the cases")
	}
	if ss := (&session{f: &Plan{Trials: 2}}); !ss.keepCases() {
		t.Errorf("trials 2 does not keep the cases")
	}
}
