package engine

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/porter"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/spanish"
	"golang.org/x/text/unicode/norm"
)

// maxTokenBytes drops longer tokens (base64 blobs, minified code): they
// cannot be typed as a query and would only bloat the vocabulary.
const maxTokenBytes = 255

// A Language is the language-dependent half of analysis: which words are
// stop words and how the remaining words are stemmed. Tokenisation is the
// same for every language.
type Language struct {
	// Name is the canonical name ("en", "de", ...).
	Name    string
	stop    map[string]bool
	stemmer func(*snowballstem.Env) bool
	// detect lists the function words that recognise the language.
	detect map[string]bool
}

// Stem returns the stem of one already folded word (the word itself for
// languages without a stemmer and for words without a letter).
func (l *Language) Stem(w string) string {
	if l.stemmer == nil || !hasLetter(w) {
		return w
	}
	// Lucene's PorterStemmer leaves words of one or two letters alone.
	if l.Name == "en-porter" && len(w) <= 2 {
		return w
	}
	env := snowballstem.NewEnv(w)
	l.stemmer(env)
	if s := env.Current(); s != "" {
		return s
	}
	return w
}

// IsStop reports whether w (folded) is a stop word of the language.
func (l *Language) IsStop(w string) bool { return l.stop[w] }

var languages = map[string]*Language{
	"en":        {Name: "en", stop: luceneEnglishStop, stemmer: english.Stem, detect: englishFunctionWords},
	"en-porter": {Name: "en-porter", stop: luceneEnglishStop, stemmer: porter.Stem, detect: englishFunctionWords},
	"de":        {Name: "de", stop: germanStop, stemmer: german.Stem, detect: germanStop},
	"fr":        {Name: "fr", stop: frenchStop, stemmer: french.Stem, detect: frenchStop},
	"it":        {Name: "it", stop: italianStop, stemmer: italian.Stem, detect: italianStop},
	"es":        {Name: "es", stop: spanishStop, stemmer: spanish.Stem, detect: spanishStop},
	"nl":        {Name: "nl", stop: dutchStop, stemmer: dutch.Stem, detect: dutchStop},
	"pt":        {Name: "pt", stop: portugueseStop, stemmer: portuguese.Stem, detect: portugueseStop},
	"simple":    {Name: "simple"},
	// cjk is Lucene's CJKAnalyzer in spirit: English stop words, no
	// stemming (CJK runs become bigrams under every language).
	"cjk": {Name: "cjk", stop: luceneEnglishStop},
}

var languageAliases = map[string]string{
	"english": "en", "en-porter2": "en", "porter2": "en", "en-snowball": "en", "porter": "en-porter", "anserini": "en-porter",
	"german": "de", "deutsch": "de", "french": "fr", "français": "fr", "francais": "fr",
	"italian": "it", "italiano": "it", "spanish": "es", "español": "es", "espanol": "es",
	"dutch": "nl", "nederlands": "nl", "portuguese": "pt", "português": "pt", "portugues": "pt",
	"none": "simple", "standard": "simple",
	"zh": "cjk", "ja": "cjk", "ko": "cjk", "chinese": "cjk", "japanese": "cjk", "korean": "cjk",
}

