package assaytest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay/assaytest"
)

// A test that imports only assaytest registers no JSON Schema validator
// (package grade/jsonschema, which it does not link): a suite that states
// json_schema fails the test, saying which package to import, and runs no
// case.
func TestRunJSONSchemaWithoutValidatorFails(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "answer.schema.json"), []byte(`{"type": "object"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "schema.yaml")
	writeFile(t, path, `assay: 1
name: schema
cases:
  - {id: q001, query: How are invitation tokens hashed?, expect: {json_schema: answer.schema.json}}
`)
	logs, failed := record(t, func(tb testing.TB) { assaytest.Run(tb, path, good) })
	if !failed || !strings.Contains(logs, "import package github.com/assay-eval/assay/grade/jsonschema") {
		t.Fatalf("failed=%v; want the test failed naming the package that registers the validator:\n%s", failed, logs)
	}
}
