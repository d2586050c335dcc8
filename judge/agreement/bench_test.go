package agreement

import (
	"testing"
	"time"
)

// TestLargeLabelsFileIsBounded: 100,000 labelled cases (scores, so
// Spearman's bootstrap too) take seconds, with fewer resamples and a
// warning that says so.
func TestLargeLabelsFileIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("large")
	}
	t.Parallel()
	s := newStandIn(9, 100_000, 100_000, 0.1)
	start := time.Now()
	rep, err := Compute(rubric, s.scores, s.labels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 120*time.Second {
		t.Errorf("Compute over 100,000 labelled cases took %v", d)
	}
	if c := rep.Criterion("groundedness"); c.Resamples != maxDraws/100_000 {
		t.Errorf("resamples %d, want %d", c.Resamples, maxDraws/100_000)
	}
	t.Logf("%v, warnings %q", time.Since(start), rep.Warnings)
}

func BenchmarkCompute1000(b *testing.B) {
	s := newStandIn(9, 5000, 1000, 0.1)
	for b.Loop() {
		if _, err := Compute(rubric, s.scores, s.labels, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