// LanguageNames lists the analyzer names LookupLanguage accepts (canonical
// names only), for messages.
func LanguageNames() []string {
	names := make([]string, 0, len(languages))
	for n := range languages {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LookupLanguage returns the language an analyzer name or lang tag names:
// "en", "en-porter", "de", "fr", "it", "es", "nl", "pt", "simple", their
// English names, and region forms such as "de-CH" or "pt_BR".
func LookupLanguage(name string) (*Language, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if l, ok := languages[n]; ok {
		return l, nil
	}
	if a, ok := languageAliases[n]; ok {
		return languages[a], nil
	}
	if base, _, ok := strings.Cut(strings.ReplaceAll(n, "_", "-"), "-"); ok {
		if l, ok := languages[base]; ok {
			return l, nil
		}
		if a, ok := languageAliases[base]; ok {
			return languages[a], nil
		}
	}
	return nil, fmt.Errorf("unknown analyzer %q (valid: %s)", name, strings.Join(LanguageNames(), ", "))
}

// tokenKind says how a raw token is normalised.
type tokenKind uint8

const (
	kindWord  tokenKind = iota // stop-word filtered and stemmed
	kindWhole                  // a compound kept whole (real-time, dec-0054): overlap, not stemmed
	kindCJK                    // a CJK character bigram (or lone character)
)

// rawToken is a token before the language-dependent step.
type rawToken struct {
	text string
	kind tokenKind
}

// Normalize folds text the way the index does: Unicode NFKC, then case
// folding (lower case), with typographic apostrophes and hyphens mapped to
// their ASCII forms and invalid UTF-8 replaced by spaces.
func Normalize(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return asciiLower(s)
	}
	s = strings.ToValidUTF8(s, " ")
	if !norm.NFKC.IsNormalString(s) {
		s = norm.NFKC.String(s)
	}
	s = strings.ToLower(s)
	return strings.Map(func(r rune) rune {
		switch r {
		case '\u2019', '\u2018', '\u02bc':
			return '\''
		case '\u2010', '\u2011', '\u2012', '\u2013':
			return '-'
		}
		return r
	}, s)
}

func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) || r == 'ー'
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '_' || 'A' <= r && r <= 'Z'
	}
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)) && !isCJK(r)
}

func isJoiner(r rune) bool {
	return r == '-' || r == '.' || r == '\'' || r == '/' || r == ','
}

// tokenize splits normalised text into raw tokens (see the package doc).
func tokenize(s string, emit func(rawToken)) {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r < utf8.RuneSelf && !isWordRune(r) {
			i++
			continue
		}
		switch {
		case isCJK(r):
			j := i
			var prev string
			count := 0
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if !isCJK(r2) {
					break
				}
				cur := s[j : j+n2]
				if prev != "" {
					emit(rawToken{text: s[j-len(prev) : j+n2], kind: kindCJK})
				}
				prev = cur
				count++
				j += n2
			}
			if count == 1 {
				emit(rawToken{text: prev, kind: kindCJK})
			}
			i = j
		case isWordRune(r):
			j := i + n
			joined := false
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if isWordRune(r2) {
					if r2 == '_' {
						joined = true
					}
					j += n2
					continue
				}
				if isJoiner(r2) && j+n2 < len(s) {
					r3, _ := utf8.DecodeRuneInString(s[j+n2:])
					if isWordRune(r3) && (r2 != ',' || isDigitByte(s[j-1]) && isDigitRune(r3)) {
						joined = true
						j += n2
						continue
					}
				}
				break
			}
			if r == '_' {
				joined = true
			}
			word := s[i:j]
			if joined {
				emitCompound(word, emit)
			} else {
				emitWord(word, emit)
			}
			i = j
		default:
			i += n
		}
	}
}

