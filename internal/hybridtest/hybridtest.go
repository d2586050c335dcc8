// Package hybridtest is the embedding and rerank stand-in of the hybrid
// builtin's tests: deterministic "concept" vectors in which words of
// several languages that mean the same thing point the same way (so dense
// retrieval finds a German document for an English query, which BM25
// cannot), and a rerank score from those vectors. The stand-in server
// llm/llmtest serves them (Handlers; llmtest --vectors concepts in
// testscripts).
package hybridtest

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"unicode"
)

// concepts maps a lower-cased word to its concept (a dimension of the
// vectors). Words of English, German and French share a concept when they
// mean the same.
var concepts = map[string]int{
	"password": 0, "passwort": 0, "passe": 0, "kennwort": 0,
	"reset": 1, "zurücksetzen": 1, "réinitialiser": 1, "recover": 1,
	"forgotten": 2, "vergessen": 2, "oublié": 2, "lost": 2, "forgot": 2,
	"account": 3, "konto": 3, "kontoseite": 3, "compte": 3,
	"invoice": 4, "invoices": 4, "rechnung": 4, "rechnungen": 4, "facture": 4, "factures": 4, "billing": 4,
	"monthly": 5, "monatlich": 5, "mensuel": 5, "mensuelle": 5,
	"deploy": 6, "deployment": 6, "bereitstellung": 6, "déploiement": 6,
	"cluster": 7, "kubernetes": 7,
	"error": 8, "errors": 8, "fehler": 8, "erreur": 8,
	"retry": 9, "wiederholen": 9, "wiederholung": 9, "réessayer": 9,
	"email": 10, "e-mail": 10, "mail": 10, "courriel": 10,
	"link": 11, "verknüpfung": 11, "lien": 11,
}

// Dim is the dimension of the vectors: the concepts, and one more that
// every text has a little of (so no vector is zero).
const Dim = 16

// Vector is the concept vector of text: for each word, 1 in its concept's
// dimension; plus 0.1 in the last dimension.
func Vector(text string) []float32 {
	v := make([]float32, Dim)
	v[Dim-1] = 0.1
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '-'
	}) {
		if c, ok := concepts[w]; ok {
			v[c]++
		}
	}
	return v
}

// Rerank scores each document by the cosine of its concept vector with
// the query's, rounded to 4 decimals.
func Rerank(query string, docs []string) []float64 {
	q := Vector(query)
	out := make([]float64, len(docs))
	for i, d := range docs {
		out[i] = math.Round(cosine(q, Vector(d))*1e4) / 1e4
	}
	return out
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

// Dense is a deterministic dense embedding of dim dimensions, the vectors
// the benchmarks use (768 for SciFact): the sum over the first 16 distinct
// lower-cased words of the text of a pseudo-random normal vector seeded by
// the word, so texts that begin alike point the same way (16 words keep
// the stand-in's cost low; the vectors are dense either way).
func Dense(text string, dim int) []float32 {
	v := make([]float32, dim)
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if seen[w] {
			continue
		}
		if seen[w] = true; len(seen) > 16 {
			break
		}
		h := fnv.New64a()
		h.Write([]byte(w))
		r := rand.New(rand.NewPCG(h.Sum64(), 1))
		for j := range v {
			v[j] += float32(r.NormFloat64())
		}
	}
	return v
}
