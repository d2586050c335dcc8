package grade_test

import (
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/assay-eval/assay/grade/jsonschema"
	"github.com/assay-eval/assay/internal/schemaseam"
)

// Importing package grade/jsonschema registers its validator, which compiles a schema,
// validates documents against it (one sorted fact per failure) and words
// what is wrong with a schema that breaks its metaschema.
func TestRegisteredValidator(t *testing.T) {
	v := schemaseam.Registered()
	if v == nil {
		t.Fatal("importing grade/jsonschema registered no validator")
	}
	abs := filepath.Join(t.TempDir(), "s.json")
	src := []byte(`{"type": "object", "required": ["k"], "properties": {"k": {"type": "integer"}, "q": {"type": "string"}}}`)
	if msg := v.Check(abs, src); msg != "" {
		t.Fatalf("Check of a valid schema = %q; want \"\"", msg)
	}
	s, err := v.Compile(abs, src)
	if err != nil {
		t.Fatal(err)
	}
	for doc, want := range map[string]string{
		`{"k": 3}`:           "",
		`{"k": "x", "q": 1}`: "at '/k': got string, want integer; at '/q': got number, want string",
	} {
		facts, err := s.Validate([]byte(doc))
		if err != nil || strings.Join(facts, "; ") != want {
			t.Errorf("Validate(%s) = %q, %v; want %q", doc, facts, err, want)
		}
	}
	if _, err := s.Validate([]byte(`{"k":`)); err == nil {
		t.Error("Validate of a truncated document: no error")
	}
	bad := []byte(`{"type": 5}`)
	if msg := v.Check(abs, bad); !strings.HasPrefix(msg, "invalid schema: ") {
		t.Errorf("Check of a schema whose type is a number = %q; want invalid schema: ...", msg)
	}
	if _, err := v.Compile(abs, bad); err == nil || !strings.HasPrefix(err.Error(), "not a valid schema: ") {
		t.Errorf("Compile of a schema whose type is a number: err = %v; want not a valid schema: ...", err)
	}
}
