package engine

import "slices"

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
	best  int // the smallest of Ranks above 0
}

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
	total := 0
	for _, list := range lists {
		total += len(list)
	}
	pos := make(map[int]int, total) // doc -> index in out
	out := make([]Fused, 0, total)
	ranks := make([]int, total*len(lists)) // one backing array for every Ranks
	for li, list := range lists {
		for r, res := range list {
			i, ok := pos[res.Doc]
			if !ok {
				i = len(out)
				pos[res.Doc] = i
				out = append(out, Fused{Doc: res.Doc, Ranks: ranks[i*len(lists) : (i+1)*len(lists) : (i+1)*len(lists)]})
			}
			f := &out[i]
			if f.Ranks[li] != 0 {
				continue // a repeat keeps its first rank
			}
			f.Ranks[li] = r + 1
		}
	}
	for i := range out {
		var s float64
		best := 0
		for _, r := range out[i].Ranks {
			if r > 0 {
				s += 1 / float64(k+r)
				if best == 0 || r < best {
					best = r
				}
			}
		}
		out[i].Score, out[i].best = s, best
	}
	slices.SortFunc(out, func(a, b Fused) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		case a.best != b.best:
			return a.best - b.best
		}
		return a.Doc - b.Doc
	})
	return out
}
