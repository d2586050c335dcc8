package grade

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/engine"
	"github.com/assay-eval/assay/sentence"
)

// LexicalSupportMin is the lexical overlap rule of attribution: a cited
// passage supports a sentence when at least this share of the sentence's
// distinct content terms occur in the passage. Content terms are those of
// the built-in engine's analysis (package engine: NFKC and case folding,
// the stop words of the case's tags.lang removed, words stemmed, CJK text
// as character bigrams), for the language of the case's tags.lang, English
// when it has none; a sentence with no content term is never supported by
// overlap.
const LexicalSupportMin = 0.6

// NuggetTest reports whether a text contains one nugget of a case (its
// match rule applied to that text).
type NuggetTest func(text string) bool

// CitedPassage is one passage a sentence cites.
type CitedPassage struct {
	// Key names the passage: the document key of the retrieved hit
	// (HitID), else the citation's id, path or title; "[n]" for a marker
	// beyond the ranking.
	Key string
	// Rank is the passage's 1-based rank in the ranking (Ranking), 0 when
	// it is not in it.
	Rank int
	// Passage is the text the sentence is checked against: the retrieved
	// hit's text, else the citation's quote ("" when neither is known).
	Passage string
	// Beyond marks a marker [n] whose n is beyond the ranking: it names
	// no document.
	Beyond bool
}

// CitedSentence is one sentence of an answer and what it cites.
type CitedSentence struct {
	// Span places the sentence in the answer (bytes); Text is the
	// sentence without its [n] markers.
	Span  sentence.Span
	Text  string
	Cites []CitedPassage
	seen  map[string]bool // the keys of Cites, once there are many
}

// CitedSentences splits the answer into sentences (package sentence) and
// reads what each one cites, in two ways that add up:
//
//   - a citation of obs.Citations that carries start (and end) offsets is
//     cited by every sentence its span [start, end) overlaps; a citation
//     with start only, or an empty span, is cited by the sentence that
//     holds position start (the last sentence starting at or before it).
//     Offsets count Unicode code points of the answer, from 0.
//   - a marker [n], [n, m] or [n][m] in the sentence cites the document at
//     rank n of the ranking (1-based); a rank beyond it is a citation of a
//     passage that supports nothing. Markers are read only when every
//     citation of obs.Citations has offsets (or there is none): a target
//     that lists its citations without offsets has said what the answer
//     cites, and bracketed numbers in its answer may be a quoted
//     document's own references.
//
// A passage cited twice by one sentence counts once; every sentence keeps
// its text without markers, read or not. Sentences are
// returned whether they cite anything or not.
func CitedSentences(obs assay.Observation) []CitedSentence {
	spans := sentence.Split(obs.Answer)
	if len(spans) == 0 {
		return nil
	}
	hits := rankedHits(obs)
	markers := true
	for _, c := range obs.Citations {
		if c.Start == nil {
			markers = false
		}
	}
	out := make([]CitedSentence, len(spans))
	for i, sp := range spans {
		raw := sp.Text(obs.Answer)
		text, ranks := stripMarkers(raw)
		out[i] = CitedSentence{Span: sp, Text: text}
		if !markers {
			continue
		}
		for _, n := range ranks {
			if n >= 1 && n <= len(hits) {
				h := hits[n-1]
				out[i].add(CitedPassage{Key: HitID(h), Rank: n, Passage: h.Text})
			} else {
				out[i].add(CitedPassage{Key: "[" + strconv.Itoa(n) + "]", Beyond: true})
			}
		}
	}
	var offs []int // byte offset of each code point, built on first use
	var idx hitIndex
	for _, c := range obs.Citations {
		if c.Start == nil {
			continue
		}
		if offs == nil {
			offs = runeOffsets(obs.Answer)
			idx = newHitIndex(hits)
		}
		s := byteAt(offs, *c.Start)
		e := s
		if c.End != nil {
			e = byteAt(offs, *c.End)
		}
		cited := idx.passage(c)
		if e > s {
			// The sentences are in order and do not overlap: from the
			// first that ends after s, while they start before e.
			for i := sort.Search(len(out), func(i int) bool { return out[i].Span.End > s }); i < len(out) && out[i].Span.Start < e; i++ {
				out[i].add(cited)
			}
			continue
		}
		at := max(sort.Search(len(out), func(i int) bool { return out[i].Span.Start > s })-1, 0)
		out[at].add(cited)
	}
	return out
}

