package yamltree

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/tidwall/gjson"
)

// walkable reports whether ParseJSONLine reads line with gjson (validLine)
// rather than with the decoder.
func walkable(line []byte) bool {
	return isASCII(line) && bytes.IndexByte(line, '\\') < 0 && json.Valid(line)
}

// TestJSONLineWalkSameAsDecoder: a line ParseJSONLine walks with gjson
// gives the tree encoding/json's decoder builds from it, node for node:
// kinds, positions, texts, values, quoting and flow style.
func TestJSONLineWalkSameAsDecoder(t *testing.T) {
	lines := []string{
		`{"id": "c000001", "query": "how often is the kettle descaled 1", "expect": {"answer_includes": ["month"]}}`,
		`{"assay": 1, "name": "stub"}`,
		"\t{ \"a\" :[ 1 ,2.5,-0, 1e3, 1.5E-2, 99999999999999999999, 18446744073709551615, -9223372036854775808 ] , \"b\":{}}\r",
		`{"e": [], "o": {}, "n": null, "t": true, "f": false, "s": "", "nest": [[{"x": [{"y": "z"}]}]]}`,
		`{"dup": 1, "dup": "two", "k": 3}`,
		`{"judgments": {"doc-1": 2, "doc 2": 0}, "relevant": ["doc-1"], "tags": {"topic": "kettle"}}`,
		`"just a string"`,
		`  42  `,
		`[true,false,null]`,
		`{"q":"a:b,c{d}[e]"}`,
	}
	for _, line := range lines {
		if !walkable([]byte(line)) {
			t.Fatalf("%q: not a line the walk reads; the test needs one", line)
		}
		got, err := ParseJSONLine([]byte(line), 4)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		want, err := decodeLine([]byte(line), 4, true)
		if err != nil {
			t.Fatalf("%q: decoder: %v", line, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\nwalk:\n%s\ndecoder:\n%s", line, treeText(got), treeText(want))
		}
	}
}

// TestJSONLineOthersAreDecoded: a line with an escape, a character past
// ASCII or a fault is not walked, so it reads as the decoder reads it.
func TestJSONLineOthersAreDecoded(t *testing.T) {
	for _, line := range []string{`{"q": "a\"b"}`, `{"q": "é"}`, `{"a": 1,}`, `{"a": 1} {"b": 2}`, `{"a": "x` + "\x01" + `"}`} {
		if walkable([]byte(line)) {
			t.Errorf("%q: walked", line)
		}
	}
	n, err := ParseJSONLine([]byte(`{"q": "a\"b\u00e9"}`), 1)
	if err != nil || n.Vals[0].Text != `a"bé` {
		t.Errorf("escaped string: %v %v", n, err)
	}
}

// FuzzJSONLineWalk: whenever ParseJSONLine walks a line with gjson, the
// tree is the decoder's.
func FuzzJSONLineWalk(f *testing.F) {
	for _, s := range []string{`{"id": "a", "q": [1, 2.5, true, null, {"x": "y"}]}`, `[1, 2]`, `{"a":{"b":[{}]}}`, `{"n": -0.5e-3}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.ContainsAny(line, "\n") || !walkable(line) {
			return
		}
		got := validLine(gjson.ParseBytes(line), 2)
		want, err := decodeLine(line, 2, true)
		if err != nil {
			t.Fatalf("%q: json.Valid accepts it, the decoder says %v", line, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\nwalk:\n%s\ndecoder:\n%s", line, treeText(got), treeText(want))
		}
	})
}
