package sentence

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is one sentence: the bytes [Start, End) of the text it was split
// from.
type Span struct {
	Start, End int
}

// Text returns the span's sentence in text.
func (s Span) Text(text string) string { return text[s.Start:s.End] }

// abbreviations end with a period that does not end a sentence (lower case,
// without the final period).
var abbreviations = words(`e.g i.e etc vs cf al approx ca fig figs eq eqs ref refs no nos vol pp
p dr mr mrs ms prof st jr sr inc ltd co corp dept resp u.s u.k e.u jan feb mar apr jun jul aug
sep sept oct nov dec mt ft est min max z.b bzw usw ggf d.h evtl inkl ca. ecc ecc. p.ej art nr`)

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// Split returns the spans of the sentences of text, in order (the rule is in
// the package documentation). It reads text once and keeps nothing of it.
func Split(text string) []Span {
	var out []Span
	start := 0
	for start <= len(text) {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		out = appendLine(out, text, start, end)
		start = end + 1
	}
	return out
}

// Strings returns the sentences of text (Split) as strings.
func Strings(text string) []string {
	spans := Split(text)
	if len(spans) == 0 {
		return nil
	}
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Text(text)
	}
	return out
}

// appendLine splits the line text[lo:hi] and appends its sentences.
func appendLine(out []Span, text string, lo, hi int) []Span {
	u := text[lo:hi]
	start := 0
	for i := 0; i < len(u); {
		r, n := utf8.DecodeRuneInString(u[i:])
		end := i + n
		switch r {
		case '。', '！', '？':
			j := closers(u, end)
			out = appendSpan(out, text, lo+start, lo+j)
			start = j
			end = j
		case '.', '!', '?':
			j := closers(u, end)
			if j < len(u) && u[j] != ' ' && u[j] != '\t' {
				break
			}
			k := j
			for k < len(u) && (u[k] == ' ' || u[k] == '\t') {
				k++
			}
			if k < len(u) {
				next, _ := utf8.DecodeRuneInString(u[k:])
				if unicode.IsLower(next) {
					break
				}
			}
			if r == '.' && Abbreviation(u[start:i]) {
				break
			}
			out = appendSpan(out, text, lo+start, lo+j)
			start = j
			end = j
		}
		i = end
	}
	return appendSpan(out, text, lo+start, hi)
}

// closers returns the offset after the closing quotes and brackets
// (ASCII and CJK) and the citation markers ("hashed.[1] Next") that follow
// a sentence mark ending at u[j].
func closers(u string, j int) int {
	for j < len(u) {
		if strings.IndexByte(`"')]`, u[j]) >= 0 {
			j++
			continue
		}
		if r, n := utf8.DecodeRuneInString(u[j:]); strings.ContainsRune("」』）】〉》”’", r) {
			j += n
			continue
		}
		if _, after, ok := Marker(u, j); ok {
			j = after
			continue
		}
		break
	}
	return j
}

// appendSpan appends text[s:e] trimmed of white space, unless nothing is
// left.
func appendSpan(out []Span, text string, s, e int) []Span {
	for s < e {
		r, n := utf8.DecodeRuneInString(text[s:e])
		if !unicode.IsSpace(r) {
			break
		}
		s += n
	}
	for e > s {
		r, n := utf8.DecodeLastRuneInString(text[s:e])
		if !unicode.IsSpace(r) {
			break
		}
		e -= n
	}
	if s == e {
		return out
	}
	return append(out, Span{s, e})
}

// Abbreviation reports whether the text before a period ends with a known
// abbreviation or a single-letter initial, so that the period does not end
// a sentence.
func Abbreviation(before string) bool {
	k := strings.LastIndexAny(before, " \t(\"'")
	w := before[k+1:]
	if w == "" {
		return false
	}
	if utf8.RuneCountInString(w) == 1 {
		r, _ := utf8.DecodeRuneInString(w)
		return unicode.IsLetter(r)
	}
	return abbreviations[strings.ToLower(w)]
}

// maxMarkerDigits bounds the number in a marker: [1234567] is text.
const maxMarkerDigits = 6

// Marker reads a citation marker "[n]" or "[n, m, ...]" (at most 6 digits
// a number) at s[at]: the numbers, the offset after ']', and
// whether it is one.
func Marker(s string, at int) ([]int, int, bool) {
	if at >= len(s) || s[at] != '[' {
		return nil, 0, false
	}
	var nums []int
	i := at + 1
	for {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d || i-d > maxMarkerDigits {
			return nil, 0, false
		}
		n, _ := strconv.Atoi(s[d:i])
		nums = append(nums, n)
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i < len(s) && s[i] == ']' {
			return nums, i + 1, true
		}
		if i < len(s) && s[i] == ',' {
			i++
			continue
		}
		return nil, 0, false
	}
}
