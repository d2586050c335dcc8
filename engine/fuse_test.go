package engine

import "testing"

func res(docs ...int) []Result {
	out := make([]Result, len(docs))
	for i, d := range docs {
		out[i] = Result{Doc: d}
	}
	return out
}

// inv is 1/x in float64 arithmetic at run time (a constant expression
// such as 1.0/61 + 1.0/63 is exact before rounding, and may differ from
// the float64 sum in the last bit).
func inv(x int) float64 { return 1 / float64(x) }

func TestRRFScoresExact(t *testing.T) {
	bm25 := res(10, 11, 12)
	dense := res(12, 13, 10)
	got := RRF(0, bm25, dense)
	want := map[int]float64{
		10: inv(61) + inv(63),
		11: inv(62),
		12: inv(63) + inv(61),
		13: inv(62),
	}
	if len(got) != len(want) {
		t.Fatalf("%d fused documents, want %d", len(got), len(want))
	}
	for _, f := range got {
		if f.Score != want[f.Doc] {
			t.Errorf("doc %d: score %v, want exactly %v", f.Doc, f.Score, want[f.Doc])
		}
	}
	// 10 and 12 tie on score (1/61+1/63 both ways) and on best rank (1):
	// corpus order; 11 and 13 tie on score and best rank 2: corpus order.
	order := []int{got[0].Doc, got[1].Doc, got[2].Doc, got[3].Doc}
	if !equalInts(order, []int{10, 12, 11, 13}) {
		t.Errorf("order %v, want [10 12 11 13]", order)
	}
	if r := got[2].Ranks; r[0] != 2 || r[1] != 0 {
		t.Errorf("doc 11 ranks %v, want [2 0] (0: absent from the dense list)", r)
	}
}

func TestRRFCustomKAndMissing(t *testing.T) {
	got := RRF(1, res(1), res(2, 1))
	// doc 1: 1/(1+1) + 1/(1+2); doc 2: 1/(1+1)
	if got[0].Doc != 1 || got[0].Score != inv(2)+inv(3) || got[1].Doc != 2 || got[1].Score != inv(2) {
		t.Errorf("k=1: %+v", got)
	}
	if got := RRF(60); len(got) != 0 {
		t.Errorf("no lists: %+v", got)
	}
	if got := RRF(60, nil, res(4)); len(got) != 1 || got[0].Score != inv(61) {
		t.Errorf("one empty list: %+v", got)
	}
}

func TestRRFTieBreaksOnBestRank(t *testing.T) {
	// 9 and 4 are each first in one list (same score, same best rank):
	// corpus order puts 4 first; likewise 6 before 8 at rank 2; 7 last.
	got := RRF(60, res(9, 8, 7), res(4, 6))
	order := []int{}
	for _, f := range got {
		order = append(order, f.Doc)
	}
	if !equalInts(order, []int{4, 9, 6, 8, 7}) {
		t.Errorf("order %v, want [4 9 6 8 7]", order)
	}
}

func TestRRFRepeatKeepsFirstRank(t *testing.T) {
	got := RRF(60, res(1, 2, 1))
	if len(got) != 2 || got[0].Score != inv(61) || got[0].Ranks[0] != 1 {
		t.Errorf("repeat: %+v", got)
	}
}
