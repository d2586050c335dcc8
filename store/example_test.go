package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
)

// A run command records a run while it goes: Begin (run.json says
// incomplete), one Append per graded case, Finish with the summary.
// "latest" then names it; Load reads the record back (LoadRun reads its
// run.json with no database) and Cases the case lines with observations.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "assay-store")
	defer os.RemoveAll(dir)
	s, err := store.Open(filepath.Join(dir, ".assay"), store.OpenOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	ctx := context.Background()

	run := &assay.Run{Suite: assay.SuiteRef{Name: "kb"}, Options: assay.RunOptions{Trials: 1}}
	w, err := s.Begin(ctx, run)
	if err != nil {
		fmt.Println(err)
		return
	}
	pass := true
	result := assay.CaseResult{ID: "q1", Pass: &pass, Metrics: map[string]float64{"ndcg@10": 0.9},
		Observation: &assay.Observation{Case: "q1", Answer: "SHA-256"}}
	if err := w.Append(result); err != nil {
		fmt.Println(err)
		return
	}
	run.Status = assay.StatusComplete
	run.Cases = []assay.CaseResult{result}
	run.Summary = assay.Summary{Cases: 1, Graded: 1, Passed: 1,
		Metrics: map[string]assay.MetricAgg{"ndcg@10": {Mean: 0.9, N: 1}}}
	if err := w.Finish(run); err != nil {
		fmt.Println(err)
		return
	}

	got, err := s.Load(ctx, "latest")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(got.Status, got.Suite.Name, len(got.Cases), got.Cases[0].Observation == nil)
	s.Cases(ctx, got.RunID, true, func(r assay.CaseResult) error {
		fmt.Println(r.ID, r.Observation.Answer)
		return nil
	})
	// Output:
	// complete kb 1 true
	// q1 SHA-256
}
