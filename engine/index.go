package engine

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"

	"github.com/assay-eval/assay"
)

// Options configure an index. The zero value is not useful: start from
// DefaultOptions.
type Options struct {
	// K1 and B are BM25's term-frequency saturation and length
	// normalisation (Anserini's defaults: 0.9 and 0.4).
	K1, B float64
	// Analyzer is the default language of documents and queries ("en",
	// "de", ...). Empty means: recognise each document's language from its
	// lang field, its path's first segment, or its function words, falling
	// back to English.
	Analyzer string
	// RM3 expands every query with pseudo-relevance feedback.
	RM3 bool
	// RM3 parameters (Anserini's defaults: 10, 10, 0.5).
	FbDocs, FbTerms     int
	OriginalQueryWeight float64
}

// DefaultOptions are Anserini's BM25 defaults with RM3 off.
func DefaultOptions() Options {
	return Options{K1: 0.9, B: 0.4, FbDocs: 10, FbTerms: 10, OriginalQueryWeight: 0.5}
}

// Validate reports options that cannot be used.
func (o Options) Validate() error {
	switch {
	case !(o.K1 >= 0) || math.IsInf(o.K1, 0):
		return fmt.Errorf("k1 must be a number >= 0, got %v", o.K1)
	case !(o.B >= 0 && o.B <= 1):
		return fmt.Errorf("b must be between 0 and 1, got %v", o.B)
	case o.FbDocs < 1:
		return fmt.Errorf("fb_docs must be >= 1, got %d", o.FbDocs)
	case o.FbTerms < 1:
		return fmt.Errorf("fb_terms must be >= 1, got %d", o.FbTerms)
	case !(o.OriginalQueryWeight >= 0 && o.OriginalQueryWeight <= 1):
		return fmt.Errorf("original_query_weight must be between 0 and 1, got %v", o.OriginalQueryWeight)
	}
	if o.Analyzer != "" && o.Analyzer != "auto" {
		if _, err := LookupLanguage(o.Analyzer); err != nil {
			return err
		}
	}
	return nil
}

// posting is one document of a term's postings list.
type posting struct {
	doc uint32
	tf  uint32
}

// termFreq is one term of a document's term vector.
type termFreq struct {
	term uint32
	tf   uint32
}

// Index is an immutable in-memory BM25 index over a corpus. It is safe for
// concurrent use.
type Index struct {
	opts  Options
	docs  []assay.Document
	langs []*Language // per document
	// corpusLangs are the distinct document languages, in first-seen order.
	corpusLangs []*Language
	defaultLang *Language // nil when Options.Analyzer is empty

	vocab    map[string]uint32
	terms    []string
	postings [][]posting
	// docTerms holds each document's (term, tf) list, sorted by term id,
	// for RM3 feedback and the answerer.
	docTerms [][]termFreq
	norms    []uint8 // SmallFloat.intToByte4(length)
	lengths  []uint32
	docCount int // documents with at least one term
	avgdl    float32
	cache    [256]float32 // 1 / (k1 * (1 - b + b * dl/avgdl)) per norm byte

	// wordIDs maps, per language, each word as written in the corpus to
	// its term id (stopID for a stop word). Read-only after Build.
	wordIDs map[*Language]map[string]uint32

	accPool sync.Pool
}

