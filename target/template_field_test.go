package target

import (
	"bytes"
	"testing"

	"github.com/assay-eval/assay"
)

// TestTypedFieldSameAsTemplate: a body value that is one field of the
// case ({{.Query}}, {{.K}}, ...) is rendered without text/template, byte
// for byte as its template {{(FIELD) | json}} renders it: HTML characters,
// line separators, quotes and non-ASCII text included.
func TestTypedFieldSameAsTemplate(t *testing.T) {
	queries := []string{"how often is the kettle descaled", `a "quoted" <b>&amp;</b> \ back`, "line\nbreak\ttab \u2028 \u2029 é 日本", "", "\x01\x7f"}
	for _, field := range []string{".Query", ".ID", ".K", ".Trial", ".Turn"} {
		b, err := compileBody(&node{value: "{{ " + field + " }}"}, "body")
		if err != nil {
			t.Fatal(err)
		}
		if b.kind != bodyTyped || b.field != field {
			t.Fatalf("%s: kind %d field %q, want a typed template of the field", field, b.kind, b.field)
		}
		for i, q := range queries {
			d := caseData(assay.Case{ID: q + "-id", Query: q, K: i * 7, Turn: i}, 10, i*3, nil, nil)
			var got, want bytes.Buffer
			if err := b.render(&got, d); err != nil {
				t.Fatal(err)
			}
			if err := b.typed.Execute(&want, d); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("%s of %q: %s, template %s", field, q, got.String(), want.String())
			}
		}
	}
	// Any other value goes through the template.
	b, err := compileBody(&node{value: "{{.Tags}}"}, "body")
	if err != nil || b.kind != bodyTyped || b.field != "" {
		t.Fatalf("a pipeline: kind %d field %q err %v", b.kind, b.field, err)
	}
}

// TestShorthandBody: the shorthand target's body is {"k": K, "query": Q}.
func TestShorthandBody(t *testing.T) {
	var buf bytes.Buffer
	d := caseData(assay.Case{ID: "c1", Query: `why <"x">`}, 5, 0, nil, nil)
	if err := shorthandBody().render(&buf, d); err != nil {
		t.Fatal(err)
	}
	if want := `{"k":5,"query":"why \u003c\"x\"\u003e"}`; buf.String() != want {
		t.Errorf("body %s, want %s", buf.String(), want)
	}
}
