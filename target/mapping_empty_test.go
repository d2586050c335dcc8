package target

import (
	"net/http"
	"testing"

	"github.com/assay-eval/assay"
)

// TestEmptyMappedValueIsEmptyList: a header that is present and empty
// (x-knowlex-docs: on a refusal) and a body value "" map to no documents,
// not a malformed error; a header that is absent leaves the field unset.
func TestEmptyMappedValueIsEmptyList(t *testing.T) {
	t.Parallel()
	fields := []mapField{
		{name: "retrieved", header: "X-Knowlex-Docs"},
		{name: "citations", header: "X-Knowlex-Docs"},
		{name: "tools", path: "tools"},
		{name: "answer", path: "answer"},
	}
	for name, h := range map[string]http.Header{
		"empty":      {"X-Knowlex-Docs": {""}},
		"blank":      {"X-Knowlex-Docs": {"  "}},
		"only comma": {"X-Knowlex-Docs": {","}},
	} {
		t.Run(name, func(t *testing.T) {
			var o assay.Observation
			body := []byte(`{"answer": "The knowledge base does not contain that.", "tools": ""}`)
			err := applyMap(&o, fields, map[string]*response{"s": {body: body, header: h}}, "s", "response")
			if err != nil {
				t.Fatalf("applyMap: %v", err)
			}
			if o.Retrieved == nil || len(o.Retrieved) != 0 {
				t.Errorf("retrieved = %#v, want an empty list", o.Retrieved)
			}
			if o.Citations == nil || len(o.Citations) != 0 {
				t.Errorf("citations = %#v, want an empty list", o.Citations)
			}
			if o.Tools == nil || len(o.Tools) != 0 {
				t.Errorf("tools = %#v, want an empty list", o.Tools)
			}
		})
	}
	t.Run("absent", func(t *testing.T) {
		var o assay.Observation
		err := applyMap(&o, fields[:2], map[string]*response{"s": {body: []byte(`{}`), header: http.Header{}}}, "s", "response")
		if err != nil || o.Retrieved != nil || o.Citations != nil {
			t.Errorf("absent header: err %v, retrieved %#v, citations %#v", err, o.Retrieved, o.Citations)
		}
	})
}
