package metric

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Spec
	}{
		{"ndcg@10", Spec{"ndcg@10", KindNDCG, 10}},
		{"nDCG@10", Spec{"ndcg@10", KindNDCG, 10}},
		{"ndcg_cut_10", Spec{"ndcg@10", KindNDCG, 10}},
		{"ndcg", Spec{"ndcg", KindNDCG, 0}},
		{"nDCG", Spec{"ndcg", KindNDCG, 0}},
		{"recall@5", Spec{"recall@5", KindRecall, 5}},
		{"R@100", Spec{"recall@100", KindRecall, 100}},
		{"recall_20", Spec{"recall@20", KindRecall, 20}},
		{"precision@5", Spec{"precision@5", KindPrecision, 5}},
		{"P@5", Spec{"precision@5", KindPrecision, 5}},
		{"P_10", Spec{"precision@10", KindPrecision, 10}},
		{"mrr", Spec{"mrr", KindMRR, 0}},
		{"RR", Spec{"mrr", KindMRR, 0}},
		{"recip_rank", Spec{"mrr", KindMRR, 0}},
		{"map", Spec{"map", KindMAP, 0}},
		{"AP", Spec{"map", KindMAP, 0}},
		{"hit@5", Spec{"hit@5", KindHit, 5}},
		{"Success@5", Spec{"hit@5", KindHit, 5}},
		{"rprec", Spec{"rprec", KindRPrec, 0}},
		{"Rprec", Spec{"rprec", KindRPrec, 0}},
		{"R-prec", Spec{"rprec", KindRPrec, 0}},
		{" MAP ", Spec{"map", KindMAP, 0}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Parse(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"bleu", `unknown metric "bleu" (known: ndcg@K`},
		{"ndcg@0", "cutoff must be an integer >= 1"},
		{"ndcg@-3", "cutoff must be an integer >= 1"},
		{"P@x", "cutoff must be an integer >= 1"},
		{"recall", "needs a cutoff"},
		{"hit", "needs a cutoff"},
		{"map@10", "takes no cutoff"},
		{"mrr@10", "takes no cutoff"},
		{"", "unknown metric"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) error = %v, want it to contain %q", tt.in, err, tt.want)
		}
	}
}

// The running example of the package documentation.
//
//	rank  1   2   3   4   5
//	doc   d1  d2  d3  d4  d5
//	grade 0   1   2   -   1      (d4 unjudged; d9, grade 3, not retrieved)
//
// With ℓ = 1 the relevant documents are d2, d3, d5, d9: R = 4.
var (
	exRanking   = []string{"d1", "d2", "d3", "d4", "d5"}
	exJudgments = map[string]int{"d1": 0, "d2": 1, "d3": 2, "d5": 1, "d9": 3}
)

func l2(x float64) float64 { return log2(x) } // glibc's, as trec_eval

