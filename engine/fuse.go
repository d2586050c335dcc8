package engine

import (
	"slices"
	"sync"
)

// DefaultRRFK is the k of reciprocal rank fusion (Cormack, Clarke and
// Büttcher 2009; GNO and most hybrid engines use 60).
const DefaultRRFK = 60

// Fused is one document of a fused ranking.
type Fused struct {
	Doc   int
	Score float64
	// Ranks holds the document's 1-based rank in each input list, in the
	// order the lists were given; 0 where the list does not hold it.
	Ranks []int
}

// fuseKey is what the fused ranking is sorted by.
type fuseKey struct {
	score float64
	best  int32 // the smallest rank the document has in any list
	doc   int32
	i     int32 // index into the unsorted output
}

// fuseScratch is RRF's working memory, reused across calls: slot maps a
// document to its position in the output plus one (0: not seen; only the
// slots written are cleared), docs and keys are per fused document.
type fuseScratch struct {
	slot []int32
	docs []int
	keys []fuseKey
}

var scratch = sync.Pool{New: func() any { return new(fuseScratch) }}

// RRF fuses rankings by reciprocal rank fusion: a document's score is the
// sum, over the lists that hold it, of 1/(k + r) with r its 1-based rank
// there (float64, added in list order, so a document at ranks r1 and r2 of
// two lists scores exactly 1/(k+r1) + 1/(k+r2)); a list that does not hold
// it adds nothing. A document repeated within one list counts at its first
// rank. The result holds every document of any list, best first; equal
// scores rank by the best (smallest) rank the document has in any list,
// then in corpus order (Doc). k <= 0 means DefaultRRFK.
func RRF(k int, lists ...[]Result) []Fused {
	if k <= 0 {
		k = DefaultRRFK
	}
	total, maxDoc := 0, -1
	for _, list := range lists {
		total += len(list)
		for _, r := range list {
			maxDoc = max(maxDoc, r.Doc)
		}
	}
	sc := scratch.Get().(*fuseScratch)
	defer scratch.Put(sc)
	if len(sc.slot) <= maxDoc {
		sc.slot = make([]int32, maxDoc+1)
	}
	slot := sc.slot
	docs := sc.docs[:0]
	defer func() { sc.docs = docs[:0] }()
	ranks := make([]int, total*len(lists)) // one backing array for every Ranks
	nl := len(lists)
	for li, list := range lists {
		for r, res := range list {
			if res.Doc < 0 {
				continue
			}
			i := slot[res.Doc] - 1
			if i < 0 {
				i = int32(len(docs))
				slot[res.Doc] = i + 1
				docs = append(docs, res.Doc)
			}
			if p := &ranks[int(i)*nl+li]; *p == 0 { // a repeat keeps its first rank
				*p = r + 1
			}
		}
	}
	keys := slices.Grow(sc.keys[:0], len(docs))[:len(docs)]
	defer func() { sc.keys = keys[:0] }()
	for i, d := range docs {
		slot[d] = 0
		var s float64
		best := 0
		for _, r := range ranks[i*nl : (i+1)*nl] {
			if r > 0 {
				s += 1 / float64(k+r)
				if best == 0 || r < best {
					best = r
				}
			}
		}
		keys[i] = fuseKey{score: s, best: int32(best), doc: int32(d), i: int32(i)}
	}
	slices.SortFunc(keys, func(a, b fuseKey) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		case a.best != b.best:
			return int(a.best - b.best)
		}
		return int(a.doc - b.doc)
	})
	out := make([]Fused, len(keys))
	for j, key := range keys {
		i := int(key.i)
		out[j] = Fused{Doc: docs[i], Score: key.score, Ranks: ranks[i*nl : (i+1)*nl : (i+1)*nl]}
	}
	return out
}
