package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/sqlite"
	"github.com/assay-eval/assay/store/storetest"
)

func TestTrendAndCaseHistory(t *testing.T) {
	t.Parallel()
	s, err := sqlite.OpenStore(t.TempDir(), store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	t0 := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	var ids []string
	for i, ndcg := range []float64{0.5, 0.6, 0.7} {
		run := storetest.NewRun("kb", t0.Add(time.Duration(i)*time.Hour))
		w, err := s.Begin(ctx, run)
		if err != nil {
			t.Fatal(err)
		}
		cases := []assay.CaseResult{storetest.Case("q1", i != 1, ndcg), storetest.Case("q2", true, ndcg)}
		storetest.Complete(run, cases)
		if err := w.Finish(run); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, run.RunID)
	}
	// An incomplete run and a run of another suite stay out of the trend.
	if _, err := s.Begin(ctx, storetest.NewRun("kb", t0.Add(5*time.Hour))); err != nil {
		t.Fatal(err)
	}
	trend, err := s.Trend(ctx, "kb", "ndcg@10", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(trend) != 3 || trend[0].Value != 0.5 || trend[2].Value != 0.7 || trend[2].RunID != ids[2] || trend[0].N != 2 {
		t.Errorf("trend ndcg@10 = %+v; want 0.5, 0.6, 0.7 oldest first with n 2", trend)
	}
	last2, err := s.Trend(ctx, "kb", "ndcg@10", 2)
	if err != nil || len(last2) != 2 || last2[0].Value != 0.6 {
		t.Errorf("trend limit 2 = %+v, %v; want the newest two, oldest first", last2, err)
	}
	pr, err := s.Trend(ctx, "kb", "pass_rate", 0)
	if err != nil || len(pr) != 3 || pr[1].Value != 0.5 || pr[0].Value != 1 {
		t.Errorf("trend pass_rate = %+v, %v; want 1, 0.5, 1", pr, err)
	}
	hist, err := s.CaseHistory(ctx, "kb", "q1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 3 || hist[0].RunID != ids[2] || hist[1].Pass == nil || *hist[1].Pass || hist[0].Metrics["ndcg@10"] != 0.7 {
		t.Errorf("history of q1 = %+v; want 3 rows newest first, the middle one failed", hist)
	}
	if none, err := s.Trend(ctx, "kb", "nope@3", 0); err != nil || len(none) != 0 {
		t.Errorf("trend of an unknown metric = %v, %v; want none", none, err)
	}
}
