package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/pyoracle"
)

func TestFisherUpperByHand(t *testing.T) {
	// 18 prior passes, then 3 candidate failures: 1/C(21,3).
	if got, want := fisherUpper(18, 3, 3, 3), 1.0/1330; math.Abs(got-want) > 1e-15 {
		t.Fatalf("fisherUpper(18,3,3,3) = %v, want %v", got, want)
	}
	// one prior pass, one candidate failure: 1/2, never significant
	if got := fisherUpper(1, 1, 1, 1); math.Abs(got-0.5) > 1e-15 {
		t.Fatalf("fisherUpper(1,1,1,1) = %v, want 0.5", got)
	}
	// no candidate failure: nothing to show
	if got := fisherUpper(6, 1, 2, 0); got != 1 {
		t.Fatalf("fisherUpper with no candidate failure = %v, want 1", got)
	}
	if got := fisherMin(6, 1, 1); math.Abs(got-1.0/7) > 1e-15 {
		t.Fatalf("fisherMin(6,1,1) = %v, want 1/7", got)
	}
}

// TestFisherAgainstScipy checks the per-case exact test against SciPy's
// one-sided Fisher exact test on generated tables.
func TestFisherAgainstScipy(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	type table struct{ Prior, Cand, PriorFails, CandFails int }
	var in []table
	for range 200 {
		prior, cand := 1+rng.IntN(30), 1+rng.IntN(6)
		in = append(in, table{prior, cand, rng.IntN(prior + 1), rng.IntN(cand + 1)})
	}
	const script = `
import sys, json
from scipy.stats import fisher_exact
d = json.load(sys.stdin)
out = []
for t in d:
    # rows: candidate, prior; columns: failed, passed
    table = [[t['CandFails'], t['Cand'] - t['CandFails']], [t['PriorFails'], t['Prior'] - t['PriorFails']]]
    out.append(float(fisher_exact(table, alternative='greater').pvalue))
print(json.dumps(out))
`
	var want []float64
	pyoracle.Run(t, script, in, &want)
	for i, c := range in {
		got := fisherUpper(c.Prior, c.Cand, c.PriorFails+c.CandFails, c.CandFails)
		if math.Abs(got-want[i]) > 1e-9 {
			t.Fatalf("fisherUpper(%+v) = %v, scipy %v", c, got, want[i])
		}
	}
}

// run builds a run of the given target kind whose case i passes in trial t
// when pass[i][t].
func flipRun(id, kind string, pass [][]bool) *assay.Run {
	r := &assay.Run{RunID: id, Status: assay.StatusComplete, Suite: assay.SuiteRef{Name: "s", Fingerprint: "sha256:s"},
		Target: assay.TargetInfo{Kind: kind, Fingerprint: "sha256:t"}, Options: assay.RunOptions{Trials: len(pass[0])}}
	for i, ts := range pass {
		for t, p := range ts {
			r.Cases = append(r.Cases, assay.CaseResult{ID: fmt.Sprintf("c%02d", i), Trial: t, Pass: &p})
		}
	}
	return r
}

func outcomes(n, trials int, f func(i, t int) bool) [][]bool {
	out := make([][]bool, n)
	for i := range out {
		out[i] = make([]bool, trials)
		for t := range trials {
			out[i][t] = f(i, t)
		}
	}
	return out
}

