package agreement

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/pyoracle"
)

var rubric = []assay.JudgeCriterion{{Name: "relevance", Min: 0, Max: 1}, {Name: "groundedness", Min: 0, Max: 1}}

func judged(id string, trial int, scores map[string]float64) *assay.CaseResult {
	jr := &assay.JudgeResult{Model: "stand-in"}
	for _, c := range rubric {
		if v, ok := scores[c.Name]; ok {
			jr.Scores = append(jr.Scores, assay.JudgeScore{Criterion: c.Name, Score: v})
		}
	}
	return &assay.CaseResult{ID: id, Trial: trial, Judge: jr}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// standIn is a judge with a known error rate: of n cases, people pass
// 30 %; the judge flips a verdict with probability flip; on groundedness
// people give a score in quarters and the judge that score plus noise.
// The first labelled cases are labelled, by one person.
type standIn struct {
	scores     *Scores
	labels     *Labels
	allRel     []float64 // the judge's relevance on every result
	jRel, hRel []float64 // labelled cases
	jGr, hGr   []float64
}

func newStandIn(seed uint64, n, labelled int, flip float64) *standIn {
	rng := rand.New(rand.NewPCG(seed, 7))
	s := &standIn{scores: NewScores(nil), labels: &Labels{File: "labels.jsonl"}}
	line := 0
	for i := range n {
		id := fmt.Sprintf("q%04d", i)
		human := rng.Float64() < 0.3
		j := human != (rng.Float64() < flip)
		hg := float64(rng.IntN(5)) / 4
		jg := math.Min(1, math.Max(0, hg+0.3*rng.NormFloat64()))
		s.scores.Add(judged(id, 0, map[string]float64{"relevance": b2f(j), "groundedness": jg}))
		s.allRel = append(s.allRel, b2f(j))
		if i >= labelled {
			continue
		}
		s.jRel, s.hRel = append(s.jRel, b2f(j)), append(s.hRel, b2f(human))
		s.jGr, s.hGr = append(s.jGr, jg), append(s.hGr, hg)
		h, g := human, hg
		line++
		s.labels.Rows = append(s.labels.Rows, Label{Case: id, Criterion: "relevance", Label: &h, Labeller: "ann", Line: line})
		line++
		s.labels.Rows = append(s.labels.Rows, Label{Case: id, Criterion: "groundedness", Score: &g, Labeller: "ann", Line: line})
	}
	return s
}

// TestStandInJudgeMatchesTheOracle: a judge that errs on 15 % of 240
// labelled cases (of 1000 judged) gets κ, AC1, accuracy, TPR, TNR, the
// confusion matrix, Spearman's ρ and the PPI estimate and interval that
// statsmodels, SciPy and Python's statistics module compute from the same
// labels.
func TestStandInJudgeMatchesTheOracle(t *testing.T) {
	t.Parallel()
	s := newStandIn(1, 1000, 240, 0.15)
	rep, err := Compute(rubric, s.scores, s.labels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rel, gr := rep.Criterion("relevance"), rep.Criterion("groundedness")
	if rel == nil || gr == nil || rel.N != 240 || gr.N != 240 {
		t.Fatalf("criteria: %+v", rep.Criteria)
	}
	var allGr []float64
	for i := range 1000 {
		v, _ := s.scores.Case("groundedness", fmt.Sprintf("q%04d", i))
		allGr = append(allGr, v)
	}
	in := map[string]any{"j": s.jRel, "h": s.hRel, "all": s.allRel, "jg": s.jGr, "hg": s.hGr, "allg": allGr}
	const script = `
import json, sys, statistics, math
from statsmodels.stats.inter_rater import cohens_kappa
from scipy.stats import spearmanr
d = json.load(sys.stdin)
j, h = [x >= 0.5 for x in d["j"]], [x >= 0.5 for x in d["h"]]
n = len(j)
tp = sum(a and b for a, b in zip(j, h)); tn = sum((not a) and (not b) for a, b in zip(j, h))
fp = sum(a and not b for a, b in zip(j, h)); fn = sum(b and not a for a, b in zip(j, h))
table = [[tp, fp], [fn, tn]]
kappa = cohens_kappa(table).kappa
po = (tp + tn) / n
pi = (sum(j) / n + sum(h) / n) / 2
pe = 2 * pi * (1 - pi)
ac1 = (po - pe) / (1 - pe)
def ppi(allf, f, y):
    diff = [a - b for a, b in zip(y, f)]
    est = statistics.fmean(allf) + statistics.fmean(diff)
    se = math.sqrt(statistics.variance(allf) / len(allf) + statistics.variance(diff) / len(diff))
    return [statistics.fmean(allf), est, est - 1.959963984540054 * se, est + 1.959963984540054 * se]
print(json.dumps({"kappa": kappa, "ac1": ac1, "acc": po, "tpr": tp / (tp + fn), "tnr": tn / (tn + fp),
    "cm": [tp, fp, fn, tn], "rho": spearmanr(d["jg"], d["hg"]).correlation,
    "ppi": ppi(d["all"], d["j"], d["h"]), "ppig": ppi(d["allg"], d["jg"], d["hg"])}))
`
	var want struct {
		Kappa, AC1, Acc, TPR, TNR, Rho float64
		CM                             [4]int
		PPI, PPIG                      [4]float64
	}
	pyoracle.Run(t, script, in, &want)
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v, oracle %v", what, got, want)
		}
	}
	near("kappa", rel.Kappa.Value, want.Kappa)
	near("AC1", rel.AC1.Value, want.AC1)
	near("accuracy", *rel.Accuracy, want.Acc)
	near("TPR", *rel.TPR, want.TPR)
	near("TNR", *rel.TNR, want.TNR)
	if cm := rel.Confusion; [4]int{cm.TP, cm.FP, cm.FN, cm.TN} != want.CM {
		t.Errorf("confusion %+v, oracle %v", cm, want.CM)
	}
	near("spearman", gr.Spearman.Value, want.Rho)
	for _, tc := range []struct {
		name string
		p    *PPI
		want [4]float64
	}{{"relevance", rel.PPI, want.PPI}, {"groundedness", gr.PPI, want.PPIG}} {
		near(tc.name+" judge mean", tc.p.JudgeMean, tc.want[0])
		near(tc.name+" PPI", tc.p.Estimate, tc.want[1])
		near(tc.name+" PPI lo", *tc.p.Lo, tc.want[2])
		near(tc.name+" PPI hi", *tc.p.Hi, tc.want[3])
	}
	// The stand-in errs on 15 %: the measured accuracy is near 0.85.
	if *rel.Accuracy < 0.78 || *rel.Accuracy > 0.92 {
		t.Errorf("accuracy %v of a judge that errs on 15 %%", *rel.Accuracy)
	}
	if !(*rel.Kappa.Lo <= rel.Kappa.Value && rel.Kappa.Value <= *rel.Kappa.Hi) {
		t.Errorf("kappa interval %v does not hold its value", rel.Kappa)
	}
}

