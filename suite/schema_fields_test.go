package suite

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/assay-eval/assay/suite/schema"
)

// TestSchemaNamesLoaderFields keeps the JSON Schema of the native format
// (suite/schema) and the loader's field lists the same: a field added to
// one and not the other fails here.
func TestSchemaNamesLoaderFields(t *testing.T) {
	var doc struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Defs       map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(schema.Suite(), &doc); err != nil {
		t.Fatal(err)
	}
	props := func(raw json.RawMessage) []string {
		var o struct {
			Properties map[string]json.RawMessage `json:"properties"`
			OneOf      []struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"oneOf"`
		}
		if err := json.Unmarshal(raw, &o); err != nil {
			t.Fatal(err)
		}
		m := o.Properties
		for _, alt := range o.OneOf {
			if m == nil {
				m = alt.Properties
			}
		}
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	for _, c := range []struct {
		what   string
		schema json.RawMessage
		loader []string
	}{
		{"suite", nil, suiteFields},
		{"defaults", doc.Properties["defaults"], defaultsFields},
		{"case", doc.Defs["case"], caseFields},
		{"expect", doc.Defs["expect"], expectFields},
		{"document", doc.Defs["document"], docFields},
	} {
		var got []string
		if c.schema == nil {
			for k := range doc.Properties {
				got = append(got, k)
			}
			slices.Sort(got)
		} else {
			got = props(c.schema)
		}
		want := slices.Clone(c.loader)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s fields: schema has %v, loader reads %v", c.what, got, want)
		}
	}
}
