package runner

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

type measuring struct {
	assay.TargetFunc
	m map[string]float64
}

func (t *measuring) Measures() map[string]float64 { return t.m }

// The runner reads a target's run-level measures into Result.Measures; a
// value that is not a finite number is left out (undefined) with a warning.
func TestRunReadsMeasures(t *testing.T) {
	tgt := &measuring{TargetFunc: answer("ok"), m: map[string]float64{"index_bytes": 1200, "build_ms": math.NaN()}}
	res, err := Run(context.Background(), tgt, cases(2), Options{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Measures) != 1 || res.Measures["index_bytes"] != 1200 {
		t.Errorf("measures = %v, want index_bytes 1200 alone", res.Measures)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "measure build_ms is NaN: left out of the run") {
		t.Errorf("warnings = %q", res.Warnings)
	}
	res, err = Run(context.Background(), answer("ok"), cases(1), Options{})
	if err != nil || res.Measures != nil {
		t.Errorf("a target without measures: %v, %v", res.Measures, err)
	}
}
