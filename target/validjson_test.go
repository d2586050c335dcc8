package target

import (
	"encoding/json"
	"testing"

	"github.com/tidwall/gjson"
)

// validJSONCases are the edges of JSON's grammar where two validators
// could disagree: numbers, escapes, control bytes, invalid UTF-8,
// whitespace, trailing data, empty input.
var validJSONCases = []string{
	`{"answer": "a", "retrieved": [{"id": "d", "score": 1.5e-3}], "refused": false}`,
	`[1,2]`, `"x\u00e9"`, `-0.5e+3`, `{"a":[true,false,null]}`, " {} ", "\t[]\r\n", "\xff", `"\xff"`, `"\ud800"`,
	`01`, `1.`, `.5`, `-`, `+1`, `1e`, `1E+`, `0x10`, `{"a":1,}`, `[1,]`, `{"a" 1}`, `{a:1}`, `'a'`, `"\x01"`, "\"\x7f\"",
	`"\q"`, `"\u12"`, `"\/"`, `{"a":1}{}`, `{"a":1} x`, ``, ` `, `nul`, `nulll`, `true false`, `NaN`, `Infinity`,
	"\u2028", "\"\u2028\"", "\xef\xbb\xbf{}", `{"":""}`, `[[[[]]]]`, `{"a":{"b":{"c":[]}}}`, `[1 2]`, `{,}`, `[,]`,
}

// TestValidJSONAgrees pins checkJSON's validator (gjson.ValidBytes) to
// encoding/json's json.Valid, which it replaced: the same bodies are
// accepted and refused.
func TestValidJSONAgrees(t *testing.T) {
	for _, b := range validJSONCases {
		if got, want := gjson.ValidBytes([]byte(b)), json.Valid([]byte(b)); got != want {
			t.Errorf("%q: gjson.ValidBytes %v, json.Valid %v", b, got, want)
		}
		r := &response{body: []byte(b)}
		if err := r.checkJSON("response"); (err == nil) != json.Valid([]byte(b)) {
			t.Errorf("%q: checkJSON = %v, json.Valid %v", b, err, json.Valid([]byte(b)))
		}
	}
}

// FuzzValidJSONAgrees: whatever the body, gjson.ValidBytes is json.Valid.
func FuzzValidJSONAgrees(f *testing.F) {
	for _, b := range validJSONCases {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := gjson.ValidBytes(b), json.Valid(b); got != want {
			t.Fatalf("%q: gjson.ValidBytes %v, json.Valid %v", b, got, want)
		}
	})
}
