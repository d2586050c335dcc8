package gate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// matrixRun builds the run of a variant with n cases whose ndcg@10 is
// value(i).
func matrixRun(name string, n int, value func(i int) float64) *assay.Run {
	var cs []assay.CaseResult
	for i := range n {
		cs = append(cs, result(fmt.Sprintf("q%02d", i), 0, "pass", nil, map[string]float64{"ndcg@10": value(i)}))
	}
	r := runOf(name, cs...)
	r.Variant = map[string]string{"mode": name}
	return r
}

func TestOrderingEvidence(t *testing.T) {
	t.Parallel()
	base := func(i int) float64 { return 0.4 + 0.01*float64(i%7) }
	plus := func(d float64) func(int) float64 { return func(i int) float64 { return base(i) + d } }
	noisy := func(i int) float64 { // mean +0.005, noise ±0.2
		if i%2 == 0 {
			return base(i) + 0.205
		}
		return base(i) - 0.195
	}
	tests := []struct {
		name     string
		thorough func(int) float64
		spec     string
		pass     bool
		want     []string
	}{
		{"each step shown holds", plus(0.06), "ndcg@10: fast <= balanced <= thorough", true,
			[]string{"fast <= balanced shown (+0.03 over 30 cases, Holm p <0.001)", "balanced <= thorough shown (+0.03 over 30 cases"}},
		{"a step significantly reversed fails", plus(0.01), "ndcg@10: fast <= balanced <= thorough", false,
			[]string{"balanced <= thorough reversed (-0.02 over 30 cases"}},
		{"a noisy reversed step is not shown and does not fail", noisy, "ndcg@10: fast <= balanced <= thorough", true,
			[]string{"means out of order, no step significantly reversed: balanced", "balanced <= thorough not shown"}},
		{"equivalence within the tolerance is shown", plus(0.029), "ndcg@10: fast <= balanced <= thorough tolerance 0.01", true,
			[]string{"balanced <= thorough shown (-0.001 over 30 cases"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := map[string]*assay.Run{
				"fast": matrixRun("fast", 30, base), "balanced": matrixRun("balanced", 30, plus(0.03)), "thorough": matrixRun("thorough", 30, tt.thorough),
			}
			o, err := ParseOrdering(tt.spec, "")
			if err != nil {
				t.Fatal(err)
			}
			r := o.Check(runs)
			if r.Pass != tt.pass {
				t.Errorf("pass %v, want %v: %s", r.Pass, tt.pass, r.Detail)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.Detail, w) {
					t.Errorf("detail lacks %q: %s", w, r.Detail)
				}
			}
		})
	}
}
