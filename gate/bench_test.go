package gate

import (
	"fmt"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/aggregate"
)

// benchRun is a run of n cases × trials with tags and two metrics; every
// seventh case fails its second trial.
func benchRun(n, trials int) *assay.Run {
	cases := make([]assay.CaseResult, 0, n*trials)
	langs := []string{"en", "de", "zh"}
	for i := 0; i < n; i++ {
		for t := 0; t < trials; t++ {
			pass := !(i%7 == 0 && t == 1)
			lat := float64(i%500 + t)
			cases = append(cases, assay.CaseResult{
				ID: fmt.Sprintf("c%05d", i), Trial: t, Pass: &pass, LatencyMs: &lat, Retrieved: 10,
				Tags:    map[string]string{"lang": langs[i%3]},
				Metrics: map[string]float64{"ndcg@10": float64(i%10) / 10, "recall@10": float64(i%4) / 4},
			})
		}
	}
	run := &assay.Run{RunID: "bench", Status: assay.StatusComplete, Cases: cases, Summary: aggregate.Summarize(cases, nil)}
	return run
}

var benchGates = []assay.Gate{
	{Expr: "pass_rate >= 0.8"}, {Expr: "nDCG@10 >= 0.4"}, {Expr: "p95_latency_ms <= 1000"},
	{Expr: "[lang=zh] recall@10 >= 0.3"}, {Expr: "delta(ndcg@10) >= -0.02"}, {Expr: "ratio(p95_latency_ms) <= 1.2"},
	{Expr: "no_new_failures"}, {Expr: "flaky_cases == 0"}, {Expr: "pass_all_rate >= 0.8"},
}

// BenchmarkEvaluate10k: nine gates of every form over 10,000 cases × 3
// trials against a baseline of the same size; the scoped gate summarises
// its segment from the cases (no segments recorded).
func BenchmarkEvaluate10k(b *testing.B) {
	run, base := benchRun(10000, 3), benchRun(10000, 3)
	b.ResetTimer()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		v, err := Evaluate(benchGates, run, base)
		if err != nil || len(v.Results) != len(benchGates) {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse("[lang=zh] delta(nDCG@10) >= -0.02", "suite.yaml:12"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTrials10k(b *testing.B) {
	run := benchRun(10000, 3)
	b.ResetTimer()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if st := aggregate.Trials(run.Cases); len(st.Flaky) == 0 {
			b.Fatal("no flaky cases")
		}
	}
}