// TestPPICoversTheTrueMean: over 200 draws of which 200 of 2000 judged
// cases people label, the PPI interval holds the people's true mean over
// all the cases at least 90 % of the time, while the judge's raw mean,
// biased by a judge that passes too much, mostly misses it.
func TestPPICoversTheTrueMean(t *testing.T) {
	t.Parallel()
	const draws, n, labelled = 200, 2000, 200
	covered, rawNear := 0, 0
	for d := range draws {
		rng := rand.New(rand.NewPCG(uint64(d)+1, 11))
		scores, labels := NewScores(nil), &Labels{File: "sim"}
		var truth float64
		perm := rng.Perm(n)
		pick := map[int]bool{}
		for _, i := range perm[:labelled] {
			pick[i] = true
		}
		for i := range n {
			human := rng.Float64() < 0.4
			// False passes on 20 % of the fails, false fails on 5 % of the passes.
			j := human
			if human && rng.Float64() < 0.05 || !human && rng.Float64() < 0.2 {
				j = !j
			}
			truth += b2f(human)
			id := fmt.Sprintf("c%d", i)
			scores.Add(judged(id, 0, map[string]float64{"relevance": b2f(j)}))
			if pick[i] {
				h := human
				labels.Rows = append(labels.Rows, Label{Case: id, Criterion: "relevance", Label: &h})
			}
		}
		truth /= n
		rep, err := Compute(rubric[:1], scores, labels, Options{Resamples: 1})
		if err != nil {
			t.Fatal(err)
		}
		p := rep.Criteria[0].PPI
		if *p.Lo <= truth && truth <= *p.Hi {
			covered++
		}
		if math.Abs(p.JudgeMean-truth) < 0.02 {
			rawNear++
		}
	}
	if covered < draws*9/10 {
		t.Errorf("the PPI interval held the true mean in %d of %d draws, want >= 90 %%", covered, draws)
	}
	if rawNear > draws/10 {
		t.Errorf("the raw judge mean was within 0.02 of the truth in %d of %d draws: the simulated judge is not biased, the test shows nothing", rawNear, draws)
	}
	t.Logf("PPI coverage %d/%d", covered, draws)
}

// TestBootstrapIsDeterministic: the same labels give the same intervals.
func TestBootstrapIsDeterministic(t *testing.T) {
	t.Parallel()
	a, _ := Compute(rubric, newStandIn(3, 300, 100, 0.2).scores, newStandIn(3, 300, 100, 0.2).labels, Options{})
	b, _ := Compute(rubric, newStandIn(3, 300, 100, 0.2).scores, newStandIn(3, 300, 100, 0.2).labels, Options{})
	var sa, sb strings.Builder
	a.WriteJSON(&sa)
	b.WriteJSON(&sb)
	if sa.String() != sb.String() {
		t.Error("two computations of the same labels differ")
	}
}

