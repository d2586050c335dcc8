package engine

import (
	"fmt"
	"math"
	"runtime"
	"sync"
)

// Vectors is an exact (brute-force) cosine index over float32 vectors: one
// vector per document of the corpus, in corpus order, stored normalised to
// unit length, searched by a full scan. It is safe for concurrent search;
// Set is not (fill it before searching).
type Vectors struct {
	dim  int
	n    int
	data []float32 // n*dim, row i = document i, unit length (or all zero)
}

// MaxVectorDim bounds the dimension of a vector index.
const MaxVectorDim = 1 << 16

// NewVectors returns an index of n zero vectors of dimension dim.
func NewVectors(n, dim int) (*Vectors, error) {
	if dim <= 0 || dim > MaxVectorDim {
		return nil, fmt.Errorf("vector dimension %d: want 1..%d", dim, MaxVectorDim)
	}
	if n < 0 {
		return nil, fmt.Errorf("vector count %d: want >= 0", n)
	}
	return &Vectors{dim: dim, n: n, data: make([]float32, n*dim)}, nil
}

// Dim returns the dimension of the vectors.
func (v *Vectors) Dim() int { return v.dim }

// Len returns the number of vectors.
func (v *Vectors) Len() int { return v.n }

// Set stores vec, normalised, as document i's vector. A vector of the
// wrong dimension or with a NaN or infinite component is an error; a zero
// vector is kept as zero (its cosine with anything is 0).
func (v *Vectors) Set(i int, vec []float32) error {
	if i < 0 || i >= v.n {
		return fmt.Errorf("vector %d: out of range (%d documents)", i, v.n)
	}
	row := v.data[i*v.dim : (i+1)*v.dim]
	if err := normalize(row, vec); err != nil {
		return fmt.Errorf("vector %d: %v", i, err)
	}
	return nil
}

// normalize writes vec / |vec| into dst (len(dst) is the dimension). The
// norm is computed in float64.
func normalize(dst, vec []float32) error {
	if len(vec) != len(dst) {
		return fmt.Errorf("dimension %d, want %d", len(vec), len(dst))
	}
	var ss float64
	for _, x := range vec {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("component %v is not a finite number", x)
		}
		ss += f * f
	}
	if ss == 0 {
		clear(dst)
		return nil
	}
	inv := 1 / math.Sqrt(ss)
	for j, x := range vec {
		dst[j] = float32(float64(x) * inv)
	}
	return nil
}

// Search returns the k documents whose vectors have the largest cosine
// with q, best first; ties rank in corpus order. keep, when not nil,
// restricts the search to the documents it accepts (a collection; it must
// be safe for concurrent use: a large index is scanned in parts on
// several goroutines). A query
// of the wrong dimension or with a non-finite component is an error.
func (v *Vectors) Search(q []float32, k int, keep func(doc int) bool) ([]Result, error) {
	if k <= 0 {
		k = DefaultK
	}
	qn := make([]float32, v.dim)
	if err := normalize(qn, q); err != nil {
		return nil, fmt.Errorf("query vector: %v", err)
	}
	parts := min(runtime.GOMAXPROCS(0), v.n*v.dim/parallelScan)
	if parts <= 1 {
		return sortedResults(v.scan(qn, k, keep, 0, v.n)), nil
	}
	// A large index is scanned in parts, one goroutine each (the scan is
	// bound by memory bandwidth, which one core does not fill), and the
	// parts' k best merged: the same results as one scan.
	heaps := make([]minHeap, parts)
	per := (v.n/parts + 3) &^ 3
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := min(p*per, v.n), min((p+1)*per, v.n)
		if p == parts-1 {
			hi = v.n
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			heaps[p] = v.scan(qn, k, keep, lo, hi)
		}()
	}
	wg.Wait()
	h := heaps[0]
	for _, o := range heaps[1:] {
		for _, s := range o {
			h = pushTop(h, k, s)
		}
	}
	return sortedResults(h), nil
}

// parallelScan is the size (documents × dimensions) from which Search
// scans in parts on several cores: 1M floats, 4 MB.
const parallelScan = 1 << 20

// scan keeps the k best of documents lo..hi-1 for the unit query qn.
func (v *Vectors) scan(qn []float32, k int, keep func(doc int) bool, lo, hi int) minHeap {
	h := make(minHeap, 0, min(k, hi-lo))
	var four [4]float32
	fourAt := -4 // four holds the scores of documents fourAt..fourAt+3
	for d := lo; d < hi; d++ {
		if keep != nil && !keep(d) {
			continue
		}
		var score float32
		switch {
		case fourAt >= 0 && d < fourAt+4:
			score = four[d-fourAt]
		case d+4 <= hi && dot4(qn, v.data[d*v.dim:], &four):
			fourAt, score = d, four[0]
		default:
			score = Dot(qn, v.data[d*v.dim:(d+1)*v.dim])
		}
		h = pushTop(h, k, scored{doc: uint32(d), score: score})
	}
	return h
}

// batchBlock is how many queries SearchBatch scores against each group of
// four documents while those are in the cache.
const batchBlock = 16