// Build indexes docs (in the order given; ties rank in this order).
func Build(docs []assay.Document, o Options) (*Index, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	ix := &Index{opts: o, docs: docs, vocab: make(map[string]uint32)}
	if o.Analyzer != "" && o.Analyzer != "auto" {
		ix.defaultLang, _ = LookupLanguage(o.Analyzer)
	}
	if len(docs) > math.MaxUint32/2 {
		return nil, errors.New("corpus too large")
	}
	wordIDs := make(map[*Language]map[string]uint32)
	ix.wordIDs = wordIDs
	ix.langs = make([]*Language, len(docs))
	ix.norms = make([]uint8, len(docs))
	ix.lengths = make([]uint32, len(docs))
	ix.docTerms = make([][]termFreq, len(docs))
	var sumTTF int64
	var ids []uint32
	var toks []rawToken
	for d, doc := range docs {
		toks = toks[:0]
		tokenize(Normalize(docText(doc)), func(t rawToken) { toks = append(toks, t) })
		l := ix.docLanguage(doc, toks)
		ix.langs[d] = l
		if !slices.Contains(ix.corpusLangs, l) {
			ix.corpusLangs = append(ix.corpusLangs, l)
		}
		// cache maps a word as written to its term id (stopID: a stop
		// word), so most tokens cost one map lookup.
		cache := wordIDs[l]
		if cache == nil {
			cache = make(map[string]uint32)
			wordIDs[l] = cache
		}
		ids = ids[:0]
		length := 0
		add := func(t rawToken) {
			if t.kind == kindWord {
				if id, ok := cache[t.text]; ok {
					if id != stopID {
						ids = append(ids, id)
						length++
					}
					return
				}
			}
			term, ok := l.term(t, nil)
			id := uint32(stopID)
			if ok {
				id = ix.termID(term)
				ids = append(ids, id)
				if t.kind != kindWhole {
					length++
				}
			}
			if t.kind == kindWord {
				cache[strings.Clone(t.text)] = id
			}
		}
		for _, t := range toks {
			add(t)
		}
		slices.Sort(ids)
		var dt []termFreq
		for i := 0; i < len(ids); {
			j := i + 1
			for j < len(ids) && ids[j] == ids[i] {
				j++
			}
			dt = append(dt, termFreq{term: ids[i], tf: uint32(j - i)})
			ix.postings[ids[i]] = append(ix.postings[ids[i]], posting{doc: uint32(d), tf: uint32(j - i)})
			i = j
		}
		ix.docTerms[d] = dt
		sumTTF += int64(len(ids))
		if len(ids) > 0 {
			ix.docCount++
		}
		ix.lengths[d] = uint32(length)
		ix.norms[d] = intToByte4(length)
	}
	if ix.docCount > 0 {
		ix.avgdl = float32(float64(sumTTF) / float64(ix.docCount))
	} else {
		ix.avgdl = 1
	}
	k1, b := float32(o.K1), float32(o.B)
	for i := range ix.cache {
		ix.cache[i] = 1 / (k1 * ((1 - b) + b*float32(byte4ToInt(uint8(i)))/ix.avgdl))
	}
	return ix, nil
}

const stopID = math.MaxUint32

// termID returns the id of term, adding it to the vocabulary.
func (ix *Index) termID(term string) uint32 {
	id, ok := ix.vocab[term]
	if !ok {
		id = uint32(len(ix.terms))
		term = strings.Clone(term)
		ix.vocab[term] = id
		ix.terms = append(ix.terms, term)
		ix.postings = append(ix.postings, nil)
	}
	return id
}

// lookup returns the term id of a raw token under l, and whether the
// corpus has that term (false for stop words and unknown terms). term is
// the analysed form when the token is not a stop word.
func (ix *Index) lookup(l *Language, t rawToken) (id uint32, term string, ok bool) {
	if t.kind == kindWord {
		if id, ok := ix.wordIDs[l][t.text]; ok {
			if id == stopID {
				return stopID, "", false
			}
			return id, ix.terms[id], true
		}
	}
	term, ok = l.term(t, nil)
	if !ok {
		return stopID, "", false
	}
	id, ok = ix.vocab[term]
	if !ok {
		return stopID, term, false
	}
	return id, term, true
}

// docText is what a document is indexed as: title + " " + text (BEIR's flat
// index), plus its path when it has one.
func docText(d assay.Document) string {
	var sb strings.Builder
	sb.Grow(len(d.Title) + len(d.Text) + len(d.Path) + 2)
	sb.WriteString(d.Title)
	sb.WriteByte(' ')
	sb.WriteString(d.Text)
	if d.Path != "" {
		sb.WriteByte(' ')
		sb.WriteString(d.Path)
	}
	return sb.String()
}

// docLanguage chooses a document's language: its Lang field, Meta["lang"],
// the first segment of its path when that is a language code ("de/x.md"),
// the index's analyzer option, or the language its function words point to.
func (ix *Index) docLanguage(d assay.Document, toks []rawToken) *Language {
	for _, c := range []string{d.Lang, d.Meta["lang"]} {
		if c != "" {
			if l, err := LookupLanguage(c); err == nil {
				return l
			}
		}
	}
	for _, p := range []string{d.Path, d.ID} {
		if first, _, ok := strings.Cut(p, "/"); ok {
			if l, ok := languages[strings.ToLower(first)]; ok && len(first) == 2 {
				return l
			}
		}
	}
	if ix.defaultLang != nil {
		return ix.defaultLang
	}
	return detectLanguage(toks, languages["en"])
}

