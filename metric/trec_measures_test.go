package metric

import (
	"math"
	"testing"
)

// exTopic is the running example of metric_test.go as trec_eval labels it:
// d4 has no judgment (-1); R = 4, RR = 3, n = 5, one judged non-relevant.
func exTopic(thr int) *Topic {
	t := &Topic{Labels: []int{0, 1, 2, -1, 1}, Judgments: []int{0, 1, 2, 1, 3}, Threshold: thr}
	t.Prepare()
	return t
}

func TestTrecMeasures(t *testing.T) {
	t.Parallel()
	const eps = 1e-5
	tp := exTopic(1)
	var g GainTable
	tp.Gains(&g, nil)
	infAP := (0.5 + 0.5*(1.0/1)*(eps/(1+2*eps)) +
		1.0/3 + (2.0/3)*(2.0/2)*((1+eps)/(2+2*eps)) +
		1.0/5 + (4.0/5)*(3.0/4)*((2+eps)/(3+2*eps))) / 4
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"bpref: a judged non-relevant doc above every relevant one", tp.Bpref(), 0},
		{"iprec at 0 is the best precision anywhere", tp.IPrecAtRecall(0), 2.0 / 3},
		{"iprec at 0.5 starts at the 2nd relevant (rank 3)", tp.IPrecAtRecall(0.5), 2.0 / 3},
		{"iprec at 0.7 rounds 2.8 to the 3rd relevant", tp.IPrecAtRecall(0.7), 3.0 / 5},
		{"iprec at 1.0 needs 4 relevant retrieved", tp.IPrecAtRecall(1), 0},
		{"11pt_avg over the default points", tp.ElevenPtAvg([]float64{0, .1, .2, .3, .4, .5, .6, .7, .8, .9, 1}), (7*(2.0/3) + 2*(3.0/5)) / 11},
		{"Rprec_mult 1.0 cuts at trunc(R+0.9)", tp.RPrecMult(1), 2.0 / 4},
		{"Rprec_mult 0.2 cuts at 1", tp.RPrecMult(0.2), 0},
		{"utility 1,-1,0,0", tp.Utility(1, -1, 0, 0, 0), 1},
		{"set_P", tp.SetP(), 3.0 / 5},
		{"set_recall", tp.SetRecall(), 3.0 / 4},
		{"set_relative_P", tp.SetRelativeP(), 3.0 / 4},
		{"set_map", tp.SetMap(), 9.0 / 20},
		{"set_F beta^2 = 1", tp.SetF(1), 2 * 0.6 * 0.75 / (0.6 + 0.75)},
		{"unj at 5", tp.Unj(5), 1.0 / 5},
		{"unj at 2", tp.Unj(2), 0},
		{"rbp_resid p=0.5", tp.RBPResid(0.5), math.Pow(0.5, 5) + 0.5*math.Pow(0.5, 3)},
		{"rbp p=0.5 gains scaled by the top grade 3", tp.RBP(0.5, &g), 0.5 * (0.5/3 + 0.25*2/3 + 0.0625/3)},
		{"infAP", tp.InfAP(), infAP},
		{"binG", tp.BinG(), (1/log2(3) + 1/log2(3) + 1/log2(4)) / 4},
		{"ndcg (gain table) equals ndcg over the whole ranking", tp.NDCG(&g),
			(1/log2(3) + 2/log2(4) + 1/log2(6)) / (3 + 2/log2(3) + 1/log2(4) + 1/log2(5))},
		{"map_cut at 3 still divides by R", tp.APCut(3), (1.0/2 + 2.0/3) / 4},
		{"relative_P at 2 divides by min(k,R)", tp.RelativeP(2), 1.0 / 2},
		{"counts: num_nonrel_judged_ret", float64(tp.NumNonrelJudgedRet()), 1},
	}
	for _, tt := range tests {
		if math.Abs(tt.got-tt.want) > 1e-12 {
			t.Errorf("%s = %.17g, want %.17g", tt.name, tt.got, tt.want)
		}
	}
	if s := tp.Relstring(10); s != "012-1" {
		t.Errorf("relstring = %q, want 012-1", s)
	}
	if s := tp.Relstring(2); s != "01" {
		t.Errorf("relstring(2) = %q, want 01", s)
	}
}

