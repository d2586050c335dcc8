package grade

import (
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

func loadSchema(t *testing.T, path string) *SchemaCache {
	t.Helper()
	c := NewSchemaCache()
	if err := c.Load(path); err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	return c
}

func TestJSONSchema(t *testing.T) {
	t.Parallel()
	exp := loadSchema(t, "testdata/schemas/expansion.json").Get("testdata/schemas/expansion.json")
	d07 := loadSchema(t, "testdata/schemas/verdict07.json").Get("testdata/schemas/verdict07.json")
	tests := []struct {
		name   string
		obs    assay.Observation
		schema bool // true: expansion (2020-12), false: verdict (draft-07)
		pass   bool
		detail string
	}{
		{"valid 2020-12", assay.Observation{Answer: `{"query": "tokens", "terms": ["hash"], "k": 3}`}, true, true, ""},
		{"surrounding space is fine", assay.Observation{Answer: "\n {\"query\": \"q\", \"terms\": [\"a\"]}\n"}, true, true, ""},
		{"missing property", assay.Observation{Answer: `{"terms": ["a"]}`}, true, false, "at '': missing property 'query'"},
		{"ref in another file", assay.Observation{Answer: `{"query": "q", "terms": ["a"], "k": 0}`}, true, false, "at '/k': minimum: got 0, want 1"},
		{"two failures", assay.Observation{Answer: `{"query": 1, "terms": []}`}, true, false, "at '/query': got number, want string; at '/terms': minItems: got 0, want 1"},
		{"not json", assay.Observation{Answer: "The query is tokens"}, true, false, "answer is not JSON: invalid character 'T' looking for beginning of value"},
		{"trailing text", assay.Observation{Answer: `{"query": "q", "terms": ["a"]} and more`}, true, false, "answer is not JSON: invalid character after top-level value"},
		{"empty answer", assay.Observation{}, true, false, "answer is not JSON: empty"},
		{"mapped field validated instead of answer", assay.Observation{Answer: "prose", Fields: map[string]any{"json": map[string]any{"query": "q", "terms": []any{"a"}, "k": 2}}}, true, true, ""},
		{"mapped field invalid", assay.Observation{Answer: `{"query": "q", "terms": ["a"]}`, Fields: map[string]any{"json": map[string]any{"query": "q"}}}, true, false, "at '': missing property 'terms'"},
		{"valid draft-07", assay.Observation{Answer: `{"verdict": "yes", "sources": ["a.md"]}`}, false, true, ""},
		{"draft-07 additionalItems", assay.Observation{Answer: `{"verdict": "yes", "sources": ["a.md", "b.md"]}`}, false, false, "at '/sources': last 1 additionalItem(s) not allowed"},
		{"draft-07 enum", assay.Observation{Answer: `{"verdict": "maybe"}`}, false, false, `at '/verdict': value must be one of 'yes', 'no'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := exp
			if !tt.schema {
				s = d07
			}
			checkEq(t, JSONSchema(tt.obs, s), "json_schema", tt.pass, tt.detail)
		})
	}
	checkEq(t, JSONSchema(assay.Observation{Answer: "{}"}, nil), "json_schema", false, "schema not loaded")
}

func TestSchemaCacheErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path string
		want string
	}{
		{"testdata/schemas/nope.json", "no such file or directory"},
		{"testdata/schemas/truncated.json", "not JSON: unexpected EOF"},
		{"testdata/schemas/broken.json", "not a valid schema: at '/type': got string, want array; at '/type': value must be one of"},
	}
	for _, tt := range tests {
		err := NewSchemaCache().Load(tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%s) = %v, want error containing %q", tt.path, err, tt.want)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("Load(%s) error spans lines: %q", tt.path, err)
		}
	}
}

func TestSchemaCacheAdd(t *testing.T) {
	t.Parallel()
	c := NewSchemaCache()
	if err := c.Add("inline.json", []byte(`{"type": "array"}`)); err != nil {
		t.Fatal(err)
	}
	if c.Len() != 1 || c.Get("inline.json") == nil || c.Get("other.json") != nil {
		t.Fatalf("cache holds %d, Get(inline)=%v", c.Len(), c.Get("inline.json"))
	}
	checkEq(t, JSONSchema(assay.Observation{Answer: "[1]"}, c.Get("inline.json")), "json_schema", true, "")
	checkEq(t, JSONSchema(assay.Observation{Answer: "{}"}, c.Get("inline.json")), "json_schema", false, "at '': got object, want array")
}
