package grade

import (
	"strconv"
	"unicode/utf8"
)

// appendHashed appends the JSON line encoding/json's Encoder writes for h
// (fields in struct order, omitempty honoured, map keys sorted, strings
// escaped as the Encoder escapes them, a final newline) without
// reflection: CaseHash runs once per case and trial, and the reflective
// encoding was a measurable share of a run's CPU. It reports false, and
// appends nothing, when h holds a field it does not write (a latency
// bound, a tool trajectory, judge bounds or nuggets): CaseHash then falls
// back to encoding/json. The equivalence is pinned by a test and a fuzz
// target comparing both encodings.
func appendHashed(dst []byte, h *hashed) ([]byte, bool) {
	e := &h.Expect
	if e.MaxLatencyMs != nil || e.Tools != nil || len(e.Judge) > 0 || len(e.Nuggets) > 0 {
		return dst, false
	}
	dst = append(dst, `{"query":`...)
	dst = appendJSONString(dst, h.Query)
	dst = append(dst, `,"k":`...)
	dst = strconv.AppendInt(dst, int64(h.K), 10)
	dst = appendBoolPtr(dst, ",\"case_sensitive\":", h.CaseSensitive)
	dst = appendStrings(dst, ",\"refusal_markers\":", h.Markers)
	if len(h.Judgments) > 0 {
		dst = append(dst, `,"judgments":{`...)
		for i, k := range sortedKeys(h.Judgments) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, k)
			dst = append(dst, ':')
			dst = strconv.AppendInt(dst, int64(h.Judgments[k]), 10)
		}
		dst = append(dst, '}')
	}
	dst = appendStrings(dst, ",\"relevant\":", h.Relevant)
	dst = append(dst, `,"expect":{`...)
	start := len(dst)
	dst = appendStrings(dst, ",\"answer_includes\":", e.AnswerIncludes)
	dst = appendStrings(dst, ",\"answer_includes_any\":", e.AnswerIncludesAny)
	dst = appendStrings(dst, ",\"answer_excludes\":", e.AnswerExcludes)
	dst = appendNonEmpty(dst, ",\"answer_matches\":", e.AnswerMatches)
	dst = appendBoolPtr(dst, ",\"case_sensitive\":", e.CaseSensitive)
	dst = appendStrings(dst, ",\"retrieves\":", e.Retrieves)
	dst = appendStrings(dst, ",\"cites\":", e.Cites)
	dst = appendStrings(dst, ",\"cites_any\":", e.CitesAny)
	dst = appendStrings(dst, ",\"cited\":", e.Cited)
	dst = appendStrings(dst, ",\"cited_any\":", e.CitedAny)
	dst = appendTrue(dst, ",\"cites_only_surfaced\":true", e.CitesOnlySurfaced)
	dst = appendTrue(dst, ",\"no_citations\":true", e.NoCitations)
	dst = appendBoolPtr(dst, ",\"refusal\":", e.Refusal)
	dst = appendStrings(dst, ",\"calls_tool\":", e.CallsTool)
	dst = appendTrue(dst, ",\"calls_any_tool\":true", e.CallsAnyTool)
	dst = appendStrings(dst, ",\"never_calls\":", e.NeverCalls)
	dst = appendTrue(dst, ",\"stops_at_approval\":true", e.StopsAtApproval)
	dst = appendNonEmpty(dst, ",\"outcome\":", e.Outcome)
	dst = appendNonEmpty(dst, ",\"json_schema\":", e.JSONSchema)
	if e.MaxTurns != 0 {
		dst = append(dst, `,"max_turns":`...)
		dst = strconv.AppendInt(dst, int64(e.MaxTurns), 10)
	}
	if len(dst) > start {
		// the first field written inside expect drops its leading comma
		dst = append(dst[:start], dst[start+1:]...)
	}
	dst = append(dst, '}')
	dst = appendNonEmpty(dst, ",\"surface\":", h.Surface)
	if len(h.Vars) > 0 {
		dst = append(dst, `,"vars":{`...)
		for i, k := range sortedKeys(h.Vars) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, k)
			dst = append(dst, ':')
			dst = appendJSONString(dst, h.Vars[k])
		}
		dst = append(dst, '}')
	}
	dst = appendTrue(dst, ",\"nugget_no_vital_zero\":true", h.NoVitalZero)
	dst = appendStrings(dst, ",\"turns\":", h.Turns)
	return append(dst, '}', '\n'), true
}

func appendBoolPtr(dst []byte, key string, b *bool) []byte {
	if b == nil {
		return dst
	}
	return strconv.AppendBool(append(dst, key...), *b)
}

func appendTrue(dst []byte, field string, b bool) []byte {
	if !b {
		return dst
	}
	return append(dst, field...)
}

func appendNonEmpty(dst []byte, key, s string) []byte {
	if s == "" {
		return dst
	}
	return appendJSONString(append(dst, key...), s)
}

func appendStrings(dst []byte, key string, ss []string) []byte {
	if len(ss) == 0 {
		return dst
	}
	dst = append(dst, key...)
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, s)
	}
	return append(dst, ']')
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s quoted as encoding/json's Encoder quotes it
// with HTML escaping on (its default): <, > and & as \u003c, \u003e and
// \u0026, control bytes as \b \f \n \r \t or \u00XX, invalid UTF-8 as
// \ufffd, and U+2028 and U+2029 escaped.
func appendJSONString(dst []byte, s string) []byte {
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