// SearchBatch is Search for several queries at once, with the same
// results (the same bits), reading the document vectors once per block of
// queries instead of once per query, and scoring blocks on GOMAXPROCS
// goroutines: what a caller with many queries in hand (an offline
// evaluation, a benchmark) uses. keep applies to all and must be safe for
// concurrent use.
func (v *Vectors) SearchBatch(qs [][]float32, k int, keep func(doc int) bool) ([][]Result, error) {
	if k <= 0 {
		k = DefaultK
	}
	out := make([][]Result, len(qs))
	qn := make([][]float32, len(qs))
	for i, q := range qs {
		qn[i] = make([]float32, v.dim)
		if err := normalize(qn[i], q); err != nil {
			return nil, fmt.Errorf("query vector %d: %v", i, err)
		}
	}
	blocks := (len(qs) + batchBlock - 1) / batchBlock
	workers := min(runtime.GOMAXPROCS(0), blocks)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			heaps := make([]minHeap, batchBlock)
			for b := w; b < blocks; b += workers {
				lo := b * batchBlock
				v.searchBlock(qn[lo:min(lo+batchBlock, len(qs))], k, keep, heaps, out[lo:])
			}
		}()
	}
	wg.Wait()
	return out, nil
}

// searchBlock scores the queries of block against every document, four
// documents at a time, into out.
func (v *Vectors) searchBlock(block [][]float32, k int, keep func(doc int) bool, heaps []minHeap, out [][]Result) {
	for j := range block {
		heaps[j] = make(minHeap, 0, min(k, v.n))
	}
	var four [4]float32
	for d := 0; d < v.n; d += 4 {
		for j, q := range block {
			n := 4
			if d+4 > v.n || !dot4(q, v.data[d*v.dim:], &four) {
				n = min(4, v.n-d)
				for x := range n {
					four[x] = Dot(q, v.data[(d+x)*v.dim:(d+x+1)*v.dim])
				}
			}
			for x := range n {
				if keep == nil || keep(d+x) {
					heaps[j] = pushTop(heaps[j], k, scored{doc: uint32(d + x), score: four[x]})
				}
			}
		}
	}
	for j := range block {
		out[j] = sortedResults(heaps[j])
	}
}

// pushTop offers s to h, the k best so far (a min-heap once full).
func pushTop(h minHeap, k int, s scored) minHeap {
	if len(h) < k {
		h = append(h, s)
		if len(h) == k {
			heapInit(h)
		}
		return h
	}
	if better(s, h[0]) {
		h[0] = s
		siftDown(h, 0)
	}
	return h
}

// sortedResults is h best first.
func sortedResults(h minHeap) []Result {
	out := sortBest([]scored(h))
	res := make([]Result, len(out))
	for i, s := range out {
		res[i] = Result{Doc: int(s.doc), Score: float64(s.score)}
	}
	return res
}

// heapInit and siftDown keep h a min-heap under better (the worst kept
// result at h[0]) without container/heap's interface calls.
func heapInit(h minHeap) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
}

func siftDown(h minHeap, i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && better(h[l], h[r]) {
			j = r
		}
		if !better(h[i], h[j]) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// Dot is the dot product of two float32 vectors of the same length, summed
// in a fixed order (16 lanes, each product rounded to float32 before it is
// added, then the lanes pairwise), so that a score is the same bits on
// every platform. b must be at least as long as a.
func Dot(a, b []float32) float32 {
	b = b[:len(a)]
	var l0, l1, l2, l3, l4, l5, l6, l7, l8, l9, l10, l11, l12, l13, l14, l15 float32
	n := len(a) &^ 15
	for i := 0; i < n; i += 16 {
		x, y := a[i:i+16:i+16], b[i:i+16:i+16]
		l0 += float32(x[0] * y[0])
		l1 += float32(x[1] * y[1])
		l2 += float32(x[2] * y[2])
		l3 += float32(x[3] * y[3])
		l4 += float32(x[4] * y[4])
		l5 += float32(x[5] * y[5])
		l6 += float32(x[6] * y[6])
		l7 += float32(x[7] * y[7])
		l8 += float32(x[8] * y[8])
		l9 += float32(x[9] * y[9])
		l10 += float32(x[10] * y[10])
		l11 += float32(x[11] * y[11])
		l12 += float32(x[12] * y[12])
		l13 += float32(x[13] * y[13])
		l14 += float32(x[14] * y[14])
		l15 += float32(x[15] * y[15])
	}
	if n < len(a) {
		var t [16]float32
		for i := n; i < len(a); i++ {
			t[i-n] = float32(a[i] * b[i])
		}
		l0 += t[0]
		l1 += t[1]
		l2 += t[2]
		l3 += t[3]
		l4 += t[4]
		l5 += t[5]
		l6 += t[6]
		l7 += t[7]
		l8 += t[8]
		l9 += t[9]
		l10 += t[10]
		l11 += t[11]
		l12 += t[12]
		l13 += t[13]
		l14 += t[14]
		l15 += t[15]
	}
	// lanes j and j+8, then j and j+4, j+2, j+1
	l0, l1, l2, l3, l4, l5, l6, l7 = l0+l8, l1+l9, l2+l10, l3+l11, l4+l12, l5+l13, l6+l14, l7+l15
	l0, l1, l2, l3 = l0+l4, l1+l5, l2+l6, l3+l7
	l0, l1 = l0+l2, l1+l3
	return l0 + l1
}
