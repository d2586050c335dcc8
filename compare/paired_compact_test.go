package compare_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
)

// genPairRun is a generated run for the PairCompact test: cases c000..,
// some left out, some repeated, in shuffled order, with 1 to 3 trials, a
// random mix of outcomes, metrics (sometimes missing, sometimes more than
// 64 of them) and a lang tag that depends on the case id only.
func genPairRun(rng *rand.Rand, id string, n, trials int, manyMetrics bool) *assay.Run {
	r := &assay.Run{Schema: assay.RunSchema, RunID: id, Status: assay.StatusComplete,
		Options: assay.RunOptions{K: 10, Trials: trials, Metrics: []string{"ndcg@10", "mrr"}}}
	names := []string{"ndcg@10", "mrr", "recall@5"}
	if manyMetrics {
		for i := range 70 {
			names = append(names, fmt.Sprintf("m%02d", i))
		}
	}
	for i := range n {
		if rng.IntN(10) == 0 {
			continue // only in the other run
		}
		for t := range trials {
			c := assay.CaseResult{ID: fmt.Sprintf("c%03d", i), Trial: t, Retrieved: rng.IntN(3),
				Citations: rng.IntN(2), Refused: rng.IntN(8) == 0, Metrics: map[string]float64{}}
			switch rng.IntN(5) {
			case 0: // not graded
			case 1:
				f := false
				c.Pass = &f
			default:
				p := true
				c.Pass = &p
			}
			if rng.IntN(9) == 0 {
				c.Error = &assay.Error{Class: "timeout", Message: "slow"}
			}
			for _, m := range names {
				if rng.IntN(6) != 0 {
					c.Metrics[m] = float64(rng.IntN(1000)) / 997
				}
			}
			c.Tags = map[string]string{"lang": []string{"de", "en", "fr"}[i%3]}
			r.Cases = append(r.Cases, c)
			if rng.IntN(25) == 0 { // a repeated (id, trial)
				d := c
				d.Metrics = map[string]float64{"ndcg@10": rng.Float64()}
				r.Cases = append(r.Cases, d)
			}
		}
	}
	rng.Shuffle(len(r.Cases), func(i, j int) { r.Cases[i], r.Cases[j] = r.Cases[j], r.Cases[i] })
	return r
}

// PairCompact gives, bit for bit, what PairMeasure gives on the same two
// runs, for every rate and metric, with no filter, a filter on the case id
// and one on a tag.
func TestPairCompactEqualsPairMeasure(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 27))
	measures := []string{"pass_rate", "error_rate", "no_hit_rate", "refusal_rate", "grounded_rate",
		"ndcg@10", "mrr", "recall@5", "m03", "m66", "absent"}
	for round := range 60 {
		n, trials := 1+rng.IntN(60), 1+rng.IntN(3)
		many := round%4 == 3
		base := genPairRun(rng, "b", n, trials, many)
		cand := genPairRun(rng, "c", n+rng.IntN(5), trials, many)
		cb, cc := compare.CompactOf(base), compare.CompactOf(cand)
		full := map[string]func(*assay.CaseResult) bool{
			"all":  nil,
			"id":   func(r *assay.CaseResult) bool { return r.ID < "c020" },
			"lang": func(r *assay.CaseResult) bool { v, ok := r.Tags["lang"]; return ok && v == "de" },
		}
		compact := map[string]func(int) bool{
			"all":  nil,
			"id":   func(i int) bool { return cc.ID(i) < "c020" },
			"lang": func(i int) bool { v, ok := cc.Tag(i, "lang"); return ok && v == "de" },
		}
		for _, m := range measures {
			for _, k := range []string{"all", "id", "lang"} {
				want := compare.PairMeasure(base, cand, m, full[k])
				got := compare.PairCompact(cb, cc, m, compact[k])
				if !samePaired(got, want) {
					t.Fatalf("round %d, %s, keep %s: PairCompact %+v; PairMeasure %+v", round, m, k, got, want)
				}
			}
		}
	}
}

// samePaired compares two Paired with their deltas bit for bit.
func samePaired(a, b compare.Paired) bool {
	if a.Measure != b.Measure || a.Direction != b.Direction || (a.Deltas == nil) != (b.Deltas == nil) {
		return false
	}
	return slices.EqualFunc(a.Deltas, b.Deltas, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// A filter on the candidate's facts reads the candidate's case trial i.
func TestPairCompactKeepReadsTheCandidate(t *testing.T) {
	t.Parallel()
	base := run("b", 6, nil)
	cand := run("c", 6, func(i int, c *assay.CaseResult) {
		c.Metrics["ndcg@10"] = float64(i)
		c.Tags = map[string]string{"half": []string{"lo", "hi"}[i/3]}
	})
	slices.Reverse(cand.Cases) // indexes in cand are not those of base
	cc := compare.CompactOf(cand)
	p := compare.PairCompact(compare.CompactOf(base), cc, "ndcg@10", func(i int) bool {
		v, _ := cc.Tag(i, "half")
		return v == "hi"
	})
	var got []string
	for _, d := range p.Deltas {
		got = append(got, fmt.Sprintf("%.2f", d))
	}
	// cases q03..q05: ndcg 3, 4, 5 against 0.5 + 0.01*(i%7)
	if want := "2.47 3.46 4.45"; strings.Join(got, " ") != want {
		t.Errorf("deltas %v; want %s", got, want)
	}
}