// Len returns the number of documents.
func (ix *Index) Len() int { return len(ix.docs) }

// Doc returns document i.
func (ix *Index) Doc(i int) assay.Document { return ix.docs[i] }

// DocLanguage returns the language document i was analysed with.
func (ix *Index) DocLanguage(i int) string { return ix.langs[i].Name }

// Languages returns the distinct document languages.
func (ix *Index) Languages() []string {
	out := make([]string, len(ix.corpusLangs))
	for i, l := range ix.corpusLangs {
		out[i] = l.Name
	}
	return out
}

// Options returns the options the index was built with.
func (ix *Index) Options() Options { return ix.opts }

// Stats are index statistics.
type Stats struct {
	Docs, DocCount, Terms int
	AvgDL                 float64
}

// Stats returns index statistics.
func (ix *Index) Stats() Stats {
	return Stats{Docs: len(ix.docs), DocCount: ix.docCount, Terms: len(ix.terms), AvgDL: float64(ix.avgdl)}
}

// A Result is one ranked document.
type Result struct {
	Doc   int // index into the corpus
	ID    string
	Score float64
}

// Query is a search request.
type Query struct {
	Text string
	// K is the number of results (DefaultK when <= 0).
	K int
	// Lang is the query's language (a case's lang tag). Empty means the
	// index's analyzer option, or every language of the corpus.
	Lang string
	// RM3 overrides the index option when non-nil.
	RM3 *bool
}

// DefaultK is the number of results when a query does not say.
const DefaultK = 10

// queryLanguages chooses the analyses a query runs under.
func (ix *Index) queryLanguages(lang string) []*Language {
	var out []*Language
	if lang != "" {
		if l, err := LookupLanguage(lang); err == nil {
			out = append(out, l)
		}
	}
	if len(out) == 0 && ix.defaultLang != nil {
		out = append(out, ix.defaultLang)
	}
	// Documents in other languages are reached through their own analysis.
	for _, l := range ix.corpusLangs {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		out = append(out, languages["en"])
	}
	return out
}

// Terms returns the weighted query terms q analyses to (before RM3).
func (ix *Index) Terms(q Query) map[string]float64 {
	return queryTerms(q.Text, ix.queryLanguages(q.Lang), func(l *Language, t rawToken) (string, bool) {
		_, term, _ := ix.lookup(l, t)
		return term, term != ""
	})
}

// Search ranks the corpus for q: BM25, optionally expanded by RM3.
func (ix *Index) Search(q Query) []Result {
	k := q.K
	if k <= 0 {
		k = DefaultK
	}
	rm3 := ix.opts.RM3
	if q.RM3 != nil {
		rm3 = *q.RM3
	}
	return ix.SearchTerms(ix.Terms(q), k, rm3)
}

// SearchTerms ranks the corpus for already analysed query terms (as Terms
// returns them), keeping the k best.
func (ix *Index) SearchTerms(weights map[string]float64, k int, rm3 bool) []Result {
	return ix.SearchTermsIn(weights, k, rm3, nil)
}

// SearchTermsIn is SearchTerms over the documents keep accepts (all when
// keep is nil): a collection. Term statistics (N, df, avgdl) stay those
// of the whole corpus, so a document scores the same in its collection as
// in the corpus; RM3 takes its feedback documents from the kept ones.
func (ix *Index) SearchTermsIn(weights map[string]float64, k int, rm3 bool, keep func(doc int) bool) []Result {
	if k <= 0 {
		k = DefaultK
	}
	if rm3 && len(weights) > 0 {
		first := ix.score(weights, ix.opts.FbDocs, keep)
		weights = ix.expand(weights, first)
	}
	return ix.score(weights, k, keep)
}

// Collection is a document's collection: its metadata field "collection"
// when it has one, else the first segment of its path ("en/setup.md" is in
// "en"), else "" (none).
func Collection(d assay.Document) string {
	if c := d.Meta["collection"]; c != "" {
		return c
	}
	if seg, _, ok := strings.Cut(d.Path, "/"); ok {
		return seg
	}
	return ""
}

