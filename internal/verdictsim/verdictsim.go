// Package verdictsim simulates runs of a system under test and measures
// how often compare's verdict and the no_new_failures gate say what they
// should (docs/metrics.md#how-the-verdict-is-checked): P1, no false alarm
// in pairs of runs of one stochastic system; P2, real regressions found;
// P3, a deterministic system's single flip is a regression every time; P4,
// same only when shown, inconclusive otherwise with the reason and the
// cases needed. Every stream is a PCG seeded from Config.Seed, so the
// figures are reproducible. bench/verdictsim prints the full figures;
// compare's tests run a small version.
package verdictsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/gate"
)

// System is a simulated system under test: per case, the probability
// that it passes and the mean of its IR metrics, with per-trial noise.
type System struct {
	Kind    string // target kind recorded in the runs ("http", "builtin")
	Pass    []float64
	Quality []float64
	Noise   float64 // standard deviation of a trial's metric around Quality
}

// Stochastic draws a system of n cases whose pass probabilities are
// uniform on [0.6, 1.0] and whose rankings are noisy.
func Stochastic(rng *rand.Rand, n int) System {
	s := System{Kind: "http", Pass: make([]float64, n), Quality: make([]float64, n), Noise: 0.15}
	for i := range n {
		s.Pass[i] = 0.6 + 0.4*rng.Float64()
		s.Quality[i] = 0.3 + 0.6*rng.Float64()
	}
	return s
}

// Deterministic draws a system of n cases that each always pass (80%) or
// always fail, with fixed metrics.
func Deterministic(rng *rand.Rand, n int, kind string) System {
	s := System{Kind: kind, Pass: make([]float64, n), Quality: make([]float64, n)}
	for i := range n {
		if rng.Float64() < 0.8 {
			s.Pass[i] = 1
		}
		s.Quality[i] = 0.3 + 0.6*rng.Float64()
	}
	return s
}

// Worse returns s with every pass probability dp lower and every metric
// mean dq lower (floored at 0).
func (s System) Worse(dp, dq float64) System {
	w := s
	w.Pass = make([]float64, len(s.Pass))
	w.Quality = make([]float64, len(s.Quality))
	for i := range s.Pass {
		w.Pass[i] = math.Max(0, s.Pass[i]-dp)
		w.Quality[i] = math.Max(0, s.Quality[i]-dq)
	}
	return w
}

// Metrics are the IR metrics a simulated run records.
var Metrics = []string{"ndcg@10", "recall@10"}

// Run simulates one run of s with trials trials per case.
func (s System) Run(rng *rand.Rand, id string, trials int) *assay.Run {
	r := &assay.Run{
		Schema: assay.RunSchema, RunID: id, Status: assay.StatusComplete,
		Suite:   assay.SuiteRef{Name: "sim", Fingerprint: "sha256:sim"},
		Target:  assay.TargetInfo{Kind: s.Kind, Fingerprint: "sha256:target"},
		Options: assay.RunOptions{Trials: trials, Metrics: Metrics},
	}
	for i := range s.Pass {
		for t := range trials {
			pass := rng.Float64() < s.Pass[i]
			m := map[string]float64{}
			for j, name := range Metrics {
				v := s.Quality[i] + float64(j)*0.05 + s.Noise*rng.NormFloat64()
				m[name] = math.Min(1, math.Max(0, v))
			}
			r.Cases = append(r.Cases, assay.CaseResult{ID: fmt.Sprintf("q%03d", i), Trial: t, Pass: &pass, Metrics: m, Retrieved: 10})
		}
	}
	return r
}

// Config is one simulated setting.
type Config struct {
	Name    string
	Pairs   int    // pairs of runs compared
	Seed    uint64 // the PCG seed of the setting
	Cases   int
	Trials  int
	History int // earlier runs of the baseline's system in the store
	// Samples is compare's number of random sign assignments (0: its
	// default).
	Samples int
}

// Tally counts the outcomes over the pairs of one setting.
type Tally struct {
	Config   Config
	Verdicts map[compare.Verdict]int
	// GateFailed counts no_new_failures failures, StrictFailed
	// no_new_failures(strict) failures.
	GateFailed, StrictFailed int
	// Named counts the pairs whose flipped case was named a new failure
	// (P3).
	Named int
	// Broken lists the pairs that break a property checked per pair (P4:
	// same without every interval inside its margin, inconclusive without
	// a reason or the cases needed).
	Broken []string
}

// Rate is the share of pairs with verdict v.
func (t Tally) Rate(v compare.Verdict) float64 {
	return float64(t.Verdicts[v]) / float64(t.Config.Pairs)
}

