package metric

import (
	"math"
	"testing"
)

// The worked example of docs/metrics.md#judged-coverage: d2 and d4 are
// unjudged, d6 is relevant and not retrieved.
var (
	covRanking   = []string{"d1", "d2", "d3", "d4", "d5"}
	covJudgments = map[string]int{"d1": 3, "d3": 0, "d5": 1, "d6": 2}
)

func TestUnjudgedIsTrecEvalUnj(t *testing.T) {
	t.Parallel()
	neg := map[string]int{"d1": 3, "d2": -1, "d3": 0}
	tests := []struct {
		name      string
		ranking   []string
		judgments map[string]int
		k         int
		want      float64
	}{
		{"2 of the top 5 unjudged", covRanking, covJudgments, 5, 2.0 / 5},
		{"top 1 judged", covRanking, covJudgments, 1, 0},
		{"missing ranks count as judged: divides by k", covRanking, covJudgments, 10, 2.0 / 10},
		{"a negative grade is unjudged", []string{"d1", "d2", "d3"}, neg, 3, 1.0 / 3},
		{"empty ranking", nil, covJudgments, 5, 0},
		{"k 0", covRanking, covJudgments, 0, 0},
	}
	for _, tt := range tests {
		if got := Unjudged(tt.ranking, tt.judgments, tt.k); got != tt.want {
			t.Errorf("%s: Unjudged = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestUpperCountsUnjudgedRelevant(t *testing.T) {
	t.Parallel()
	l2 := func(i int) float64 { return math.Log2(float64(i + 1)) }
	tests := []struct {
		metric       string
		lower, upper float64
	}{
		{"precision@5", 2.0 / 5, 4.0 / 5},
		{"precision@2", 1.0 / 2, 2.0 / 2},
		{"recall@5", 2.0 / 3, 4.0 / 5},
		{"hit@5", 1, 1},
		{"mrr", 1, 1},
		// d2, d4 get the top grade 3 and join the ideal list.
		{"ndcg@5", (3 + 1/l2(5)) / (3 + 2/l2(2) + 1/l2(3)),
			(3 + 3/l2(2) + 3/l2(4) + 1/l2(5)) / (3 + 3/l2(2) + 3/l2(3) + 2/l2(4) + 1/l2(5))},
		// Only d2 is in the top 2.
		{"ndcg@2", 3 / (3 + 2/l2(2)), (3 + 3/l2(2)) / (3 + 3/l2(2))},
		{"map", (1 + 2.0/5) / 3, (1 + 2.0/2 + 3.0/4 + 4.0/5) / 5},
	}
	for _, tt := range tests {
		s, err := Parse(tt.metric)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Eval(covRanking, covJudgments, Options{}); math.Abs(got-tt.lower) > 1e-12 {
			t.Errorf("%s = %.6f, want %.6f", tt.metric, got, tt.lower)
		}
		got, ok := s.Upper(covRanking, covJudgments, Options{})
		if !ok || math.Abs(got-tt.upper) > 1e-12 {
			t.Errorf("%s upper = %.6f (%v), want %.6f", tt.metric, got, ok, tt.upper)
		}
	}
	t.Run("nothing unjudged in the cut", func(t *testing.T) {
		s, _ := Parse("precision@1")
		if v, ok := s.Upper(covRanking, covJudgments, Options{}); ok {
			t.Errorf("upper = %v, true; want false (d1 is judged)", v)
		}
	})
	t.Run("top grade is at least the threshold", func(t *testing.T) {
		s, _ := Parse("precision@2")
		o := Options{RelLevel: 5}
		if v, _ := s.Upper(covRanking, covJudgments, o); v != 0.5 {
			t.Errorf("upper under -l 5 = %v, want 0.5 (d2 counted relevant at grade 5)", v)
		}
	})
	t.Run("judgments are not modified", func(t *testing.T) {
		s, _ := Parse("ndcg@5")
		s.Upper(covRanking, covJudgments, Options{})
		if len(covJudgments) != 4 {
			t.Errorf("judgments grew to %v", covJudgments)
		}
	})
}