type weightedTerm struct {
	id     uint32
	weight float32
}

// score runs a bag-of-words query: the sum over query terms of
// boost * idf * tf / (tf + k1 * (1 - b + b * dl/avgdl)), in Lucene's float
// arithmetic.
func (ix *Index) score(weights map[string]float64, k int, keep func(doc int) bool) []Result {
	qt := make([]weightedTerm, 0, len(weights))
	for t, w := range weights {
		if id, ok := ix.vocab[t]; ok && w > 0 {
			qt = append(qt, weightedTerm{id, float32(w)})
		}
	}
	if len(qt) == 0 {
		return nil
	}
	// A fixed term order makes float sums reproducible.
	slices.SortFunc(qt, func(a, b weightedTerm) int { return cmp.Compare(a.id, b.id) })

	acc := ix.getAcc()
	defer ix.accPool.Put(acc)
	N := float64(ix.docCount)
	for _, t := range qt {
		ps := ix.postings[t.id]
		df := float64(len(ps))
		idf := float32(math.Log(1 + (N-df+0.5)/(df+0.5)))
		w := t.weight * idf
		for _, p := range ps {
			if keep != nil && !keep(int(p.doc)) {
				continue
			}
			normInv := float64(ix.cache[ix.norms[p.doc]])
			s := float32(float64(w) - float64(w)/(1+float64(p.tf)*normInv))
			if acc.score[p.doc] == 0 && !acc.seen[p.doc] {
				acc.seen[p.doc] = true
				acc.touched = append(acc.touched, p.doc)
			}
			acc.score[p.doc] += float64(s)
		}
	}
	res := topK(acc, k)
	out := make([]Result, len(res))
	for i, r := range res {
		out[i] = Result{Doc: int(r.doc), ID: ix.docs[r.doc].ID, Score: float64(r.score)}
	}
	acc.reset()
	return out
}

type accumulator struct {
	score   []float64
	seen    []bool
	touched []uint32
}

func (a *accumulator) reset() {
	for _, d := range a.touched {
		a.score[d] = 0
		a.seen[d] = false
	}
	a.touched = a.touched[:0]
}

func (ix *Index) getAcc() *accumulator {
	if a, ok := ix.accPool.Get().(*accumulator); ok {
		return a
	}
	return &accumulator{score: make([]float64, len(ix.docs)), seen: make([]bool, len(ix.docs))}
}

type scored struct {
	doc   uint32
	score float32
}

// better orders by score descending, then document order.
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.doc < b.doc
}

type minHeap []scored

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func topK(acc *accumulator, k int) []scored {
	h := make(minHeap, 0, min(k, len(acc.touched)))
	for _, d := range acc.touched {
		s := scored{doc: d, score: float32(acc.score[d])}
		if len(h) < k {
			heap.Push(&h, s)
		} else if better(s, h[0]) {
			h[0] = s
			heap.Fix(&h, 0)
		}
	}
	return sortBest([]scored(h))
}

// intToByte4 is Lucene's SmallFloat.intToByte4: lengths below 24 are exact,
// larger ones keep 4 significant bits.
func intToByte4(i int) uint8 {
	const numFree = 24 // 255 - longToInt4(MaxInt32)
	if i < numFree {
		return uint8(i)
	}
	return uint8(numFree + longToInt4(uint64(i-numFree)))
}

func longToInt4(i uint64) int {
	numBits := bits.Len64(i)
	if numBits < 4 {
		return int(i)
	}
	shift := numBits - 4
	encoded := int(i>>uint(shift)) & 0x07
	encoded |= (shift + 1) << 3
	return encoded
}

// byte4ToInt is Lucene's SmallFloat.byte4ToInt.
func byte4ToInt(b uint8) int {
	const numFree = 24
	i := int(b)
	if i < numFree {
		return i
	}
	return numFree + int(int4ToLong(i-numFree))
}

func int4ToLong(i int) int64 {
	bits := int64(i & 0x07)
	shift := (i >> 3) - 1
	if shift == -1 {
		return bits
	}
	return (bits | 0x08) << uint(shift)
}

// sortBest sorts out best first (better, then the tie rule it holds) and
// returns it: the order of every top-k list of the engine, lexical or
// dense.
func sortBest(out []scored) []scored {
	slices.SortFunc(out, func(a, b scored) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	return out
}