func (s *CitedSentence) add(c CitedPassage) {
	if s.seen == nil && len(s.Cites) >= 8 {
		s.seen = make(map[string]bool, 2*len(s.Cites))
		for _, d := range s.Cites {
			s.seen[d.Key] = true
		}
	}
	if s.seen != nil {
		if s.seen[c.Key] {
			return
		}
		s.seen[c.Key] = true
	} else {
		for _, d := range s.Cites {
			if d.Key == c.Key {
				return
			}
		}
	}
	s.Cites = append(s.Cites, c)
}

// hitIndex finds the first ranked hit by its key (HitID), and by any of
// its id, path and title.
type hitIndex struct {
	hits          []assay.Hit
	byKey, byName map[string]int
}

func newHitIndex(hits []assay.Hit) hitIndex {
	x := hitIndex{hits: hits, byKey: make(map[string]int, len(hits)), byName: make(map[string]int, 3*len(hits))}
	for i, h := range hits {
		if k := HitID(h); k != "" {
			if _, ok := x.byKey[k]; !ok {
				x.byKey[k] = i
			}
		}
		for _, v := range [3]string{h.ID, h.Path, h.Title} {
			if _, ok := x.byName[v]; v != "" && !ok {
				x.byName[v] = i
			}
		}
	}
	return x
}

// passage is the passage a citation names: the retrieved hit that
// surfaces it (Surfaced's rule: by id when the citation has one, else by
// its path or title against any name of a hit), else the citation alone
// with its quote.
func (x hitIndex) passage(c assay.Citation) CitedPassage {
	i, ok := x.byKey[c.ID]
	if c.ID == "" {
		if i, ok = x.byName[c.Path]; c.Path == "" || !ok {
			i, ok = x.byName[c.Title]
			ok = ok && c.Title != ""
		}
	}
	if ok {
		h := x.hits[i]
		text := h.Text
		if text == "" {
			text = c.Quote
		}
		return CitedPassage{Key: HitID(h), Rank: i + 1, Passage: text}
	}
	key := c.ID
	if key == "" {
		key = c.Path
	}
	if key == "" {
		key = c.Title
	}
	return CitedPassage{Key: key, Passage: c.Quote}
}

// runeOffsets returns the byte offset of each code point of s, and len(s)
// last.
func runeOffsets(s string) []int {
	offs := make([]int, 0, len(s)+1)
	for i := range s {
		offs = append(offs, i)
	}
	return append(offs, len(s))
}

// byteAt is the byte offset of code point n (clamped to the text).
func byteAt(offs []int, n int) int {
	switch {
	case n <= 0:
		return 0
	case n >= len(offs):
		return offs[len(offs)-1]
	}
	return offs[n]
}

// stripMarkers returns s without its citation markers ([1], [2, 3], with
// the white space before them) and the ranks they name, in order.
func stripMarkers(s string) (string, []int) {
	if strings.IndexByte(s, '[') < 0 {
		return s, nil
	}
	var b strings.Builder
	var ranks []int
	i := 0
	for i < len(s) {
		j := strings.IndexByte(s[i:], '[')
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		j += i
		nums, end, ok := sentence.Marker(s, j)
		if !ok {
			b.WriteString(s[i : j+1])
			i = j + 1
			continue
		}
		b.WriteString(strings.TrimRight(s[i:j], " \t"))
		ranks = append(ranks, nums...)
		i = end
	}
	return strings.TrimSpace(b.String()), ranks
}

