package engine

import (
	"cmp"
	"slices"
	"unicode"
	"unicode/utf8"
)

// expand is RM3 as Anserini's Rm3Reranker computes it: the relevance model
// is estimated from the first fbDocs results, each document's term vector
// pruned to its fbTerms most frequent feedback terms and L1-normalised,
// weighted by the document's BM25 score; the model is pruned to fbTerms
// terms, L1-normalised, and interpolated with the L1-normalised original
// query: w*q + (1-w)*rm. Feedback terms are 2-20 letters or digits that
// occur in at most 10% of the documents.
func (ix *Index) expand(q map[string]float64, first []Result) map[string]float64 {
	fbDocs := min(ix.opts.FbDocs, len(first))
	type tw struct {
		id uint32
		w  float64
	}
	byWeightThenTerm := func(a, b tw) int {
		if c := cmp.Compare(b.w, a.w); c != 0 {
			return c
		}
		return cmp.Compare(ix.terms[a.id], ix.terms[b.id])
	}
	model := make(map[uint32]float64)
	maxDF := 0.1 * float64(len(ix.docs))
	for _, r := range first[:fbDocs] {
		var vec []tw
		for _, p := range ix.docTerms[r.Doc] {
			t := ix.terms[p.term]
			if !feedbackTerm(t) || float64(len(ix.postings[p.term])) > maxDF {
				continue
			}
			vec = append(vec, tw{p.term, float64(p.tf)})
		}
		slices.SortFunc(vec, byWeightThenTerm)
		if len(vec) > ix.opts.FbTerms {
			vec = vec[:ix.opts.FbTerms]
		}
		norm := 0.0
		for _, v := range vec {
			norm += v.w
		}
		if norm <= 0.001 {
			continue
		}
		for _, v := range vec {
			model[v.id] += v.w / norm * float64(float32(r.Score))
		}
	}
	var rm []tw
	for id, w := range model {
		rm = append(rm, tw{id, w})
	}
	slices.SortFunc(rm, byWeightThenTerm)
	if len(rm) > ix.opts.FbTerms {
		rm = rm[:ix.opts.FbTerms]
	}
	rmNorm := 0.0
	for _, v := range rm {
		rmNorm += v.w
	}
	qNorm := 0.0
	for _, w := range q {
		qNorm += w
	}
	a := ix.opts.OriginalQueryWeight
	out := make(map[string]float64, len(q)+len(rm))
	for t, w := range q {
		out[t] = a * w / qNorm
	}
	if rmNorm > 0 {
		for _, v := range rm {
			out[ix.terms[v.id]] += (1 - a) * v.w / rmNorm
		}
	}
	return out
}

// feedbackTerm is Anserini's filter, widened from [a-z0-9] to any letter or
// digit so other languages get feedback too.
func feedbackTerm(t string) bool {
	n := utf8.RuneCountInString(t)
	if n < 2 || n > 20 {
		return false
	}
	for _, r := range t {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}
