package grade

import (
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// TestSchemaDeepJSON: a json_schema file and an answer nested deeper than
// 1000 levels are refused with the position before they are decoded.
func TestSchemaDeepJSON(t *testing.T) {
	c := NewSchemaCache()
	err := c.Add("s.json", []byte(`{"type": "array", "items": `+strings.Repeat("{\"items\": ", 60000)))
	if err == nil || err.Error() != "line 1 column 10018: nested more than 1000 levels deep (the limit)" {
		t.Fatalf("schema: got %v", err)
	}
	if err := c.Add("ok.json", []byte(`{"type": "array"}`)); err != nil {
		t.Fatal(err)
	}
	s := c.schemas["ok.json"]
	ch := JSONSchema(assay.Observation{Answer: strings.Repeat("[", 60000)}, s)
	if ch.Pass || ch.Detail != "answer JSON is nested more than 1000 levels deep (the limit), at line 1 column 1001" {
		t.Fatalf("answer: got %+v", ch)
	}
}