// Attribute grades the answer's sentences (CitedSentences): a sentence is
// supported when a passage it cites supports it, unsupported when it cites
// passages and none does, uncited when it cites nothing. A cited passage
// supports a sentence when a nugget of the case (nuggets) is found both
// in the sentence and in the passage (By "nugget"), or else by the lexical
// overlap rule (LexicalSupportMin; By "overlap"). lang is the case's
// tags.lang.
//
// It returns nil, and no metrics, when the observation errored or no
// sentence cites anything: attribution is undefined then, never 0.
// Otherwise the metrics are support_rate (supported sentences over cited
// sentences), citation_precision (supporting citations over citations,
// a citation being one passage cited by one sentence) and citation_recall
// (supported sentences over all sentences), TREC RAG's support precision
// and recall with every support judgment full or none.
func Attribute(obs assay.Observation, lang string, nuggets []NuggetTest) (*assay.Attribution, map[string]float64) {
	if obs.Error != nil {
		return nil, nil
	}
	sents := CitedSentences(obs)
	cited := 0
	for _, s := range sents {
		if len(s.Cites) > 0 {
			cited++
		}
	}
	if cited == 0 {
		return nil, nil
	}
	an := newAnalyzer(lang)
	passages := map[string]map[string]bool{} // terms of each passage, by key
	a := &assay.Attribution{Sentences: make([]assay.SentenceSupport, len(sents))}
	supported, pairs, supporting := 0, 0, 0
	for i, s := range sents {
		out := assay.SentenceSupport{Text: s.Text, Label: assay.Uncited}
		if len(s.Cites) > 0 {
			out.Label = assay.Unsupported
			var inSentence []NuggetTest
			for _, n := range nuggets {
				if n != nil && n(s.Text) {
					inSentence = append(inSentence, n)
				}
			}
			var terms map[string]bool
			for _, c := range s.Cites {
				out.Cites = append(out.Cites, c.Key)
				pairs++
				by := ""
				for _, n := range inSentence {
					if c.Passage != "" && n(c.Passage) {
						by = "nugget"
						break
					}
				}
				if by == "" && c.Passage != "" {
					if terms == nil {
						terms = an.terms(s.Text)
					}
					pt, ok := passages[c.Key]
					if !ok {
						pt = an.terms(c.Passage)
						passages[c.Key] = pt
					}
					if overlaps(terms, pt) {
						by = "overlap"
					}
				}
				if by == "" {
					continue
				}
				supporting++
				out.Supporting = append(out.Supporting, c.Key)
				if out.By == "" || by == "nugget" {
					out.By = by
				}
			}
			if len(out.Supporting) > 0 {
				out.Label = assay.Supported
				supported++
			}
		}
		a.Sentences[i] = out
	}
	m := map[string]float64{
		assay.MetricSupportRate:       float64(supported) / float64(cited),
		assay.MetricCitationPrecision: float64(supporting) / float64(pairs),
		assay.MetricCitationRecall:    float64(supported) / float64(len(sents)),
	}
	return a, m
}

// overlaps is the lexical rule: at least LexicalSupportMin of the
// sentence's terms are in the passage's.
func overlaps(sentence, passage map[string]bool) bool {
	if len(sentence) == 0 {
		return false
	}
	in := 0
	for t := range sentence {
		if passage[t] {
			in++
		}
	}
	return float64(in) >= LexicalSupportMin*float64(len(sentence))
}

type analyzer struct{ l *engine.Language }

// newAnalyzer is the engine's analysis for a case's tags.lang: English when
// it has none, no stop words and no stemming for a language the engine
// does not know.
func newAnalyzer(lang string) analyzer {
	if lang == "" {
		lang = "en"
	}
	l, err := engine.LookupLanguage(lang)
	if err != nil {
		l, _ = engine.LookupLanguage("simple")
	}
	return analyzer{l}
}

// terms returns the distinct content terms of text (compounds kept whole
// beside their parts are left out: their parts count).
func (a analyzer) terms(text string) map[string]bool {
	out := map[string]bool{}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, " ")
	}
	for _, t := range a.l.Analyze(text) {
		if !t.Overlap {
			out[t.Term] = true
		}
	}
	return out
}

// nuggetTests are the attribution tests of the case's expect.nuggets: each
// finds its nugget in a text by the nugget's own rule (MatchNugget), and
// only a whole match counts (a partly supported nugget is not in the text).
func nuggetTests(c assay.Case, caseSensitive bool) []NuggetTest {
	if len(c.Expect.Nuggets) == 0 {
		return nil
	}
	out := make([]NuggetTest, len(c.Expect.Nuggets))
	for i, n := range c.Expect.Nuggets {
		out[i] = func(text string) bool {
			return MatchNugget(text, n, caseSensitive).Assignment == assay.NuggetSupport
		}
	}
	return out
}
