package ui

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
)

// TestComparePageSaysWhatItCannotSee renders the compare page of a
// comparison whose cases share 5 source documents: the page says how many
// clusters decided it, that 5 clusters cannot reach 0.05, each measure's
// effect size and MDE, and the smallest change the suite can see.
func TestComparePageSaysWhatItCannotSee(t *testing.T) {
	mk := func(id string, drop float64) *assay.Run {
		r := &assay.Run{Schema: assay.RunSchema, RunID: id, Status: assay.StatusComplete,
			Suite:   assay.SuiteRef{Name: "kb", Fingerprint: "sha256:aa", Cluster: "doc"},
			Target:  assay.TargetInfo{Kind: "http"},
			Options: assay.RunOptions{Trials: 1, Metrics: []string{"ndcg@10"}}}
		for i := range 20 {
			pass := true
			v := 0.5 + 0.02*float64(i%7)
			if i%3 == 0 {
				v -= drop
			}
			r.Cases = append(r.Cases, assay.CaseResult{ID: fmt.Sprintf("q%02d", i), Pass: &pass, Retrieved: 10,
				Tags: map[string]string{"doc": fmt.Sprintf("d%d", i%5)}, Metrics: map[string]float64{"ndcg@10": v}})
		}
		return r
	}
	base, cand := mk("b", 0), mk("c", 0.1)
	rep := compare.Runs(base, cand, compare.Options{})
	var buf bytes.Buffer
	if err := render(&buf, "compare", serverLinks{}, buildCompare(rep, base, cand, 50)); err != nil {
		t.Fatal(err)
	}
	b := buf.String()
	for _, want := range []string{
		"20 paired cases · tested as 5 clusters by doc</p>",
		"only 5 clusters by doc: with 5 or fewer clusters no change can reach p &lt; 0.05",
		`<details id="effect"><summary>effect size and power</summary>`,
		`<tr><td>ndcg@10</td><td class="num">`,
		`<p id="sensitivity">this suite cannot see changes below ndcg@10 `,
	} {
		if !strings.Contains(b, want) {
			t.Errorf("compare page lacks %q", want)
		}
	}
}