func (t *Tally) add(rep compare.Report, gateFail, strictFail bool, pair int) {
	t.Verdicts[rep.Verdict]++
	if gateFail {
		t.GateFailed++
	}
	if strictFail {
		t.StrictFailed++
	}
	switch rep.Verdict {
	case compare.Same:
		for _, m := range rep.Metrics {
			if m.Gated && (m.Margin == nil || m.CI95[0] < -*m.Margin || m.CI95[1] > *m.Margin) {
				t.Broken = append(t.Broken, fmt.Sprintf("pair %d: same with %s's CI [%g, %g] outside its margin", pair, m.Name, m.CI95[0], m.CI95[1]))
			}
		}
	case compare.Inconclusive:
		if len(rep.Reasons) == 0 || !strings.Contains(strings.Join(rep.Reasons, " "), "would decide it") && !strings.Contains(strings.Join(rep.Reasons, " "), "--trials") {
			t.Broken = append(t.Broken, fmt.Sprintf("pair %d: inconclusive without the cases or trials that would decide it: %q", pair, rep.Reasons))
		}
	}
}

var gates = func() []gate.Expr {
	var out []gate.Expr
	for _, g := range []string{"no_new_failures", "no_new_failures(strict)"} {
		e, err := gate.Parse(g, "verdictsim")
		if err != nil {
			panic(err)
		}
		out = append(out, e)
	}
	return out
}()

func (c Config) opts(hist []*assay.Run) compare.Options {
	return compare.Options{Samples: c.Samples, History: hist}
}

func (c Config) compare(base, cand *assay.Run, hist []*assay.Run) (compare.Report, bool, bool) {
	rep := compare.Runs(base, cand, c.opts(hist))
	v := gate.EvaluateHistory(gates, cand, base, hist)
	return rep, !v.Results[0].Pass, !v.Results[1].Pass
}

// Pair simulates the runs of one pair: hist earlier runs and the baseline
// of sys, and the candidate of cand.
func (c Config) pair(rng *rand.Rand, sys, cand System, k int) (base, cnd *assay.Run, hist []*assay.Run) {
	for h := range c.History {
		hist = append(hist, sys.Run(rng, fmt.Sprintf("h%d-%d", k, h), c.Trials))
	}
	return sys.Run(rng, fmt.Sprintf("b%d", k), c.Trials), cand.Run(rng, fmt.Sprintf("c%d", k), c.Trials), hist
}

// AA compares pairs of runs of one stochastic system (P1, P4): a new
// system per pair.
func AA(c Config) Tally {
	t := Tally{Config: c, Verdicts: map[compare.Verdict]int{}}
	rng := rand.New(rand.NewPCG(c.Seed, 1))
	for k := range c.Pairs {
		sys := Stochastic(rng, c.Cases)
		base, cand, hist := c.pair(rng, sys, sys, k)
		rep, g, s := c.compare(base, cand, hist)
		t.add(rep, g, s, k)
	}
	return t
}

// Shift compares a stochastic system with one whose every case passes dp
// less often and ranks dq worse (P2).
func Shift(c Config, dp, dq float64) Tally {
	t := Tally{Config: c, Verdicts: map[compare.Verdict]int{}}
	rng := rand.New(rand.NewPCG(c.Seed, 2))
	for k := range c.Pairs {
		sys := Stochastic(rng, c.Cases)
		base, cand, hist := c.pair(rng, sys, sys.Worse(dp, dq), k)
		rep, g, s := c.compare(base, cand, hist)
		t.add(rep, g, s, k)
	}
	return t
}

// OneFlip compares runs of a deterministic system of the given target
// kind whose candidate fails one case that always passed (P3); with
// flip false, the candidate is the same system (P4: same).
func OneFlip(c Config, kind string, flip bool) Tally {
	t := Tally{Config: c, Verdicts: map[compare.Verdict]int{}}
	rng := rand.New(rand.NewPCG(c.Seed, 3))
	for k := range c.Pairs {
		sys := Deterministic(rng, c.Cases, kind)
		cand := sys
		id := ""
		if flip {
			cand = sys.Worse(0, 0)
			var passing []int
			for i, p := range sys.Pass {
				if p == 1 {
					passing = append(passing, i)
				}
			}
			i := passing[rng.IntN(len(passing))]
			cand.Pass[i] = 0
			id = fmt.Sprintf("q%03d", i)
		}
		base, cnd, hist := c.pair(rng, sys, cand, k)
		rep, g, s := c.compare(base, cnd, hist)
		t.add(rep, g, s, k)
		if flip && rep.FlipEvidence != nil && slices.ContainsFunc(rep.FlipEvidence.Confirmed, func(ce compare.CaseEvidence) bool { return ce.ID == id }) {
			t.Named++
		}
	}
	return t
}
