package engine

import (
	"runtime"
	"testing"

	"github.com/assay-eval/assay/internal/hybridtest"
)

// BenchmarkBuildSciFact indexes the 5,183 SciFact documents.
func BenchmarkBuildSciFact(b *testing.B) {
	docs, _ := loadSciFact(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Build(docs, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchSciFact300 runs the 300 SciFact test queries (top 1000);
// one op is all 300.
func BenchmarkSearchSciFact300(b *testing.B) {
	benchSearch(b, false, 1000)
}

// BenchmarkSearchSciFact300RM3 is the same with RM3.
func BenchmarkSearchSciFact300RM3(b *testing.B) {
	benchSearch(b, true, 1000)
}

// BenchmarkObserveSciFact300 is search (top 10) plus the answerer, what the
// builtin target does per case.
func BenchmarkObserveSciFact300(b *testing.B) {
	docs, qs := loadSciFact(b)
	ix, _ := Build(docs, DefaultOptions())
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, q := range qs {
			query := Query{Text: q.Text, K: 10}
			ix.Answer(query, ix.Search(query))
		}
	}
}

func benchSearch(b *testing.B, rm3 bool, k int) {
	docs, qs := loadSciFact(b)
	o := DefaultOptions()
	o.RM3 = rm3
	ix, _ := Build(docs, o)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, q := range qs {
			ix.Search(Query{Text: q.Text, K: k})
		}
	}
}

// TestSciFactMemory logs the heap an index of SciFact holds (the goal is
// well under 100 MiB for the whole process).
func TestSciFactMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("dataset test")
	}
	docs, _ := loadSciFact(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ix, err := Build(docs, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
	t.Logf("scifact index: %d terms, heap %.1f MiB (corpus text excluded: %.1f MiB loaded before)", ix.Stats().Terms, heap, float64(before.HeapAlloc)/(1<<20))
	if heap > 100 {
		t.Errorf("index heap %.1f MiB > 100 MiB", heap)
	}
	runtime.KeepAlive(ix)
}

// sciFactVectors embeds the SciFact corpus and test queries with
// hybridtest.Dense (768 dimensions), the vectors the embedding stand-in
// serves in the target benchmarks.
func sciFactVectors(b *testing.B) (*Vectors, [][]float32, *Index, []benchQuery) {
	docs, qs := loadSciFact(b)
	const dim = 768
	v, err := NewVectors(len(docs), dim)
	if err != nil {
		b.Fatal(err)
	}
	for i, d := range docs {
		if err := v.Set(i, hybridtest.Dense(d.Title+" "+d.Text, dim)); err != nil {
			b.Fatal(err)
		}
	}
	qv := make([][]float32, len(qs))
	for i, q := range qs {
		qv[i] = hybridtest.Dense(q.Text, dim)
	}
	ix, err := Build(docs, DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	return v, qv, ix, qs
}

// BenchmarkVectorSearchSciFact300 is exact cosine search (top 100) of the
// 300 SciFact test queries over the 5,183 documents' 768-dimensional
// vectors; one op is all 300 (the bound is 50 ms).
func BenchmarkVectorSearchSciFact300(b *testing.B) {
	v, qv, _, _ := sciFactVectors(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, q := range qv {
			if _, err := v.Search(q, 100, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkVectorSearchBatchSciFact300 is the same through SearchBatch.
func BenchmarkVectorSearchBatchSciFact300(b *testing.B) {
	v, qv, _, _ := sciFactVectors(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := v.SearchBatch(qv, 100, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFuseSciFact300 is reciprocal rank fusion of the BM25 and the
// dense top 100 of the 300 SciFact queries; one op is all 300 (the bound
// is 5 ms).
func BenchmarkFuseSciFact300(b *testing.B) {
	v, qv, ix, qs := sciFactVectors(b)
	bm, dense := make([][]Result, len(qs)), make([][]Result, len(qs))
	for i, q := range qs {
		bm[i] = ix.Search(Query{Text: q.Text, K: 100})
		dense[i], _ = v.Search(qv[i], 100, nil)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for i := range qs {
			RRF(DefaultRRFK, bm[i], dense[i])
		}
	}
}
