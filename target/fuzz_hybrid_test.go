package target

import (
	"encoding/json"
	"testing"
)

// FuzzRerankResponse: any /rerank answer is either an error or results
// with distinct in-range indexes, best first; never a panic.
func FuzzRerankResponse(f *testing.F) {
	f.Add([]byte(`{"results": [{"index": 1, "relevance_score": 0.9}, {"index": 0, "relevance_score": 0.1}]}`), 2)
	f.Add([]byte(`{"results": [{"index": 3, "relevance_score": 1}]}`), 2)
	f.Add([]byte(`{"results": [{"index": 0}]}`), 1)
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		if n < 0 || n > 1000 {
			return
		}
		var resp rerankResponse
		if json.Unmarshal(body, &resp) != nil {
			return
		}
		got, err := rerankOrder(resp, n)
		if err != nil {
			return
		}
		seen := map[int]bool{}
		for j, g := range got {
			if g.i < 0 || g.i >= n || seen[g.i] {
				t.Fatalf("index %d of %d, or repeated", g.i, n)
			}
			seen[g.i] = true
			if j > 0 && g.s > got[j-1].s {
				t.Fatalf("not best first: %+v", got)
			}
		}
	})
}

// FuzzParseBuiltin: any spec parses or is an error; never a panic, and a
// parsed hybrid has bounded depths.
func FuzzParseBuiltin(f *testing.F) {
	for _, s := range []string{"builtin", "builtin:hybrid?rrf_k=10&depth=50", "builtin?preset=thorough&rerank_top=5", "builtin?mode=rm3&fb_docs=3", "builtin:x", "builtin?preset=%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		bs, err := ParseBuiltin(spec)
		if err != nil {
			return
		}
		if bs.RRFK < 1 || bs.Depth > MaxHybridDepth || bs.RerankTop > MaxHybridDepth || bs.Depth < 0 || bs.RerankTop < 0 {
			t.Fatalf("%q: %+v", spec, bs)
		}
	})
}

// FuzzDecodeVectors: any cache entry decodes to n equal-length vectors or
// is a miss.
func FuzzDecodeVectors(f *testing.F) {
	f.Add(encodeVectors([][]float32{{1, 2}, {3, 4}}), 2)
	f.Add([]byte{1, 2, 3}, 1)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		if n < 0 || n > 1<<16 {
			return
		}
		vecs, ok := decodeVectors(b, n)
		if !ok {
			return
		}
		if len(vecs) != n || 4*n*len(vecs[0]) != len(b) {
			t.Fatalf("%d vectors of %d from %d bytes", len(vecs), len(vecs[0]), len(b))
		}
	})
}
