package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestVectorsCosineOrder(t *testing.T) {
	v, err := NewVectors(4, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, vec := range [][]float32{{1, 0, 0}, {0, 2, 0}, {1, 1, 0}, {0, 0, 0}} {
		if err := v.Set(i, vec); err != nil {
			t.Fatal(err)
		}
	}
	res, err := v.Search([]float32{3, 1, 0}, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	var order []int
	for _, r := range res {
		order = append(order, r.Doc)
	}
	// cos with (3,1,0): d0 0.949, d2 0.894, d1 0.316, d3 (zero) 0
	if want := []int{0, 2, 1, 3}; !equalInts(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	if got, want := res[0].Score, 3/math.Sqrt(10); math.Abs(got-want) > 1e-6 {
		t.Errorf("cosine %v, want %v (scores are cosines, not raw dot products)", got, want)
	}
}

func TestVectorsTiesInCorpusOrderAndKeep(t *testing.T) {
	v, _ := NewVectors(5, 2)
	for i := range 5 {
		v.Set(i, []float32{1, 1})
	}
	res, _ := v.Search([]float32{1, 1}, 3, nil)
	if got := []int{res[0].Doc, res[1].Doc, res[2].Doc}; !equalInts(got, []int{0, 1, 2}) {
		t.Errorf("ties: %v, want corpus order [0 1 2]", got)
	}
	res, _ = v.Search([]float32{1, 1}, 3, func(d int) bool { return d%2 == 1 })
	if len(res) != 2 || res[0].Doc != 1 || res[1].Doc != 3 {
		t.Errorf("keep odd documents: %+v, want docs 1 and 3 only", res)
	}
}

func TestVectorsTopKMatchesFullSort(t *testing.T) {
	const n, dim = 500, 33 // 33: the tail after the 16-lane blocks
	v, _ := NewVectors(n, dim)
	r := rand.New(rand.NewPCG(1, 2))
	vecs := make([][]float32, n)
	for i := range n {
		vecs[i] = make([]float32, dim)
		for j := range vecs[i] {
			vecs[i][j] = float32(r.NormFloat64())
		}
		v.Set(i, vecs[i])
	}
	q := vecs[7]
	all, _ := v.Search(q, n, nil)
	top, _ := v.Search(q, 10, nil)
	for i := range top {
		if top[i] != all[i] {
			t.Fatalf("top-10 position %d: %+v, the full ranking has %+v", i, top[i], all[i])
		}
	}
	if all[0].Doc != 7 {
		t.Errorf("a document's own vector ranks %d first, want 7", all[0].Doc)
	}
	for i := 1; i < n; i++ {
		if all[i].Score > all[i-1].Score {
			t.Fatalf("not sorted at %d", i)
		}
	}
}

func TestVectorsRejectBadInput(t *testing.T) {
	if _, err := NewVectors(1, 0); err == nil {
		t.Error("dimension 0 accepted")
	}
	v, _ := NewVectors(1, 2)
	for name, vec := range map[string][]float32{
		"wrong dimension": {1, 2, 3},
		"NaN":             {float32(math.NaN()), 1},
		"Inf":             {float32(math.Inf(1)), 1},
	} {
		if err := v.Set(0, vec); err == nil {
			t.Errorf("Set %s: no error", name)
		}
		if _, err := v.Search(vec, 1, nil); err == nil {
			t.Errorf("Search %s: no error", name)
		}
	}
	if err := v.Set(1, []float32{1, 1}); err == nil {
		t.Error("Set out of range: no error")
	}
}

func TestDotFixedOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 15, 16, 17, 768, 1000} {
		a, b := make([]float32, n), make([]float32, n)
		var want float64
		for i := range a {
			a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
			want += float64(a[i]) * float64(b[i])
		}
		if got := float64(Dot(a, b)); math.Abs(got-want) > 1e-4*math.Max(1, math.Abs(want)) {
			t.Errorf("n=%d: Dot %v, float64 sum %v", n, got, want)
		}
		if got, ref := Dot(a, b), dotReference(a, b); got != ref {
			t.Errorf("n=%d: Dot %v is not the 16-lane reference sum %v bit for bit", n, got, ref)
		}
	}
}

// dotReference is the documented summation order written plainly.
func dotReference(a, b []float32) float32 {
	var l [16]float32
	for i := range a {
		l[i%16] += float32(a[i] * b[i])
	}
	for w := 8; w >= 1; w /= 2 {
		for j := 0; j < w; j++ {
			l[j] += l[j+w]
		}
	}
	return l[0]
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDot4MatchesDot(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, dim := range []int{16, 32, 768} {
		q := make([]float32, dim)
		d := make([]float32, 4*dim)
		for i := range q {
			q[i] = float32(r.NormFloat64())
		}
		for i := range d {
			d[i] = float32(r.NormFloat64())
		}
		var out [4]float32
		if !dot4(q, d, &out) {
			t.Skip("no vector kernel on this machine")
		}
		for j := range 4 {
			if want := Dot(q, d[j*dim:(j+1)*dim]); out[j] != want {
				t.Errorf("dim %d row %d: kernel %v, Dot %v: not the same bits", dim, j, out[j], want)
			}
		}
	}
}

func TestSearchBatchIsSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, dim := range []int{32, 33} { // the kernel, and Dot
		const n = 103 // not a multiple of 4
		v, _ := NewVectors(n, dim)
		for i := range n {
			vec := make([]float32, dim)
			for j := range vec {
				vec[j] = float32(r.NormFloat64())
			}
			v.Set(i, vec)
		}
		qs := make([][]float32, 37) // more than one block
		for i := range qs {
			qs[i] = make([]float32, dim)
			for j := range qs[i] {
				qs[i][j] = float32(r.NormFloat64())
			}
		}
		keep := func(d int) bool { return d%5 != 0 }
		got, err := v.SearchBatch(qs, 7, keep)
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range qs {
			want, _ := v.Search(q, 7, keep)
			if len(got[i]) != len(want) {
				t.Fatalf("dim %d query %d: %d results, Search %d", dim, i, len(got[i]), len(want))
			}
			for j := range want {
				if got[i][j] != want[j] {
					t.Fatalf("dim %d query %d rank %d: %+v, Search %+v", dim, i, j, got[i][j], want[j])
				}
			}
		}
	}
}

func TestSearchInPartsIsOneScan(t *testing.T) {
	const n, dim = 20003, 64 // over parallelScan, not a multiple of 4
	v, _ := NewVectors(n, dim)
	r := rand.New(rand.NewPCG(9, 10))
	vec := make([]float32, dim)
	for i := range n {
		for j := range vec {
			vec[j] = float32(r.NormFloat64())
		}
		if i%7 == 0 {
			vec[0] = 3 // ties and near-ties across the parts
		}
		v.Set(i, vec)
	}
	keep := func(d int) bool { return d%3 != 1 }
	for _, k := range []int{1, 10, 500} {
		got, _ := v.Search(vec, k, keep)
		qn := make([]float32, dim)
		normalize(qn, vec)
		want := sortedResults(v.scan(qn, k, keep, 0, n))
		if len(got) != len(want) {
			t.Fatalf("k=%d: %d results, one scan %d", k, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("k=%d rank %d: %+v, one scan %+v", k, i, got[i], want[i])
			}
		}
	}
}