func TestTrecMeasuresDegenerate(t *testing.T) {
	t.Parallel()
	// No ranking at all (trec_eval -J dropping everything): iprec is 0/0.
	empty := &Topic{Judgments: []int{1, 0}, Threshold: 1}
	empty.Prepare()
	if v := empty.IPrecAtRecall(0); !math.IsNaN(v) {
		t.Errorf("iprec at 0 on an empty ranking = %v, want NaN", v)
	}
	if v := empty.IPrecAtRecall(1); v != 0 {
		t.Errorf("iprec at 1 on an empty ranking = %v, want 0", v)
	}
	// Judgments all 0 with threshold 0 make R > 0 but no positive gain:
	// Rndcg records nothing and is 0/0.
	zeros := &Topic{Labels: []int{0}, Judgments: []int{0, 0}, Threshold: 0}
	zeros.Prepare()
	var g GainTable
	zeros.Gains(&g, nil)
	if v := zeros.RNDCG(&g); !math.IsNaN(v) {
		t.Errorf("Rndcg = %v, want NaN", v)
	}
	// No relevant judgment: R = 0 measures are 0.
	norel := &Topic{Labels: []int{0, -1}, Judgments: []int{0}, Threshold: 1}
	norel.Prepare()
	norel.Gains(&g, nil)
	for name, v := range map[string]float64{"bpref": norel.Bpref(), "infAP": norel.InfAP(), "Rndcg": norel.RNDCG(&g),
		"set_F": norel.SetF(1), "binG": norel.BinG(), "ndcg": norel.NDCG(&g), "G": norel.G(&g)} {
		if v != 0 {
			t.Errorf("%s with R = 0 is %v, want 0", name, v)
		}
	}
}

func TestCustomGains(t *testing.T) {
	t.Parallel()
	tp := exTopic(1)
	var g GainTable
	// Level 1 gains 3, level 2 keeps 2, level 3 keeps 3: ideal 3,3,3,2.
	tp.Gains(&g, []LevelGain{{Level: 1, Gain: 3}})
	want := (3/log2(3) + 2/log2(4) + 3/log2(6)) /
		(3 + 3/log2(3) + 3/log2(4) + 2/log2(5))
	if v := tp.NDCG(&g); math.Abs(v-want) > 1e-12 {
		t.Errorf("ndcg with 1=3 = %v, want %v", v, want)
	}
}

func TestHugeGrade(t *testing.T) {
	t.Parallel()
	tp := &Topic{Labels: []int{1 << 40, 1}, Judgments: []int{1 << 40, 1, 0}, Threshold: 1}
	tp.Prepare()
	var g GainTable
	tp.Gains(&g, nil)
	want := (float64(1<<40) + 1/log2(3)) / (float64(1<<40) + 1/log2(3))
	if v := tp.NDCG(&g); v != want {
		t.Errorf("ndcg = %v, want %v", v, want)
	}
	if s := tp.Relstring(5); s != ">1" {
		t.Errorf("relstring = %q", s)
	}
}

// TestIdealPassesEmptyLevels: with gains 1=0.5, 2=1.5 on a topic without a
// grade-0 judgment, trec_eval's truncating sort leaves the table as
// [1:0.5, 0:0 (empty), 2:1.5]; its ideal walk passes over the empty level 0
// and takes level 1 too: ideal 1.5, 0.5. The ranking 2, 1 is ideal: 1.0000.
func TestIdealPassesEmptyLevels(t *testing.T) {
	t.Parallel()
	tp := &Topic{Labels: []int{2, 1}, Judgments: []int{1, 2}, Threshold: 1}
	tp.Prepare()
	var g GainTable
	tp.Gains(&g, []LevelGain{{1, 0.5}, {2, 1.5}})
	idcg := 1.5 + 0.5/log2(3)
	if v := tp.IdealDCG(&g); v != idcg {
		t.Errorf("ideal_dcg = %v, want %v", v, idcg)
	}
	if v := tp.NDCG(&g); v != 1 {
		t.Errorf("ndcg = %v, want 1", v)
	}
	if v := tp.G(&g); math.Abs(v-(1.5/log2(2+1.5-1.5)+0.5/log2(2+2.5-2))/2) > 1e-15 {
		t.Errorf("G = %v", v)
	}
	// A non-empty level of gain 0 does end the walk: with a grade-0
	// judgment the table is [1:0.5, 0:0 (1 doc), 2:1.5], the ideal is 1.5.
	tp = &Topic{Labels: []int{2, 1}, Judgments: []int{1, 2, 0}, Threshold: 1}
	tp.Prepare()
	tp.Gains(&g, []LevelGain{{1, 0.5}, {2, 1.5}})
	if v := tp.IdealDCG(&g); v != 1.5 {
		t.Errorf("ideal_dcg with a grade-0 judgment = %v, want 1.5", v)
	}
}

