package compare_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
)

// TestMatrixIsOneFamily compares the variants of a matrix as one family:
// a drop of ndcg@10 on 8 of 12 cases (exact p 2/2⁸ = 0.0078) is a
// regression alone (Holm over ndcg@10, mrr, pass_rate and the flips: ×4 =
// 0.031) but not beside two unchanged variants (×12 = 0.094), and the
// report names the family it was adjusted in.
func TestMatrixIsOneFamily(t *testing.T) {
	base := run("b", 12, nil)
	worse := run("c", 12, func(i int, c *assay.CaseResult) {
		if i < 8 {
			c.Metrics["ndcg@10"] -= 0.1
		}
	})
	same := run("s", 12, nil)

	alone := compare.Runs(base, worse, compare.Options{})
	if alone.Verdict != compare.Regressed {
		t.Fatalf("alone: %s %q, want regressed", alone.Verdict, alone.Reasons)
	}
	one := compare.Matrix([]compare.Pair{{Base: base, Cand: worse}}, compare.Options{})
	if !reflect.DeepEqual(one[0], alone) {
		t.Errorf("a matrix of one pair differs from Runs:\n%+v\n%+v", one[0], alone)
	}

	pairs := []compare.Pair{{Base: base, Cand: worse}, {Base: base, Cand: same}, {Base: base, Cand: same}}
	reps := compare.Matrix(pairs, compare.Options{})
	if len(reps) != 3 {
		t.Fatalf("%d reports for 3 pairs", len(reps))
	}
	var all []float64
	for _, r := range reps {
		for _, m := range r.Family.Members {
			all = append(all, m.P)
		}
	}
	want := compare.Holm(all)
	k := 0
	for i, r := range reps {
		if r.Family.Comparisons != 3 || r.Family.Tests != len(all) {
			t.Errorf("pair %d: family of %d comparisons and %d tests, want 3 and %d", i, r.Family.Comparisons, r.Family.Tests, len(all))
		}
		for _, m := range r.Family.Members {
			if math.Abs(m.PAdjusted-want[k]) > 1e-15 {
				t.Errorf("pair %d %s: adjusted %v, Holm over the matrix %v", i, m.Name, m.PAdjusted, want[k])
			}
			k++
		}
		if !strings.Contains(r.Method, "in one family with the other 2 comparisons of the matrix (12 tests)") {
			t.Errorf("pair %d: method %q does not name the matrix family", i, r.Method)
		}
	}
	if got := metric(t, reps[0], "ndcg@10"); got.PAdjusted == nil || math.Abs(*got.PAdjusted-12*2.0/256) > 1e-12 {
		t.Errorf("ndcg@10 adjusted %v, want 12 × 2/256", got.PAdjusted)
	}
	if reps[0].Verdict != compare.Inconclusive {
		t.Errorf("in the matrix: %s %q, want inconclusive", reps[0].Verdict, reps[0].Reasons)
	}

	none := compare.Matrix(pairs, compare.Options{Multiplicity: compare.NoAdjustment})
	if none[0].Verdict != compare.Regressed || strings.Contains(none[0].Method, "Holm") {
		t.Errorf("--multiplicity none: %s, %q; want regressed on the raw p", none[0].Verdict, none[0].Method)
	}
}
