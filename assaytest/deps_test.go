package assaytest_test

import (
	"os/exec"
	"strings"
	"testing"
)

// A test that imports assaytest links the pipeline, not the command line:
// no Postgres driver, no progress bar, no cobra (they are the assay
// command's, in cmd/assay), and not the kinds of target or the model judge
// (package harness/opener brings them): no HTTP client, no templates; nor
// the JSON Schema library (package grade/jsonschema brings it).
func TestNoCommandLineDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, bad := range []string{"github.com/jackc/pgx", "github.com/schollz/progressbar", "github.com/spf13/cobra", "github.com/santhosh-tekuri/jsonschema"} {
			if strings.HasPrefix(dep, bad) {
				t.Errorf("assaytest depends on %s", dep)
			}
		}
		switch dep {
		case "net/http", "text/template", "github.com/assay-eval/assay/target", "github.com/assay-eval/assay/judge", "github.com/assay-eval/assay/llm",
			"github.com/assay-eval/assay/harness/opener", "github.com/assay-eval/assay/grade/jsonschema":
			t.Errorf("assaytest depends on %s", dep)
		}
	}
}
