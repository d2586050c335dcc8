// Package canonjson writes, without reflection, the JSON that
// encoding/json writes for the few values assay hashes once per case (a
// case, its expectations, a case hash's canonical form): the same bytes
// (fields in struct order, omitempty honoured, map keys sorted, strings
// escaped as encoding/json escapes them with HTML escaping on), at a
// fraction of the reflective encoder's cost. Each function reports false,
// having appended nothing, for a value holding a field it does not write;
// its caller then falls back to encoding/json. Tests compare both
// encodings byte for byte over random values and under fuzzing.
package canonjson

import (
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/assay-eval/assay"
)

// Plain reports whether e holds only the fields AppendExpect writes (no
// latency bound, tool trajectory, judge bounds or nuggets).
func Plain(e *assay.Expect) bool {
	return e.MaxLatencyMs == nil && e.Tools == nil && len(e.Judge) == 0 && len(e.Nuggets) == 0
}

// AppendExpect appends json.Marshal(e) for an e that is Plain, and
// reports false otherwise.
func AppendExpect(dst []byte, e *assay.Expect) ([]byte, bool) {
	if !Plain(e) {
		return dst, false
	}
	dst = append(dst, '{')
	start := len(dst)
	dst = AppendStrings(dst, ",\"answer_includes\":", e.AnswerIncludes)
	dst = AppendStrings(dst, ",\"answer_includes_any\":", e.AnswerIncludesAny)
	dst = AppendStrings(dst, ",\"answer_excludes\":", e.AnswerExcludes)
	dst = AppendNonEmpty(dst, ",\"answer_matches\":", e.AnswerMatches)
	dst = AppendBoolPtr(dst, ",\"case_sensitive\":", e.CaseSensitive)
	dst = AppendStrings(dst, ",\"retrieves\":", e.Retrieves)
	dst = AppendStrings(dst, ",\"cites\":", e.Cites)
	dst = AppendStrings(dst, ",\"cites_any\":", e.CitesAny)
	dst = AppendStrings(dst, ",\"cited\":", e.Cited)
	dst = AppendStrings(dst, ",\"cited_any\":", e.CitedAny)
	dst = AppendTrue(dst, ",\"cites_only_surfaced\":true", e.CitesOnlySurfaced)
	dst = AppendTrue(dst, ",\"no_citations\":true", e.NoCitations)
	dst = AppendBoolPtr(dst, ",\"refusal\":", e.Refusal)
	dst = AppendStrings(dst, ",\"calls_tool\":", e.CallsTool)
	dst = AppendTrue(dst, ",\"calls_any_tool\":true", e.CallsAnyTool)
	dst = AppendStrings(dst, ",\"never_calls\":", e.NeverCalls)
	dst = AppendTrue(dst, ",\"stops_at_approval\":true", e.StopsAtApproval)
	dst = AppendNonEmpty(dst, ",\"outcome\":", e.Outcome)
	dst = AppendNonEmpty(dst, ",\"json_schema\":", e.JSONSchema)
	dst = AppendNonZero(dst, ",\"max_turns\":", e.MaxTurns)
	return closeObject(dst, start), true
}

// AppendCase appends json.Marshal(c) for a case of one query (no turns)
// whose expectations are Plain, and reports false otherwise.
func AppendCase(dst []byte, c *assay.Case) ([]byte, bool) {
	if len(c.Turns) > 0 || !Plain(&c.Expect) {
		return dst, false
	}
	dst = append(dst, `{"id":`...)
	dst = AppendString(dst, c.ID)
	dst = append(dst, `,"query":`...)
	dst = AppendString(dst, c.Query)
	dst = AppendStringMap(dst, ",\"tags\":", c.Tags)
	dst = AppendNonEmpty(dst, ",\"guards\":", c.Guards)
	dst = AppendNonZero(dst, ",\"k\":", c.K)
	dst = AppendIntMap(dst, ",\"judgments\":", c.Judgments)
	dst = AppendStrings(dst, ",\"relevant\":", c.Relevant)
	dst = append(dst, `,"expect":`...)
	dst, _ = AppendExpect(dst, &c.Expect)
	dst = AppendNonEmpty(dst, ",\"surface\":", c.Surface)
	dst = AppendStringMap(dst, ",\"vars\":", c.Vars)
	dst = AppendNonEmpty(dst, ",\"review\":", c.Review)
	dst = AppendStringMap(dst, ",\"provenance\":", c.Provenance)
	return append(dst, '}'), true
}

// closeObject ends an object whose fields, each written with a leading
// comma, start at start: the first field's comma is dropped.
func closeObject(dst []byte, start int) []byte {
	if len(dst) > start {
		dst = append(dst[:start], dst[start+1:]...)
	}
	return append(dst, '}')
}

// AppendNonZero appends key and n unless n is 0 (omitempty).
func AppendNonZero(dst []byte, key string, n int) []byte {
	if n == 0 {
		return dst
	}
	return strconv.AppendInt(append(dst, key...), int64(n), 10)
}

// AppendStringMap appends key and m with its keys sorted, unless m is
// empty (omitempty).
func AppendStringMap(dst []byte, key string, m map[string]string) []byte {
	return appendMap(dst, key, m, AppendString)
}

// AppendIntMap appends key and m with its keys sorted, unless m is empty
// (omitempty).
func AppendIntMap(dst []byte, key string, m map[string]int) []byte {
	return appendMap(dst, key, m, func(dst []byte, n int) []byte { return strconv.AppendInt(dst, int64(n), 10) })
}

// appendMap appends key and m, its keys in the order encoding/json writes
// them and each value written by value, unless m is empty (omitempty).
func appendMap[V any](dst []byte, key string, m map[string]V, value func([]byte, V) []byte) []byte {
	if len(m) == 0 {
		return dst
	}
	dst = append(dst, key...)
	dst = append(dst, '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, k)
		dst = append(dst, ':')
		dst = value(dst, m[k])
	}
	return append(dst, '}')
}

// AppendBoolPtr appends key and *b unless b is nil (omitempty).
func AppendBoolPtr(dst []byte, key string, b *bool) []byte {
	if b == nil {
		return dst
	}
	return strconv.AppendBool(append(dst, key...), *b)
}

// AppendTrue appends field (key and true) when b is true (omitempty).
func AppendTrue(dst []byte, field string, b bool) []byte {
	if !b {
		return dst
	}
	return append(dst, field...)
}

// AppendNonEmpty appends key and s unless s is "" (omitempty).
func AppendNonEmpty(dst []byte, key, s string) []byte {
	if s == "" {
		return dst
	}
	return AppendString(append(dst, key...), s)
}

// AppendStrings appends key and ss unless ss is empty (omitempty).
func AppendStrings(dst []byte, key string, ss []string) []byte {
	if len(ss) == 0 {
		return dst
	}
	dst = append(dst, key...)
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, s)
	}
	return append(dst, ']')
}

const hexDigits = "0123456789abcdef"

// AppendString appends s quoted as encoding/json's Encoder quotes it
// with HTML escaping on (its default): <, > and & as \u003c, \u003e and
// \u0026, control bytes as \b \f \n \r \t or \u00XX, invalid UTF-8 as
// \ufffd, and U+2028 and U+2029 escaped.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
