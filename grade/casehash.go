package grade

import (
	"strconv"

	"github.com/assay-eval/assay/internal/canonjson"
)

// appendHashed appends the JSON line encoding/json's Encoder writes for h
// (package canonjson's encoding, then a newline) without reflection:
// CaseHash runs once per case and trial, and the reflective encoding was
// a measurable share of a run's CPU. It reports false, and appends
// nothing, when h's expectations are not canonjson.Plain: CaseHash then
// falls back to encoding/json. A test and a fuzz target compare both
// encodings.
func appendHashed(dst []byte, h *hashed) ([]byte, bool) {
	if !canonjson.Plain(&h.Expect) {
		return dst, false
	}
	dst = append(dst, `{"query":`...)
	dst = canonjson.AppendString(dst, h.Query)
	dst = append(dst, `,"k":`...)
	dst = strconv.AppendInt(dst, int64(h.K), 10)
	dst = canonjson.AppendBoolPtr(dst, ",\"case_sensitive\":", h.CaseSensitive)
	dst = canonjson.AppendStrings(dst, ",\"refusal_markers\":", h.Markers)
	dst = canonjson.AppendIntMap(dst, ",\"judgments\":", h.Judgments)
	dst = canonjson.AppendStrings(dst, ",\"relevant\":", h.Relevant)
	dst = append(dst, `,"expect":`...)
	dst, _ = canonjson.AppendExpect(dst, &h.Expect)
	dst = canonjson.AppendNonEmpty(dst, ",\"surface\":", h.Surface)
	dst = canonjson.AppendStringMap(dst, ",\"vars\":", h.Vars)
	dst = canonjson.AppendTrue(dst, ",\"nugget_no_vital_zero\":true", h.NoVitalZero)
	dst = canonjson.AppendStrings(dst, ",\"turns\":", h.Turns)
	return append(dst, '}', '\n'), true
}
