package yamltree

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// dump writes n as one line per node: kind, position, text, children
// indented, for comparing trees.
func dump(b *strings.Builder, n *Node, indent string) {
	fmt.Fprintf(b, "%s%d %d:%d %q %v %v\n", indent, n.Kind, n.Line, n.Col, n.Text, n.Value, n.Quoted)
	for i, k := range n.Keys {
		dump(b, k, indent+"  k ")
		dump(b, n.Vals[i], indent+"  v ")
	}
	for _, it := range n.Items {
		dump(b, it, indent+"  - ")
	}
}

func treeText(n *Node) string {
	var b strings.Builder
	dump(&b, n, "")
	return b.String()
}

// TestJSONLineSameAsYAML: a line of JSON read by ParseJSONLine is the tree
// Parse builds from the same text (JSON is YAML): kinds, positions,
// values, quoting.
func TestJSONLineSameAsYAML(t *testing.T) {
	for _, line := range []string{
		`{"id": "a", "query": "q"}`,
		`{"id": "a", "k": 3, "n": -7, "big": 18446744073709551615, "f": 2.5, "t": true, "z": null}`,
		`{"tags": {"lang": "en"}, "relevant": ["d1", 4983], "empty": {}, "none": []}`,
		`  {"é": "naïve", "x": ["ü", {"y": "ß"}]}`,
		`{"huge": 123456789012345678901234567890}`,
	} {
		docs, err := Parse(line)
		if err != nil || len(docs) != 1 {
			t.Fatalf("%s: Parse: %v", line, err)
		}
		got, err := ParseJSONLine([]byte(line), 1)
		if err != nil {
			t.Fatalf("%s: ParseJSONLine: %v", line, err)
		}
		if g, w := treeText(got), treeText(docs[0].Body); g != w {
			t.Errorf("%s:\nParseJSONLine:\n%s\nParse:\n%s", line, g, w)
		}
	}
}

// TestJSONLineNumbers: a JSON number is a number, whatever the YAML
// reader makes of the same text (it keeps 1e3 as a string).
func TestJSONLineNumbers(t *testing.T) {
	n, err := ParseJSONLine([]byte(`[1e3, -0, 1.5E-2, 99999999999999999999]`), 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind  Kind
		value any
	}{{Float, 1000.0}, {Int, int64(0)}, {Float, 0.015}, {String, nil}}
	for i, w := range want {
		if it := n.Items[i]; it.Kind != w.kind || it.Value != w.value {
			t.Errorf("item %d: kind %d value %v, want %d %v", i, it.Kind, it.Value, w.kind, w.value)
		}
	}
}

// TestJSONLineErrors: a fault is at its line and column (in characters).
func TestJSONLineErrors(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"id": "a", "query": "q"`, "7:1: unexpected end of the line: this object is not closed"},
		{`{"id": ["a", "b"`, "7:8: unexpected end of the line: this list is not closed"},
		{`{"id": "a"} {"id": "b"}`, "7:13: one JSON value a line; found more after it"},
		{`{"id" "a"}`, "7:7: invalid character '\"' after object key"},
		{`{"é": x}`, "7:7: invalid character 'x' looking for beginning of value"},
		{`{id: "a"}`, "7:2: invalid character 'i' looking for beginning of object key string"},
		{`{"id": "a",}`, "7:12: invalid character '}' looking for beginning of object key string"},
	} {
		_, err := ParseJSONLine([]byte(tc.line), 7)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %s", tc.line, err, tc.want)
		}
	}
}

// TestParseAliasesAndMerge: an alias points to the value its anchor names
// (nil before the anchor), tags are dropped, << is a Merge key.
func TestParseAliasesAndMerge(t *testing.T) {
	docs, err := Parse("early: *x\nbase: &x {a: 1}\nuse: *x\nmerged: {<<: *x, b: !t two}\n")
	if err != nil {
		t.Fatal(err)
	}
	m := docs[0].Body
	if m.Kind != Map || len(m.Keys) != 4 {
		t.Fatalf("body %s", treeText(m))
	}
	if early := m.Vals[0]; early.Kind != Alias || early.Target != nil {
		t.Errorf("an alias before its anchor: %+v", early)
	}
	if use := m.Vals[2]; use.Kind != Alias || use.Target != m.Vals[1] {
		t.Errorf("alias target %+v, want the anchored mapping", use.Target)
	}
	merged := m.Vals[3]
	if merged.Keys[0].Kind != Merge || merged.Vals[1].Kind != String || merged.Vals[1].Text != "two" {
		t.Errorf("merged %s", treeText(merged))
	}
	v, err := merged.Plain()
	if want := map[string]any{"<<": map[string]any{"a": uint64(1)}, "b": "two"}; err != nil || !reflect.DeepEqual(v, want) {
		t.Errorf("Plain = %v, %v; want %v", v, err, want)
	}
}

// TestParseDocuments: comment-only documents have no body; a syntax error
// is positioned.
func TestParseDocuments(t *testing.T) {
	docs, err := Parse("a: 1\n---\nb: 2\n")
	if err != nil || len(docs) != 2 || docs[0].Body == nil || docs[1].Body == nil || docs[1].Line != 2 {
		t.Errorf("docs %+v, %v", docs, err)
	}
	_, err = Parse("a: [1, 2\n")
	if se, ok := err.(*SyntaxError); !ok || se.Line != 1 {
		t.Errorf("error %#v, want a SyntaxError on line 1", err)
	}
}

// FuzzParseJSONLine: a line is read when encoding/json reads it as one
// value, and then its Plain value is what encoding/json decodes; it never
// panics.
func FuzzParseJSONLine(f *testing.F) {
	for _, s := range []string{`{"id": "a", "q": [1, 2.5, true, null, {"x": "y"}]}`, `{"a": 1} x`, `{"a": `, `[1, 2`, `"s"`, `{"é": 1e999}`, `{"n": -0}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.ContainsAny(line, "\n\r") {
			return
		}
		n, err := ParseJSONLine(line, 3)
		var want any
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		werr := dec.Decode(&want)
		valid := werr == nil && len(bytes.TrimLeft(line[dec.InputOffset():], " \t")) == 0
		if (err == nil) != valid {
			t.Fatalf("%q: ParseJSONLine error %v, encoding/json %v (valid %v)", line, err, werr, valid)
		}
		if err != nil {
			if se, ok := err.(*SyntaxError); !ok || se.Line != 3 || se.Col < 1 {
				t.Fatalf("%q: error %#v, want a SyntaxError on line 3", line, err)
			}
			return
		}
		got, perr := n.Plain()
		if perr != nil {
			t.Fatalf("%q: Plain: %v", line, perr)
		}
		if !sameJSON(got, want) {
			t.Fatalf("%q: Plain %#v, encoding/json %#v", line, got, want)
		}
	})
}

// sameJSON compares a Plain value with an encoding/json one (numbers as
// json.Number).
func sameJSON(got, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, v := range w {
			if !sameJSON(g[k], v) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !sameJSON(g[i], w[i]) {
				return false
			}
		}
		return true
	case json.Number:
		wf, _ := w.Float64()
		switch g := got.(type) {
		case int64:
			return float64(g) == wf
		case uint64:
			return float64(g) == wf
		case float64:
			return g == wf || (math.IsInf(g, 0) && math.IsInf(wf, 0)) || (math.IsInf(g, 0) && math.Abs(wf) == math.MaxFloat64)
		case string: // too large for 64 bits
			return g == w.String()
		}
		return false
	}
	return reflect.DeepEqual(got, want)
}