func TestEval(t *testing.T) {
	t.Parallel()
	noRel := map[string]int{"a": 0, "b": 0}
	neg := map[string]int{"a": -1, "b": 1}
	tests := []struct {
		name      string
		metric    string
		ranking   []string
		judgments map[string]int
		opt       Options
		want      float64
	}{
		{"precision divides by k", "P@5", exRanking, exJudgments, Options{}, 3.0 / 5},
		{"precision beyond the ranking counts missing as non-relevant", "P@10", exRanking, exJudgments, Options{}, 3.0 / 10},
		{"precision at 1 on a non-relevant top doc", "P@1", exRanking, exJudgments, Options{}, 0},
		{"recall divides by all relevant", "recall@5", exRanking, exJudgments, Options{}, 3.0 / 4},
		{"recall at 2", "recall@2", exRanking, exJudgments, Options{}, 1.0 / 4},
		{"hit misses at 1", "hit@1", exRanking, exJudgments, Options{}, 0},
		{"hit at 2", "hit@2", exRanking, exJudgments, Options{}, 1},
		{"mrr is 1/first relevant rank", "mrr", exRanking, exJudgments, Options{}, 1.0 / 2},
		{"map averages over R, unretrieved counts 0", "map", exRanking, exJudgments, Options{}, (1.0/2 + 2.0/3 + 3.0/5) / 4},
		{"rprec cuts at R", "rprec", exRanking, exJudgments, Options{}, 2.0 / 4},
		{"ndcg@3 linear gain, ideal cut at 3", "ndcg@3", exRanking, exJudgments, Options{},
			(1/l2(3) + 2/l2(4)) / (3 + 2/l2(3) + 1/l2(4))},
		{"ndcg over the whole ranking and ideal", "ndcg", exRanking, exJudgments, Options{},
			(1/l2(3) + 2/l2(4) + 1/l2(6)) / (3 + 2/l2(3) + 1/l2(4) + 1/l2(5))},
		{"ndcg@3 exponential gain", "ndcg@3", exRanking, exJudgments, Options{Exponential: true},
			(1/l2(3) + 3/l2(4)) / (7 + 3/l2(3) + 1/l2(4))},
		{"ndcg@1 with a non-relevant top doc", "ndcg@1", exRanking, exJudgments, Options{}, 0},
		// Threshold 2: only d3 and d9 are relevant.
		{"rel level 2 precision", "P@5", exRanking, exJudgments, Options{RelLevel: 2}, 1.0 / 5},
		{"rel level 2 map", "map", exRanking, exJudgments, Options{RelLevel: 2}, (1.0 / 3) / 2},
		{"rel level 2 mrr", "mrr", exRanking, exJudgments, Options{RelLevel: 2}, 1.0 / 3},
		{"rel level 2 rprec", "rprec", exRanking, exJudgments, Options{RelLevel: 2}, 0},
		{"rel level 2 leaves ndcg alone", "ndcg@3", exRanking, exJudgments, Options{RelLevel: 2},
			(1/l2(3) + 2/l2(4)) / (3 + 2/l2(3) + 1/l2(4))},
		// Ties in grade: two grade-1 documents, either order gives the same ideal.
		{"graded ties in the ideal list", "ndcg@2", []string{"b", "a"}, map[string]int{"a": 1, "b": 1}, Options{}, 1},
		// No relevant judgments.
		{"no relevant: precision", "P@2", []string{"a", "b"}, noRel, Options{}, 0},
		{"no relevant: recall", "recall@2", []string{"a", "b"}, noRel, Options{}, 0},
		{"no relevant: map", "map", []string{"a", "b"}, noRel, Options{}, 0},
		{"no relevant: ndcg", "ndcg@2", []string{"a", "b"}, noRel, Options{}, 0},
		{"no relevant: rprec", "rprec", []string{"a", "b"}, noRel, Options{}, 0},
		{"no judgments at all", "ndcg", []string{"a"}, nil, Options{}, 0},
		// Empty ranking.
		{"empty ranking: precision", "P@5", nil, exJudgments, Options{}, 0},
		{"empty ranking: ndcg", "ndcg@10", nil, exJudgments, Options{}, 0},
		{"empty ranking: mrr", "mrr", nil, exJudgments, Options{}, 0},
		{"empty ranking: rprec", "rprec", nil, exJudgments, Options{}, 0},
		// Negative grades are never relevant and not counted in R.
		{"negative grade is not relevant", "P@1", []string{"a", "b"}, neg, Options{}, 0},
		{"negative grade is not in R", "recall@2", []string{"a", "b"}, neg, Options{}, 1},
		{"negative grade: map", "map", []string{"a", "b"}, neg, Options{}, 1.0 / 2},
		// A caller that de-duplicated keeps the first position: b at 2.
		{"deduplicated ranking", "mrr", []string{"a", "b"}, map[string]int{"b": 1}, Options{}, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp, err := Parse(tt.metric)
			if err != nil {
				t.Fatal(err)
			}
			got := sp.Eval(tt.ranking, tt.judgments, tt.opt)
			if got != tt.want {
				t.Errorf("%s = %.17g, want %.17g", sp.Name, got, tt.want)
			}
		})
	}
}

func TestTopicCounts(t *testing.T) {
	t.Parallel()
	tp := Topic{Labels: []int{0, 1, -1, -2, 3, 0}, Judgments: []int{0, 0, 1, 3, -1, 2}, Threshold: 1}
	tp.Prepare()
	if got := [4]int{tp.NumRet(), tp.NumRel(), tp.NumRelRet(), tp.NumNonrelJudgedRet()}; got != [4]int{6, 3, 2, 2} {
		t.Errorf("counts = %v, want [6 3 2 2]", got)
	}
	// Reuse of the same Topic for a second topic must not leak state.
	tp.Labels, tp.Judgments = []int{1}, []int{1}
	tp.Prepare()
	if tp.NumRet() != 1 || tp.NumRel() != 1 || tp.NumRelRet() != 1 || tp.P(1) != 1 {
		t.Errorf("reused topic: ret=%d rel=%d relret=%d", tp.NumRet(), tp.NumRel(), tp.NumRelRet())
	}
}

func TestEvalAllMatchesEval(t *testing.T) {
	t.Parallel()
	var specs []Spec
	for _, n := range []string{"ndcg@3", "ndcg", "P@5", "recall@2", "mrr", "map", "hit@1", "rprec"} {
		sp, err := Parse(n)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, sp)
	}
	for _, o := range []Options{{}, {Exponential: true}, {RelLevel: 2}} {
		got := EvalAll(specs, exRanking, exJudgments, o, nil)
		for i, sp := range specs {
			if want := sp.Eval(exRanking, exJudgments, o); got[i] != want {
				t.Errorf("%+v %s: EvalAll %v, Eval %v", o, sp.Name, got[i], want)
			}
		}
	}
}
