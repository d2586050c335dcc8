package compare_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
)

// synthRun makes a run of n cases with the default metric set; changed is
// the share of cases whose values differ from seed 0's.
func synthRun(id string, n int, seed uint64, changed float64) *assay.Run {
	base := rand.New(rand.NewPCG(0, 0))
	r := rand.New(rand.NewPCG(seed, 7))
	run := &assay.Run{Schema: assay.RunSchema, RunID: id, Status: assay.StatusComplete,
		Suite:   assay.SuiteRef{Name: "synthetic", Fingerprint: "sha256:synthetic"},
		Options: assay.RunOptions{K: 10, Trials: 1, Metrics: assay.DefaultMetrics}}
	run.Cases = make([]assay.CaseResult, n)
	for i := range run.Cases {
		src := base
		vals := make([]float64, len(assay.DefaultMetrics)+2)
		for j := range vals {
			vals[j] = src.Float64()
		}
		if r.Float64() < changed {
			for j := range vals {
				vals[j] = r.Float64()
			}
		}
		m := make(map[string]float64, len(assay.DefaultMetrics))
		for j, name := range assay.DefaultMetrics {
			m[name] = vals[j]
		}
		pass := vals[len(vals)-2] < 0.8
		lat := 10 + 100*vals[len(vals)-1]
		run.Cases[i] = assay.CaseResult{ID: fmt.Sprintf("q%05d", i), Pass: &pass, Metrics: m, LatencyMs: &lat, Retrieved: 10, Citations: 1}
	}
	return run
}

func benchmarkRuns(b *testing.B, n int, changed float64) {
	base := synthRun("base", n, 0, 0)
	cand := synthRun("cand", n, 1, changed)
	b.ResetTimer()
	for b.Loop() {
		compare.Runs(base, cand, compare.Options{})
	}
}

// BenchmarkRuns10k compares two 10,000-case runs (six metrics and the
// rates) where every case changed: the worst case for the samplers.
func BenchmarkRuns10kAllChanged(b *testing.B) { benchmarkRuns(b, 10000, 1) }

// BenchmarkRuns10kTenthChanged: a tenth of the cases changed, as after a
// typical code change.
func BenchmarkRuns10kTenthChanged(b *testing.B) { benchmarkRuns(b, 10000, 0.1) }

func BenchmarkRuns1k(b *testing.B) { benchmarkRuns(b, 1000, 1) }

// BenchmarkRuns100kAllChanged: ten times the cases of
// BenchmarkRuns10kAllChanged; its time is meant to grow about tenfold.
func BenchmarkRuns100kAllChanged(b *testing.B) { benchmarkRuns(b, 100000, 1) }
