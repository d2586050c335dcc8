package grade

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Fold is the key the case-insensitive comparisons use: full Unicode case
// folding (golang.org/x/text/cases.Fold, the language-independent default
// folding of CaseFolding.txt) followed by NFC. So "ΣΊΣΥΦΟΣ" and "σίσυφος"
// (final sigma), "STRASSE" and "straße", and an accent written decomposed
// (e + U+0301) and precomposed (é) have the same key. The Turkish dotted and
// dotless i are not special-cased: "I" folds to "i", "İ" (U+0130) to "i"
// followed by U+0307, and "ı" (U+0131) stays "ı", as Unicode's default
// folding says; a Turkish suite that needs "ISTANBUL" to match "ıstanbul"
// states the spelling it expects, or sets case_sensitive and lists both.
// An ASCII string is only lower-cased (the same key, without allocation
// when it is already lower case).
func Fold(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	// A Caser keeps state between calls: one per call, never shared
	// between goroutines.
	return norm.NFC.String(cases.Fold().String(s))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