func isDigitByte(b byte) bool { return '0' <= b && b <= '9' }
func isDigitRune(r rune) bool { return '0' <= r && r <= '9' }
func hasLetter(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

func emitWord(w string, emit func(rawToken)) {
	if len(w) <= maxTokenBytes {
		emit(rawToken{text: w, kind: kindWord})
	}
}

// emitCompound emits the parts of a joined word as words and, when it has
// more than one part joined by something other than an apostrophe, the
// whole as an overlap token.
func emitCompound(w string, emit func(rawToken)) {
	// English possessive, as Lucene's EnglishPossessiveFilter: "model's" -> "model".
	w = strings.TrimSuffix(w, "'s")
	parts := 0
	nonApos := false
	start := 0
	for k := 0; k <= len(w); k++ {
		if k < len(w) && !isJoiner(rune(w[k])) && w[k] != '_' {
			continue
		}
		if k < len(w) && w[k] != '\'' {
			nonApos = true
		}
		part := w[start:k]
		prevApos := start > 0 && w[start-1] == '\''
		nextApos := k < len(w) && w[k] == '\''
		start = k + 1
		if part == "" {
			continue
		}
		// Elisions and clitics (l'homme, dell'acqua, don't): a one-letter
		// piece beside an apostrophe is dropped.
		if (prevApos || nextApos) && utf8.RuneCountInString(part) == 1 {
			continue
		}
		parts++
		emitWord(part, emit)
	}
	if nonApos && parts > 1 || nonApos && parts == 1 && strings.ContainsAny(w, "_") {
		if len(w) <= maxTokenBytes {
			emit(rawToken{text: w, kind: kindWhole})
		}
	}
}

// A Token is one analysed term.
type Token struct {
	Term string
	// Overlap marks a compound kept whole beside its parts; it does not
	// count towards the document length.
	Overlap bool
}

// Analyze returns the terms of text under language l, in order.
func (l *Language) Analyze(text string) []Token {
	var out []Token
	tokenize(Normalize(text), func(t rawToken) {
		if term, ok := l.term(t, nil); ok {
			out = append(out, Token{Term: term, Overlap: t.kind == kindWhole})
		}
	})
	return out
}

// term applies the language step to one raw token. cache, when non-nil,
// memoises stems (index building is single-threaded).
func (l *Language) term(t rawToken, cache map[string]string) (string, bool) {
	if t.kind != kindWord {
		return t.text, true
	}
	if l.stop[t.text] {
		return "", false
	}
	if cache != nil {
		if s, ok := cache[t.text]; ok {
			return s, true
		}
		s := l.Stem(t.text)
		cache[strings.Clone(t.text)] = s
		return s, true
	}
	return l.Stem(t.text), true
}

// detectLanguage recognises the language of a token sequence among the
// detectable languages by counting function words among its first 1000
// words; it returns fallback unless another language has at least 3 hits
// and twice the fallback's.
func detectLanguage(toks []rawToken, fallback *Language) *Language {
	var counts [8]int
	n := 0
	for _, t := range toks {
		if t.kind != kindWord {
			continue
		}
		if n++; n > 1000 {
			break
		}
		mask := functionWords[t.text]
		for i := 0; mask != 0; i, mask = i+1, mask>>1 {
			counts[i] += int(mask & 1)
		}
	}
	fb := 0
	for i, l := range detectable {
		if l == fallback {
			fb = counts[i]
		}
	}
	best, bestN := fallback, fb
	for i, l := range detectable {
		if l != fallback && counts[i] >= 3 && counts[i] >= 2*fb && counts[i] > bestN {
			best, bestN = l, counts[i]
		}
	}
	return best
}

// detectable are the languages detectLanguage chooses among.
var detectable = func() []*Language {
	var out []*Language
	for _, n := range []string{"en", "de", "fr", "it", "es", "nl", "pt"} {
		out = append(out, languages[n])
	}
	return out
}()

// functionWords maps a folded word to the bit set of detectable languages
// it is a function word of.
var functionWords = func() map[string]uint8 {
	m := map[string]uint8{}
	for i, l := range detectable {
		for w := range l.detect {
			m[w] |= 1 << i
		}
	}
	return m
}()

// queryTerms analyses a query under one or more languages. Each query token
// contributes a total weight of 1, split evenly over its distinct analyses
// (so a word every language stems alike counts once, and a single language
// gives each term a weight equal to its count, as Anserini's bag-of-words
// query does).
func queryTerms(q string, langs []*Language, analyze func(*Language, rawToken) (string, bool)) map[string]float64 {
	out := make(map[string]float64)
	var variants []string
	tokenize(Normalize(q), func(t rawToken) {
		variants = variants[:0]
		for _, l := range langs {
			if term, ok := analyze(l, t); ok && !slices.Contains(variants, term) {
				variants = append(variants, term)
			}
		}
		for _, v := range variants {
			out[v] += 1 / float64(len(variants))
		}
	})
	return out
}
