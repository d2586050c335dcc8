package ui

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/report"
)

// A case proposed from a trace shows where it came from: the suite case's
// provenance and review state, else the provenance of the observation
// imported from traces.
func TestCasePageShowsProvenance(t *testing.T) {
	t.Parallel()
	run := &assay.Run{RunID: "01a25036-2a13-78c6-8653-18ae5595e146"}
	score := 0.2
	obs := &assay.Observation{Case: "t1", Answer: "x", Provenance: &assay.Provenance{TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", Service: "kb-api",
		Feedback: &assay.Feedback{Label: "thumbs_down"}, Evaluations: []assay.Evaluation{{Name: "helpfulness", Score: &score, Label: "unhelpful"}}}}
	views := []report.CaseView{{Result: assay.CaseResult{ID: "t1", Observation: obs}, Query: "q"}}

	d := buildCase(run, "t1", views, nil, false)
	want := []provenanceRow{{"trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"}, {"service", "kb-api"}, {"feedback", "thumbs_down"}, {"evaluation helpfulness", "0.2 unhelpful"}}
	if !slices.Equal(d.Provenance, want) {
		t.Errorf("from the observation: %v, want %v", d.Provenance, want)
	}

	sc := &assay.Case{ID: "t1", Review: assay.ReviewPending, Provenance: map[string]string{"trace_id": "abc", "reason": "negative_feedback"}}
	d = buildCase(run, "t1", views, sc, false)
	if d.Review != "pending" || !slices.Equal(d.Provenance, []provenanceRow{{"reason", "negative_feedback"}, {"trace_id", "abc"}}) {
		t.Errorf("from the suite case: review %q provenance %v", d.Review, d.Provenance)
	}

	// The case page shows both.
	var b bytes.Buffer
	if err := render(&b, "case", serverLinks{}, d); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`id="provenance"`, "review: pending", "negative_feedback", ">trace_id<"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("case page lacks %q", s)
		}
	}
}
