package engine

import (
	"math"
	"slices"
	"strings"
)

// Answerer settings (see the package doc for the rule they implement).
const (
	// AnswerDocs is how many top results supply candidate sentences.
	AnswerDocs = 5
	// MaxAnswerSentences bounds the answer's length.
	MaxAnswerSentences = 3
	// MinCoverage is the share of the question's weight the chosen
	// sentences (with their documents' titles) must cover to answer.
	MinCoverage = 0.5
	// titleWeight is the credit a question term gets when it occurs only in
	// the sentence's document title, not in the sentence.
	titleWeight = 0.5
)

// RefusalText is the fixed answer of a refusal. It contains "cannot
// answer", one of assay's default refusal markers.
const RefusalText = "I cannot answer this from the corpus: no document matches enough of the question."

// questionWords are dropped from the question before coverage is measured,
// beside each language's stop and function words.
var questionWords = words(`what which who whom whose when where why how does do did is are was were
can could should would will shall may might tell me explain describe please list give show
was wer wie wo wann warum welche welcher welches quoi quel quelle quels quelles comment pourquoi
où quand cosa quale quali come perché dove quando chi qué cuál cuáles cómo por dónde cuándo quién
wat welke hoe waarom waar wanneer o que qual quais como porquê onde quando quem`)

// Sentence is one sentence of an answer.
type Sentence struct {
	// Doc is the corpus index of the document it came from; Rank its
	// position in the results (0-based).
	Doc, Rank int
	Text      string
	// Score is the sentence's share of the question's weight (title terms
	// at half credit).
	Score float64
}

// Answer is the answerer's output.
type Answer struct {
	Text      string
	Sentences []Sentence // in answer order
	Refused   bool
	// Coverage is the share of the question's weight the chosen sentences
	// cover (0 when there is nothing to cover).
	Coverage float64
}

// Docs returns the corpus indexes of the documents that supplied a
// sentence, in answer order without repeats.
func (a Answer) Docs() []int {
	var out []int
	for _, s := range a.Sentences {
		if !slices.Contains(out, s.Doc) {
			out = append(out, s.Doc)
		}
	}
	return out
}

type weightedSet map[string]float64

// Answer builds a deterministic extractive answer to q from results (the
// ranking Search returned for it).
func (ix *Index) Answer(q Query, results []Result) Answer {
	if len(results) == 0 {
		return Answer{Text: RefusalText, Refused: true}
	}
	type cand struct {
		Sentence
		pos   int
		terms map[string]bool
		qw    weightedSet
	}
	var cands []cand
	qCache := map[*Language]weightedSet{}
	for rank, r := range results[:min(AnswerDocs, len(results))] {
		l := ix.langs[r.Doc]
		qw, ok := qCache[l]
		if !ok {
			qw = ix.questionWeights(q.Text, l)
			qCache[l] = qw
		}
		if len(qw) == 0 {
			continue
		}
		doc := ix.docs[r.Doc]
		title := termSet(doc.Title+" "+doc.Path, l)
		for pos, s := range SplitSentences(doc.Text) {
			ts := termSet(s, l)
			score := 0.0
			for t, w := range qw {
				if ts[t] {
					score += w
				} else if title[t] {
					score += titleWeight * w
				}
			}
			if score > 0 {
				cands = append(cands, cand{Sentence: Sentence{Doc: r.Doc, Rank: rank, Text: s, Score: score}, pos: pos, terms: ts, qw: qw})
			}
		}
	}
	if len(cands) == 0 {
		return Answer{Text: RefusalText, Refused: true}
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		switch {
		case a.Score != b.Score:
			if a.Score > b.Score {
				return -1
			}
			return 1
		case a.Rank != b.Rank:
			return a.Rank - b.Rank
		}
		return a.pos - b.pos
	})
	best := cands[0]
	chosen := []cand{best}
	covered := map[string]bool{}
	for t := range best.terms {
		covered[t] = true
	}
	for _, c := range cands[1:] {
		if len(chosen) == MaxAnswerSentences || c.Score < best.Score/2 {
			break
		}
		if slices.ContainsFunc(chosen, func(x cand) bool { return x.Text == c.Text }) {
			continue
		}
		chosen = append(chosen, c)
	}
	// Coverage of the chosen sentences, measured with the best sentence's
	// question weights and document title.
	title := termSet(ix.docs[best.Doc].Title+" "+ix.docs[best.Doc].Path, ix.langs[best.Doc])
	cov := 0.0
	for t, w := range best.qw {
		switch {
		case slices.ContainsFunc(chosen, func(c cand) bool { return c.terms[t] }):
			cov += w
		case title[t]:
			cov += titleWeight * w
		}
	}
	if cov < MinCoverage {
		return Answer{Text: RefusalText, Refused: true, Coverage: cov}
	}
	slices.SortStableFunc(chosen, func(a, b cand) int {
		if a.Rank != b.Rank {
			return a.Rank - b.Rank
		}
		return a.pos - b.pos
	})
	a := Answer{Coverage: cov}
	texts := make([]string, len(chosen))
	for i, c := range chosen {
		a.Sentences = append(a.Sentences, c.Sentence)
		texts[i] = c.Text
	}
	a.Text = strings.Join(texts, " ")
	return a
}

// questionWeights returns the question's content terms under l, weighted by
// idf and normalised to sum to 1. A term the corpus lacks gets the largest
// possible idf: the corpus cannot support that part of the question.
func (ix *Index) questionWeights(q string, l *Language) weightedSet {
	N := float64(ix.docCount)
	maxIDF := math.Log(1 + (N+0.5)/0.5)
	out := weightedSet{}
	tokenize(Normalize(q), func(t rawToken) {
		if t.kind == kindWhole {
			return
		}
		if t.kind == kindWord && (l.stop[t.text] || l.detect[t.text] || questionWords[t.text]) {
			return
		}
		term, ok := l.term(t, nil)
		if !ok {
			return
		}
		idf := maxIDF
		if id, ok := ix.vocab[term]; ok {
			df := float64(len(ix.postings[id]))
			idf = math.Log(1 + (N-df+0.5)/(df+0.5))
		}
		out[term] = idf
	})
	sum := 0.0
	for _, w := range out {
		sum += w
	}
	if sum <= 0 {
		return weightedSet{}
	}
	for t := range out {
		out[t] /= sum
	}
	return out
}

func termSet(s string, l *Language) map[string]bool {
	out := map[string]bool{}
	tokenize(Normalize(s), func(t rawToken) {
		if term, ok := l.term(t, nil); ok {
			out[term] = true
		}
	})
	return out
}
