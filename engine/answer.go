package engine

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"
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
can could should would will shall may might tell me explain describe please give show
within without across among upon via per onto toward towards versus also any some
was wer wie wo wann warum welche welcher welches quoi quel quelle quels quelles comment pourquoi
où quand cosa quale quali come perché dove quando chi qué cuál cuáles cómo por dónde cuándo quién
wat welke hoe waarom waar wanneer o que qual quais como porquê onde quando quem`)

// cjkQuestionPairs are the character pairs of Chinese, Japanese and
// Korean question words, left out of a question like questionWords.
var cjkQuestionPairs = words(`什么 什麼 如何 怎么 怎麼 怎样 怎樣 为什 為什 哪些 哪个 哪個 哪里 哪裡 多少 是否 是不
吗 嗎 呢 请问 請問 ですか ますか どう どの どこ いつ なぜ なに 何が 何を 何で いくら
무엇 어떻 어디 언제 왜 누가 얼마 입니까 습니까`)

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

// qterm is one content term of a question: its id (stopID when the corpus
// lacks it) and its normalised weight.
type qterm struct {
	id uint32
	w  float64
}

type idSet map[uint32]struct{}

func (s idSet) has(id uint32) bool { _, ok := s[id]; return ok }

// Answer builds a deterministic extractive answer to q from results (the
// ranking Search returned for it).
func (ix *Index) Answer(q Query, results []Result) Answer {
	if len(results) == 0 {
		return Answer{Text: RefusalText, Refused: true}
	}
	type cand struct {
		Sentence
		pos   int
		terms idSet
		qw    []qterm
	}
	var cands []cand
	qCache := map[*Language][]qterm{}
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
		title := ix.termSet(doc.Title+" "+doc.Path, l)
		for pos, s := range SplitSentences(doc.Text) {
			ts := ix.termSet(s, l)
			score := 0.0
			for _, t := range qw {
				if ts.has(t.id) {
					score += t.w
				} else if title.has(t.id) {
					score += titleWeight * t.w
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
	title := ix.termSet(ix.docs[best.Doc].Title+" "+ix.docs[best.Doc].Path, ix.langs[best.Doc])
	cov := 0.0
	for _, t := range best.qw {
		switch {
		case slices.ContainsFunc(chosen, func(c cand) bool { return c.terms.has(t.id) }):
			cov += t.w
		case title.has(t.id):
			cov += titleWeight * t.w
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
func (ix *Index) questionWeights(q string, l *Language) []qterm {
	N := float64(ix.docCount)
	maxIDF := math.Log(1 + (N+0.5)/0.5)
	type tok struct {
		t         rawToken
		id        uint32
		term      string
		known     bool
		nextJoins bool // a CJK bigram whose last character starts the next token
	}
	var toks []tok
	tokenize(Normalize(q), func(t rawToken) {
		if t.kind == kindWord && (l.stop[t.text] || l.detect[t.text] || questionWords[t.text]) {
			return
		}
		id, term, known := ix.lookup(l, t)
		if n := len(toks); n > 0 && t.kind == kindCJK && toks[n-1].t.kind == kindCJK {
			_, size := utf8.DecodeRuneInString(t.text)
			toks[n-1].nextJoins = strings.HasSuffix(toks[n-1].t.text, t.text[:size])
		}
		toks = append(toks, tok{t: t, id: id, term: term, known: known})
	})
	var out []qterm
	seen := map[string]bool{}
	for i, k := range toks {
		if k.term == "" || seen[k.term] {
			continue
		}
		if k.t.kind == kindCJK {
			// Chinese, Japanese and Korean text is indexed as overlapping
			// character pairs, so a question's pairs that straddle two
			// words ("高数" of "提高数据") are in no document. Such a pair
			// next to one the corpus knows says nothing the known pairs
			// do not; the question's own words ("如何", "什么") say
			// nothing of its subject. Both are left out. A pair the
			// corpus lacks with no known neighbour still counts in full,
			// so a question about something else is still refused.
			if cjkQuestionPairs[k.t.text] {
				continue
			}
			if !k.known && ((i > 0 && toks[i-1].nextJoins && toks[i-1].known) || (k.nextJoins && i+1 < len(toks) && toks[i+1].known)) {
				continue
			}
		}
		seen[k.term] = true
		idf := maxIDF
		if k.known {
			df := float64(len(ix.postings[k.id]))
			idf = math.Log(1 + (N-df+0.5)/(df+0.5))
		}
		out = append(out, qterm{id: k.id, w: idf})
	}
	sum := 0.0
	for _, t := range out {
		sum += t.w
	}
	if sum <= 0 {
		return nil
	}
	for i := range out {
		out[i].w /= sum
	}
	return out
}

// termSet returns the ids of the corpus terms s contains under l.
func (ix *Index) termSet(s string, l *Language) idSet {
	out := idSet{}
	tokenize(Normalize(s), func(t rawToken) {
		if id, _, ok := ix.lookup(l, t); ok {
			out[id] = struct{}{}
		}
	})
	return out
}
