package runner

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

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

// Observations report measures too: per name the run keeps the last case's
// value in suite order, whatever the order the cases finished in, and the
// target's Measures method has the last word.
func TestRunKeepsTheLastObservedMeasure(t *testing.T) {
	obs := assay.TargetFunc(func(ctx context.Context, c assay.Case) (assay.Observation, error) {
		n := float64(c.ID[len(c.ID)-1] - '0') // c00 0, c01 1, c02 2
		if c.ID == "c00" {
			time.Sleep(30 * time.Millisecond) // the first case finishes last
		}
		return assay.Observation{Case: c.ID, Answer: "ok", Measures: map[string]float64{"docs": n, "Bad-Name": 1}}, nil
	})
	res, err := Run(context.Background(), obs, cases(3), Options{Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Measures) != 1 || res.Measures["docs"] != 2 {
		t.Errorf("measures = %v, want docs 2 (the last case's)", res.Measures)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], `measure "Bad-Name": left out of the run`) {
		t.Errorf("warnings = %q", res.Warnings)
	}
	tgt := &measuring{TargetFunc: obs, m: map[string]float64{"docs": 9}}
	res, _ = Run(context.Background(), tgt, cases(3), Options{Concurrency: 3})
	if res.Measures["docs"] != 9 {
		t.Errorf("measures = %v, want docs 9 from Measures", res.Measures)
	}
}
