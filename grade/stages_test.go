package grade

import (
	"math"
	"reflect"
	"testing"

	"github.com/assay-eval/assay"
)

func TestStagesSumSpansByName(t *testing.T) {
	t.Parallel()
	got := Stages([]assay.Span{
		{Name: "bm25", StartMs: 1, EndMs: 4},
		{Name: "embed", StartMs: 0, EndMs: 2.5},
		{Name: "bm25", StartMs: 10, EndMs: 11}, // a stage twice: summed
		{Name: "fuse", StartMs: 5, EndMs: 3},   // ends before it starts: 0
		{Name: "nan", StartMs: 0, EndMs: math.NaN()},
		{Name: "inf", StartMs: 0, EndMs: math.Inf(1)},
	})
	want := map[string]float64{"bm25": 4, "embed": 2.5, "fuse": 0, "nan": 0, "inf": 0}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Stages = %v, want %v", got, want)
	}
	if Stages(nil) != nil {
		t.Fatal("no span: want nil")
	}
}

func TestCaseRecordsStagesOfAnsweredObservations(t *testing.T) {
	t.Parallel()
	c := assay.Case{ID: "q1", Query: "x"}
	spans := []assay.Span{{Name: "answer", StartMs: 2, EndMs: 7}}
	r := Case(c, assay.Observation{Answer: "a", Spans: spans}, Options{})
	if r.Stages["answer"] != 5 {
		t.Fatalf("answered: stages %v, want answer=5", r.Stages)
	}
	r = Case(c, assay.Observation{Error: &assay.Error{Class: assay.ErrTimeout}, Spans: spans}, Options{})
	if r.Stages != nil {
		t.Fatalf("errored: stages %v, want none", r.Stages)
	}
}
