package compare_test

import (
	"fmt"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
)

func ExampleRuns() {
	mk := func(id string, ndcg float64, failQ3 bool) *assay.Run {
		r := &assay.Run{RunID: id, Status: assay.StatusComplete, Suite: assay.SuiteRef{Name: "kb", Fingerprint: "sha256:1"},
			Target: assay.TargetInfo{Kind: "builtin"}}
		for i := range 12 {
			pass := !(failQ3 && i == 3)
			r.Cases = append(r.Cases, assay.CaseResult{ID: fmt.Sprintf("q%d", i), Pass: &pass,
				Metrics: map[string]float64{"ndcg@10": ndcg}})
		}
		return r
	}
	rep := compare.Runs(mk("base", 0.60, false), mk("cand", 0.55, true), compare.Options{})
	fmt.Println(rep.Verdict, rep.Reasons)
	m := rep.Metrics[1]
	fmt.Printf("%s %.2f -> %.2f p=%.4f %s\n", m.Name, m.Baseline, m.Candidate, m.P, m.Change)
	fmt.Println("pass -> fail:", rep.Flips.PassToFail)
	// Output:
	// regressed [ndcg@10 worse (p <0.001, adjusted 0.001) 1 new failure (builtin target: deterministic): q3]
	// ndcg@10 0.60 -> 0.55 p=0.0005 worse
	// pass -> fail: [q3]
}
