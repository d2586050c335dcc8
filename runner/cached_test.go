package runner_test

import (
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/runner"
)

// TestAggregatorCountsCachedResults: summary.cached counts the results
// whose observation came from the cache, overall and per segment, and a
// cached result's missing latency leaves the percentiles undefined.
func TestAggregatorCountsCachedResults(t *testing.T) {
	a := runner.NewAggregator(nil)
	lat := 5.0
	a.Add(&assay.CaseResult{ID: "a", Cached: true, Tags: map[string]string{"lang": "en"}})
	a.Add(&assay.CaseResult{ID: "b", Cached: true})
	a.Add(&assay.CaseResult{ID: "c", LatencyMs: &lat})
	s := a.Summary()
	if s.Cached != 2 || s.LatencyMs.N != 1 {
		t.Errorf("summary cached %d, latency n %d", s.Cached, s.LatencyMs.N)
	}
	if seg := a.Segments()["lang=en"]; seg.Cached != 1 {
		t.Errorf("segment cached %d", seg.Cached)
	}
}
