package grade

import (
	"regexp"
	"strings"

	"github.com/assay-eval/assay"
)

// AnswerIncludes passes when every string of want occurs in answer as a
// substring. Unless caseSensitive, both sides are compared lower-cased
// (strings.ToLower). A failing check lists what is absent:
// `missing "sha-256"` or `missing "a", "b"`.
func AnswerIncludes(answer string, want []string, caseSensitive bool) assay.Check {
	var missing []string
	hay := newHaystack(answer, caseSensitive)
	for _, w := range want {
		if !hay.contains(w) {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		return fail(KindAnswerIncludes, "missing "+quoteList(missing))
	}
	return pass(KindAnswerIncludes)
}

// AnswerIncludesAny passes when at least one string of want occurs in answer
// (same comparison as AnswerIncludes). An empty want passes. A failing check
// says `none of "free tier", "free-tier"`.
func AnswerIncludesAny(answer string, want []string, caseSensitive bool) assay.Check {
	if len(want) == 0 {
		return pass(KindAnswerIncludesAny)
	}
	hay := newHaystack(answer, caseSensitive)
	for _, w := range want {
		if hay.contains(w) {
			return pass(KindAnswerIncludesAny)
		}
	}
	return fail(KindAnswerIncludesAny, "none of "+quoteList(want))
}

// AnswerExcludes passes when no string of banned occurs in answer (same
// comparison as AnswerIncludes). A failing check lists what was found:
// `found "md5"`.
func AnswerExcludes(answer string, banned []string, caseSensitive bool) assay.Check {
	var found []string
	hay := newHaystack(answer, caseSensitive)
	for _, b := range banned {
		if hay.contains(b) {
			found = append(found, b)
		}
	}
	if len(found) > 0 {
		return fail(KindAnswerExcludes, "found "+quoteList(found))
	}
	return pass(KindAnswerExcludes)
}

// AnswerMatches passes when the Go RE2 regular expression pattern matches
// somewhere in answer (regexp.MatchString; anchor it with ^ and $ to match
// the whole answer; case_sensitive does not apply, use (?i)). A failing check
// says `no match for (?i)sha-?256`; a pattern that does not compile fails
// with `invalid pattern: ...` (NewOptions reports it first).
func AnswerMatches(answer, pattern string) assay.Check {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return fail(KindAnswerMatches, "invalid pattern: "+regexpError(err))
	}
	if !re.MatchString(answer) {
		return fail(KindAnswerMatches, "no match for "+pattern)
	}
	return pass(KindAnswerMatches)
}

// haystack is an answer ready for substring tests: lowered once, unless
// case-sensitive, rather than once per wanted string (a long answer and
// many strings made that quadratic in allocations).
type haystack struct {
	s             string
	caseSensitive bool
}

func newHaystack(s string, caseSensitive bool) haystack {
	if !caseSensitive {
		s = strings.ToLower(s)
	}
	return haystack{s: s, caseSensitive: caseSensitive}
}

func (h haystack) contains(sub string) bool {
	if !h.caseSensitive {
		sub = strings.ToLower(sub)
	}
	return strings.Contains(h.s, sub)
}

// regexpError drops the "error parsing regexp: " prefix of regexp errors.
func regexpError(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}
