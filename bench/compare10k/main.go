// Command compare10k writes two synthetic runs for timing `assay compare`:
// base.json and cand.json with -n cases each (default 10,000), the default
// metric set, pass/fail, latency, and a share -changed of the cases whose
// values differ between the runs (1 = every case changed, the worst case
// for the statistics).
//
//	go run ./bench/compare10k -out bench/out -n 10000 -changed 0.3
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
)

func main() {
	out := flag.String("out", "bench/out", "directory for base.json and cand.json")
	n := flag.Int("n", 10000, "cases per run")
	changed := flag.Float64("changed", 0.3, "share of cases whose values change")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	r := rand.New(rand.NewPCG(42, 1))
	base := newRun("01937a5e-0000-7000-8000-00000000000b")
	cand := newRun("01937a5e-0000-7000-8000-00000000000c")
	for i := range *n {
		b := synthCase(r, i)
		c := b
		if r.Float64() < *changed {
			c = synthCase(r, i)
		}
		base.Cases = append(base.Cases, b)
		cand.Cases = append(cand.Cases, c)
	}
	for name, run := range map[string]*assay.Run{"base.json": base, "cand.json": cand} {
		b, err := store.EncodeRun(run)
		if err == nil {
			err = os.WriteFile(filepath.Join(*out, name), b, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

func newRun(id string) *assay.Run {
	return &assay.Run{Schema: assay.RunSchema, RunID: id, Status: assay.StatusComplete,
		Suite:     assay.SuiteRef{Name: "synthetic", Fingerprint: "sha256:synthetic"},
		Target:    assay.TargetInfo{Kind: "replay", Spec: "replay:synthetic.jsonl"},
		Options:   assay.RunOptions{K: 10, Trials: 1, Concurrency: 4, Metrics: assay.DefaultMetrics},
		StartedAt: time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC), FinishedAt: time.Date(2026, 11, 30, 8, 5, 0, 0, time.UTC)}
}

// synthCase draws metric values the way a ranking produces them: the rank
// of the first relevant document decides mrr and hit@5, and ndcg, recall
// and map follow it with noise.
func synthCase(r *rand.Rand, i int) assay.CaseResult {
	rank := 1 + r.IntN(12) // 11, 12: not retrieved in the top 10
	var mrr, hit5, rec5, rec10 float64
	if rank <= 10 {
		mrr = 1 / float64(rank)
		rec10 = 1
	}
	if rank <= 5 {
		hit5, rec5 = 1, 1
	}
	ndcg := mrr * (0.8 + 0.2*r.Float64())
	pass := rank <= 3
	lat := 20 + 200*r.Float64()
	return assay.CaseResult{
		ID: fmt.Sprintf("q%05d", i), Pass: &pass, LatencyMs: &lat, Retrieved: 10, Citations: 1,
		Checks:  []assay.Check{{Kind: "retrieves", Pass: pass}},
		Metrics: map[string]float64{"ndcg@10": ndcg, "recall@5": rec5, "recall@10": rec10, "mrr": mrr, "map": ndcg * 0.9, "hit@5": hit5},
	}
}
