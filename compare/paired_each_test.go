package compare_test

import (
	"math/rand/v2"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
)

// PairCompactEach gives, filter by filter, what PairMeasure gives on the
// full runs with the same filter.
func TestPairCompactEachEqualsPairMeasure(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 27))
	for round := range 30 {
		n, trials := 1+rng.IntN(60), 1+rng.IntN(3)
		base := genPairRun(rng, "b", n, trials, round%4 == 3)
		cand := genPairRun(rng, "c", n+rng.IntN(5), trials, round%4 == 3)
		cb, cc := compare.CompactOf(base), compare.CompactOf(cand)
		lang := func(v string) func(int) bool {
			return func(i int) bool { x, ok := cc.Tag(i, "lang"); return ok && x == v }
		}
		keeps := []func(int) bool{lang("de"), nil, lang("fr"), lang("xx"), func(i int) bool { return cc.ID(i) < "c020" }}
		fullLang := func(v string) func(*assay.CaseResult) bool {
			return func(r *assay.CaseResult) bool { x, ok := r.Tags["lang"]; return ok && x == v }
		}
		full := []func(*assay.CaseResult) bool{fullLang("de"), nil, fullLang("fr"), fullLang("xx"), func(r *assay.CaseResult) bool { return r.ID < "c020" }}
		for _, m := range []string{"pass_rate", "error_rate", "ndcg@10", "absent"} {
			got := compare.PairCompactEach(cb, cc, m, keeps)
			if len(got) != len(keeps) {
				t.Fatalf("round %d %s: %d results, want %d", round, m, len(got), len(keeps))
			}
			for k := range keeps {
				want := compare.PairMeasure(base, cand, m, full[k])
				if !samePaired(got[k], want) {
					t.Errorf("round %d %s filter %d: %+v, PairMeasure gives %+v", round, m, k, got[k], want)
				}
			}
		}
	}
}
