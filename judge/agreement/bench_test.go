package agreement

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay/internal/largetest"
)

// TestLargeLabelsFileIsBounded: 100,000 labelled cases (scores, so
// Spearman's bootstrap too) take seconds, with fewer resamples and a
// warning that says so. TestDrawCapCutsResamples is its small form.
func TestLargeLabelsFileIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("large")
	}
	largetest.Skip(t, "draws 20,000,000 bootstrap cases from 100,000 labelled ones")
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

// TestDrawCapCutsResamples is the small form of
// TestLargeLabelsFileIsBounded: with the cap lowered to 200,000 draws,
// 1,000 labelled cases get 200 resamples instead of 2,000, and a warning
// says so. (It swaps maxDraws, so it does not run in parallel.)
func TestDrawCapCutsResamples(t *testing.T) {
	defer func(d int) { maxDraws = d }(maxDraws)
	maxDraws = 200_000
	s := newStandIn(9, 1000, 1000, 0.1)
	rep, err := Compute(rubric, s.scores, s.labels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Criterion("groundedness")
	if c.Resamples != 200 {
		t.Errorf("resamples %d, want 200", c.Resamples)
	}
	want := fmt.Sprintf("groundedness: 200 resamples instead of %d for the intervals over %d cases (the bootstrap draws at most 200000 cases)", DefaultResamples, c.N)
	found := false
	for _, w := range rep.Warnings {
		found = found || strings.Contains(w, want)
	}
	if !found {
		t.Errorf("warnings %q: none says %q", rep.Warnings, want)
	}
}

func BenchmarkCompute1000(b *testing.B) {
	s := newStandIn(9, 5000, 1000, 0.1)
	for b.Loop() {
		if _, err := Compute(rubric, s.scores, s.labels, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
