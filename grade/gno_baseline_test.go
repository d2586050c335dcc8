package grade_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/grade"
	"github.com/assay-eval/assay/internal/shareddata"
	"github.com/assay-eval/assay/metric"
	"github.com/assay-eval/assay/suite"
)

// TestGNOPublishedBaseline feeds the rankings of GNO's published hybrid
// baseline (hybrid-baseline/latest.json: 33 cases, their topDocs) through
// grading of the suites assay reads from GNO's queries.json and
// hybrid-adversarial.json, and checks GNO's own per-case recall@5,
// recall@10, nDCG@10 and MRR, and the published means. GNO's scorer uses
// gain 2^rel-1 and recall over relevantDocs (q1 judges two documents but
// lists one as relevant: recall 1, nDCG 0.7872).
func TestGNOPublishedBaseline(t *testing.T) {
	dir := filepath.Join(shareddata.Dir(t), "seed-fixtures", "gno")
	cases := map[string]assay.Case{}
	var gain assay.Gain
	for _, f := range []string{"queries.json", "hybrid-adversarial.json"} {
		s, err := suite.Load(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		gain = s.Gain
		for _, c := range s.Cases {
			cases[c.ID] = c
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "hybrid-baseline", "latest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var base struct {
		Metrics struct {
			RecallAt5, RecallAt10, NdcgAt10, Mrr float64
		}
		Cases []struct {
			ID                                   string
			TopDocs                              []string
			RecallAt5, RecallAt10, NdcgAt10, Mrr float64
		}
	}
	if err := json.Unmarshal(raw, &base); err != nil {
		t.Fatal(err)
	}
	if len(base.Cases) != 33 {
		t.Fatalf("baseline has %d cases, want 33", len(base.Cases))
	}
	var specs []metric.Spec
	for _, m := range []string{"recall@5", "recall@10", "ndcg@10", "mrr"} {
		sp, err := metric.Parse(m)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, sp)
	}
	o := grade.Options{Metrics: specs, Gain: gain}
	sums := map[string]float64{}
	for _, bc := range base.Cases {
		c, ok := cases[bc.ID]
		if !ok {
			t.Fatalf("baseline case %s is not in the suites", bc.ID)
		}
		obs := assay.Observation{Case: c.ID}
		for i, d := range bc.TopDocs {
			obs.Retrieved = append(obs.Retrieved, assay.Hit{ID: d, Score: float64(len(bc.TopDocs) - i)})
		}
		r := grade.Case(c, obs, o)
		for name, want := range map[string]float64{"recall@5": bc.RecallAt5, "recall@10": bc.RecallAt10, "ndcg@10": bc.NdcgAt10, "mrr": bc.Mrr} {
			got := r.Metrics[name]
			sums[name] += got
			if math.Abs(got-want) > 5e-5 { // GNO rounds to 4 places
				t.Errorf("case %s: %s = %.4f, GNO's baseline says %.4f", bc.ID, name, got, want)
			}
		}
	}
	n := float64(len(base.Cases))
	for name, want := range map[string]float64{"recall@5": base.Metrics.RecallAt5, "recall@10": base.Metrics.RecallAt10, "ndcg@10": base.Metrics.NdcgAt10, "mrr": base.Metrics.Mrr} {
		if got := sums[name] / n; math.Abs(got-want) > 5e-4 {
			t.Errorf("mean %s = %.4f, GNO's baseline says %.4f", name, got, want)
		}
	}
}
