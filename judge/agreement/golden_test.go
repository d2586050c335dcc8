package agreement

import (
	"bytes"
	"fmt"
	"testing"

	goldenfile "github.com/assay-eval/assay/internal/golden"
)

// golden compares got with testdata/name (go test -update rewrites it).
func golden(t *testing.T, name, got string) { t.Helper(); goldenfile.Check(t, name, []byte(got)) }

// goldenReport is a small report with everything a report shows: pass/fail
// labels from two people (one pair), scores (Spearman), a case the run did
// not judge, a criterion with too few labels, an id with a control byte.
func goldenReport(t *testing.T) *Report {
	scores, labels := NewScores(nil), &Labels{File: "labels.jsonl", Unlabelled: 2}
	yes, no := true, false
	for i := range 12 {
		id := fmt.Sprintf("c%02d", i)
		if i == 11 {
			id = "c\x1b11"
		}
		f := 0.2 + 0.06*float64(i)
		scores.Add(judged(id, 0, map[string]float64{"relevance": f, "groundedness": f}))
		h := &yes
		if i < 5 || i == 9 {
			h = &no
		}
		g := float64(i%4) / 3
		labels.Rows = append(labels.Rows, Label{Case: id, Criterion: "relevance", Label: h, Labeller: "ann"}, Label{Case: id, Criterion: "groundedness", Score: &g, Labeller: "ann"})
		if i < 4 {
			labels.Rows = append(labels.Rows, Label{Case: id, Criterion: "relevance", Label: &yes, Labeller: "bob"})
		}
	}
	labels.Rows = append(labels.Rows, Label{Case: "gone", Criterion: "relevance", Label: &yes, Labeller: "ann"})
	rep, err := Compute(rubric, scores, labels, Options{Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestReportText(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := goldenReport(t).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestReportText.golden.txt", b.String())
}

func TestReportJSON(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := goldenReport(t).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestReportJSON.golden.json", b.String())
}
