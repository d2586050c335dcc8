package nesting

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

// FuzzJSON: on valid JSON, JSON refuses exactly the documents whose
// decoded nesting (encoding/json's tokens) is deeper than MaxDepth, and
// YAML, which reads JSON as YAML, agrees.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{"a": [1, {"b": "[["}]}`, `[[[]]]`, `"x"`, `{"a\"": "]"}`, "[\n[\n]\n]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		jerr, yerr := JSON(b), YAML(b)
		if !json.Valid(b) || bytes.ContainsAny(b, "\t\r") {
			return
		}
		depth, deepest := 0, 0
		dec := json.NewDecoder(bytes.NewReader(b))
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				return // deeper than encoding/json reads
			}
			switch tok {
			case json.Delim('['), json.Delim('{'):
				depth++
				deepest = max(deepest, depth)
			case json.Delim(']'), json.Delim('}'):
				depth--
			}
		}
		if (jerr != nil) != (deepest > MaxDepth) {
			t.Fatalf("depth %d, JSON says %v", deepest, jerr)
		}
		if (yerr != nil) != (jerr != nil) {
			t.Fatalf("depth %d: JSON says %v, YAML says %v", deepest, jerr, yerr)
		}
	})
}

// FuzzYAML: the scan never panics, and an error is positioned inside the
// text.
func FuzzYAML(f *testing.F) {
	for _, s := range []string{"a: [1, {b: c}]\n", "- - - x\n", "a: |\n  [[[\nb: 'it''s'\n", "# [\n\"a\\\"[\": 1\n", "? a\n: b\n", "--- &x !t [\n]\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e := YAML(b)
		if e == nil {
			return
		}
		if e.Line < 1 || e.Line > bytes.Count(b, []byte("\n"))+1 || e.Col < 1 {
			t.Fatalf("error %v outside the text", e)
		}
	})
}