// TestKappaAndAC1OnSkewedLabels: on labels where nearly every case
// passes, κ collapses while AC1 stays near the raw agreement.
func TestKappaAndAC1OnSkewedLabels(t *testing.T) {
	t.Parallel()
	m := Confusion{TP: 90, FP: 5, FN: 4, TN: 1}
	k, _ := Kappa(m)
	a, _ := AC1(m)
	if !(k < 0.2 && a > 0.85) {
		t.Errorf("kappa %v, AC1 %v on 91 %% raw agreement over skewed labels", k, a)
	}
	if _, ok := Kappa(Confusion{TP: 10}); ok {
		t.Error("kappa defined when both sides pass every case")
	}
}

// TestLabellerPairs: two people who labelled the same cases get their own
// agreement.
func TestLabellerPairs(t *testing.T) {
	t.Parallel()
	scores, labels := NewScores(nil), &Labels{File: "l"}
	for i := range 40 {
		id := fmt.Sprintf("c%d", i)
		scores.Add(judged(id, 0, map[string]float64{"relevance": b2f(i%2 == 0)}))
		a, b := i%2 == 0, i%2 == 0 != (i%10 == 0)
		labels.Rows = append(labels.Rows, Label{Case: id, Criterion: "relevance", Label: &a, Labeller: "ann"}, Label{Case: id, Criterion: "relevance", Label: &b, Labeller: "bob"})
	}
	rep, err := Compute(rubric, scores, labels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ps := rep.Criteria[0].Pairs
	if len(ps) != 1 || ps[0].A != "ann" || ps[0].B != "bob" || ps[0].N != 40 || *ps[0].Accuracy != 0.9 {
		t.Fatalf("pairs %+v", ps)
	}
}

// TestValidate: min_kappa holds above the floor and says why otherwise.
func TestValidate(t *testing.T) {
	t.Parallel()
	good, _ := Compute(rubric, newStandIn(5, 200, 100, 0.02).scores, newStandIn(5, 200, 100, 0.02).labels, Options{})
	bad, _ := Compute(rubric, newStandIn(5, 200, 100, 0.45).scores, newStandIn(5, 200, 100, 0.45).labels, Options{})
	few, _ := Compute(rubric, newStandIn(5, 200, 10, 0.02).scores, newStandIn(5, 200, 10, 0.02).labels, Options{})
	for _, tc := range []struct {
		r    *Report
		crit string
		want string
	}{
		{good, "relevance", ""},
		{bad, "relevance", "< min_kappa 0.6 on 100 labels"},
		{few, "relevance", "10 labelled cases it scored, fewer than the 30"},
		{good, "completeness", "has no labels for it"},
		{nil, "relevance", "needs labels"},
	} {
		got := tc.r.Validate(tc.crit, 0.6)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("Validate(%s) = %q, want %q", tc.crit, got, tc.want)
		}
	}
}

// TestResampleStatisticsAreThoseOfTheExpandedSample: the statistics of a
// resample given as counts are those of the cases it draws, copies and
// ties included (the bootstrap's shortcut changes no number).
func TestResampleStatisticsAreThoseOfTheExpandedSample(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 4))
	for trial := range 50 {
		n := 2 + rng.IntN(30)
		ps := make([]pairT, n)
		for i := range ps {
			f, h := float64(rng.IntN(5))/4, float64(rng.IntN(3))/2
			ps[i] = pairT{id: fmt.Sprint(i), judge: f, human: h, j: f >= 0.5, h: h >= 0.5}
		}
		count := make([]int, n)
		var xs, ys []float64
		var expanded []pairT
		for range n {
			i := rng.IntN(n)
			count[i]++
			xs, ys = append(xs, ps[i].judge), append(ys, ps[i].human)
			expanded = append(expanded, ps[i])
		}
		k, a, r, kok, aok, rok := newWeighted(ps).stats(count, true)
		wk, wkok := Kappa(confusion(expanded))
		wa, waok := AC1(confusion(expanded))
		wr, wrok := Spearman(xs, ys)
		if kok != wkok || aok != waok || rok != wrok || math.Abs(k-wk) > 1e-12 || math.Abs(a-wa) > 1e-12 || math.Abs(r-wr) > 1e-12 {
			t.Fatalf("trial %d: weighted (%v %v %v) (%v %v %v), expanded (%v %v %v) (%v %v %v)", trial, k, a, r, kok, aok, rok, wk, wa, wr, wkok, waok, wrok)
		}
	}
}