func TestAssessFlips(t *testing.T) {
	all := func(i, t int) bool { return true }
	c00fails := func(i, t int) bool { return i != 0 }
	t.Run("deterministic target: the flip is a new failure", func(t *testing.T) {
		b, c := flipRun("b", "builtin", outcomes(20, 1, all)), flipRun("c", "builtin", outcomes(20, 1, c00fails))
		rep := Runs(b, c, Options{})
		if rep.Verdict != Regressed || len(rep.FlipEvidence.Confirmed) != 1 || rep.FlipEvidence.Confirmed[0].ID != "c00" {
			t.Fatalf("verdict %s, evidence %+v", rep.Verdict, rep.FlipEvidence)
		}
	})
	t.Run("unknown noise: the flip is not confirmed", func(t *testing.T) {
		b, c := flipRun("b", "http", outcomes(20, 1, all)), flipRun("c", "http", outcomes(20, 1, c00fails))
		rep := Runs(b, c, Options{})
		if rep.Verdict != Inconclusive || len(rep.FlipEvidence.Unconfirmed) != 1 || len(rep.FlipEvidence.Confirmed) != 0 {
			t.Fatalf("verdict %s, evidence %+v", rep.Verdict, rep.FlipEvidence)
		}
	})
	t.Run("three trials without variation: deterministic", func(t *testing.T) {
		b, c := flipRun("b", "http", outcomes(20, 3, all)), flipRun("c", "http", outcomes(20, 3, c00fails))
		rep := Runs(b, c, Options{})
		if rep.Verdict != Regressed || !rep.FlipEvidence.Deterministic {
			t.Fatalf("verdict %s, evidence %+v", rep.Verdict, rep.FlipEvidence)
		}
	})
	t.Run("a flaky case's flip is listed as flaky", func(t *testing.T) {
		// c01 varies within the baseline's trials, so the system is not
		// deterministic; c05 passed its 3 baseline trials and fails all 3.
		bp := outcomes(20, 3, func(i, t int) bool { return !(i == 1 && t == 2) })
		cp := outcomes(20, 3, func(i, t int) bool { return i != 5 && !(i == 1 && t == 0) })
		rep := Runs(flipRun("b", "http", bp), flipRun("c", "http", cp), Options{})
		ev := rep.FlipEvidence
		if ev.Deterministic || len(ev.Confirmed) != 0 || len(ev.Unconfirmed) != 1 || ev.Unconfirmed[0].ID != "c05" {
			t.Fatalf("evidence %+v", ev)
		}
		// with 5 stable history runs c05's 18 prior passes against 3
		// failures confirm it (p = 1/1330), and c01 (mixed) is flaky
		var hist []*assay.Run
		for h := range 5 {
			hist = append(hist, flipRun(fmt.Sprintf("h%d", h), "http", outcomes(20, 3, all)))
		}
		rep = Runs(flipRun("b", "http", bp), flipRun("c", "http", cp), Options{History: hist})
		ev = rep.FlipEvidence
		if ev.HistoryRuns != 5 || len(ev.Confirmed) != 1 || ev.Confirmed[0].ID != "c05" || rep.Verdict != Regressed {
			t.Fatalf("verdict %s, evidence %+v", rep.Verdict, ev)
		}
		if p := *ev.Confirmed[0].P; math.Abs(p-1.0/1330) > 1e-12 {
			t.Fatalf("c05's p = %v, want 1/1330", p)
		}
	})
	t.Run("history of another target is not used", func(t *testing.T) {
		h := flipRun("h", "http", outcomes(20, 1, all))
		h.Target.Fingerprint = "sha256:other"
		rep := Runs(flipRun("b", "http", outcomes(20, 1, all)), flipRun("c", "http", outcomes(20, 1, c00fails)), Options{History: []*assay.Run{h, h}})
		if rep.FlipEvidence.HistoryRuns != 0 {
			t.Fatalf("history runs = %d, want 0", rep.FlipEvidence.HistoryRuns)
		}
	})
}

// TestFamilyAdjustedAgainstStatsmodels checks that the adjusted p-values a
// report shows are statsmodels' Holm adjustment of its family's raw p.
func TestFamilyAdjustedAgainstStatsmodels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var fams [][]float64
	var got [][]float64
	tested := 0
	for k := range 8 {
		n := 30
		bp := outcomes(n, 3, func(i, t int) bool { return rng.Float64() < 0.9 })
		cp := outcomes(n, 3, func(i, t int) bool { return rng.Float64() < 0.9-0.1*float64(k%3) })
		b, c := flipRun("b", "http", bp), flipRun("c", "http", cp)
		for i := range b.Cases {
			b.Cases[i].Metrics = map[string]float64{"ndcg@10": rng.Float64()}
			c.Cases[i].Metrics = map[string]float64{"ndcg@10": rng.Float64() - 0.05*float64(k%4)}
		}
		var hist []*assay.Run
		for h := range 5 {
			hist = append(hist, flipRun(fmt.Sprintf("h%d", h), "http", outcomes(n, 3, func(i, t int) bool { return rng.Float64() < 0.97 })))
		}
		rep := Runs(b, c, Options{History: hist, Samples: 2000})
		var raw, adj []float64
		for _, m := range rep.Family.Members {
			raw, adj = append(raw, m.P), append(adj, m.PAdjusted)
		}
		byName := map[string]float64{}
		for _, m := range rep.Family.Members {
			byName[m.Name] = m.PAdjusted
		}
		for _, m := range rep.Metrics {
			if m.Gated && *m.PAdjusted != byName[m.Name] {
				t.Fatalf("%s: adjusted p %v, family %v", m.Name, *m.PAdjusted, byName[m.Name])
			}
		}
		if rep.FlipEvidence.PAdjusted != byName["flips"] {
			t.Fatalf("flips: adjusted p %v, family %v", rep.FlipEvidence.PAdjusted, byName["flips"])
		}
		tested += rep.FlipEvidence.CasesTested
		fams, got = append(fams, raw), append(got, adj)
	}
	const script = `
import sys, json
from statsmodels.stats.multitest import multipletests
print(json.dumps([list(multipletests(p, method='holm')[1]) for p in json.load(sys.stdin)]))
`
	if tested == 0 {
		t.Fatal("no case joined a family: the per-case tests went unchecked")
	}
	var want [][]float64
	pyoracle.Run(t, script, fams, &want)
	for i := range fams {
		for j := range fams[i] {
			if math.Abs(want[i][j]-got[i][j]) > 1e-12 {
				t.Fatalf("family %d member %d: adjusted %v, statsmodels %v (raw %v)", i, j, got[i][j], want[i][j], fams[i])
			}
		}
	}
}