// TestNDCGRelNegativeCorrection: two retrieved documents with positive gain
// and an ideal list of one (the walk stops at the non-empty gain-0 level):
// the correction (P − k)·DCG/IDCG is negative and is added.
func TestNDCGRelNegativeCorrection(t *testing.T) {
	t.Parallel()
	tp := &Topic{Labels: []int{2, 1}, Judgments: []int{1, 2, 0}, Threshold: 1}
	tp.Prepare()
	var g GainTable
	tp.Gains(&g, []LevelGain{{1, 0.5}})
	dcg2 := 2 + 0.5/log2(3)
	want := 1 + dcg2/2 - dcg2/2 // P = 1, k = 2
	if v := tp.NDCGRel(&g); v != want {
		t.Errorf("ndcg_rel = %v, want %v", v, want)
	}
}

// TestRBPLevelZeroGain: trec_eval's stock build starts rbp's bounds at 0, so
// with 0=0.5 the gains 0.5, 1, 2 are rescaled by (g − 0)/(2 − 0), not by
// the table's own lowest gain.
func TestRBPLevelZeroGain(t *testing.T) {
	t.Parallel()
	tp := &Topic{Labels: []int{0, 1, 2, -1}, Judgments: []int{0, 1, 2}, Threshold: 1}
	tp.Prepare()
	var g GainTable
	tp.Gains(&g, []LevelGain{{0, 0.5}})
	p := 0.9
	want := (1 - p) * (0.25 + 0.5*p + 1*p*p)
	if v := tp.RBP(p, &g); math.Abs(v-want) > 1e-15 {
		t.Errorf("rbp 0=0.5 = %v, want %v", v, want)
	}
	// Every gain negative: hi stays 0.
	tp.Gains(&g, []LevelGain{{0, -1}, {1, -2}, {2, -3}})
	want = (1 - p) * ((-1+3)/3.0 + (-2+3)/3.0*p + 0)
	if v := tp.RBP(p, &g); math.Abs(v-want) > 1e-15 {
		t.Errorf("rbp all negative = %v, want %v", v, want)
	}
}

// TestNegativeThreshold follows trec_eval's source under -l -1: R and RR
// count judgments >= 0 only, the per-rank tests count the unjudged rank
// (-1) too, and the backward walks (iprec_at_recall, Rprec_mult) start at
// RR. Ranks: -1, 1, -2, 0; judgments 1, 0, -1 (R = 2).
func TestNegativeThreshold(t *testing.T) {
	tp := &Topic{Labels: []int{-1, 1, -2, 0}, Judgments: []int{1, 0, -1}, Threshold: -1}
	tp.Prepare()
	zero := &Topic{Labels: []int{-1}, Judgments: []int{-1}, Threshold: -1} // R = 0
	zero.Prepare()
	tests := []struct {
		name      string
		got, want float64
	}{
		{"num_rel counts judgments >= 0", float64(tp.NumRel()), 2},
		{"num_rel_ret skips unjudged ranks", float64(tp.NumRelRet()), 2},
		{"num_nonrel_judged_ret", float64(tp.NumNonrelJudgedRet()), 0},
		{"map counts rank 1 (-1) relevant", tp.AP(), (1.0 + 1 + 3.0/4) / 2},
		{"P_2", tp.P(2), 1},
		{"recall_5 exceeds 1", tp.Recall(5), 3.0 / 2},
		{"recip_rank at the unjudged rank 1", tp.RecipRank(), 1},
		{"bpref is bpref under -l 0", tp.Bpref(), 1},
		{"iprec at 0.5: the walk counts 1 at rank 2", tp.IPrecAtRecall(0.5), 0.5},
		{"iprec at 0: the best count/rank before the walk stops", tp.IPrecAtRecall(0), 0.5},
		{"Rprec_mult at rank 1, above where the walk stopped", tp.RPrecMult(0.5), 0},
		{"Rprec_mult at rank 2", tp.RPrecMult(1), 0.5},
		{"binG", tp.BinG(), (1 + 1 + 1/log2(3)) / 2},
		{"map with R = 0 and a relevant rank", zero.AP(), math.Inf(1)},
		{"binG with R = 0 and a relevant rank", zero.BinG(), math.Inf(1)},
		{"map_cut with R = 0 is 0", zero.APCut(5), 0},
		{"recall with R = 0 is 0", zero.Recall(5), 0},
		{"P_2 with R = 0", zero.P(2), 0.5},
	}
	for _, tt := range tests {
		if tt.got != tt.want && math.Abs(tt.got-tt.want) > 1e-12 {
			t.Errorf("%s = %.17g, want %.17g", tt.name, tt.got, tt.want)
		}
	}
}
