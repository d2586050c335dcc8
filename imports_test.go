package assay_test

import (
	"os/exec"
	"strings"
	"testing"
)

// An arrow is a dependency that must not come back: From (a package of
// this module) must not depend on To, directly or through another package.
type arrow struct {
	From, To string
}

// arrows are the imports that point the wrong way: the gate grammar sits
// below the runner, the suite loader below the gates and the runner, the
// renderers below the stores and the loader, the harness reaches the kinds
// of target and the model judge only through its seams (package
// harness/opener fills them), so that it links no HTTP client and no
// templates, the loader and the grader reach the JSON Schema library only
// through the validator package grade/jsonschema registers, and a Go test
// that imports assaytest links no database driver, no progress bar and no
// JSON Schema library.
var arrows = []arrow{
	{From: "gate", To: "github.com/assay-eval/assay/runner"},
	{From: "suite", To: "github.com/assay-eval/assay/gate"},
	{From: "suite", To: "github.com/assay-eval/assay/runner"},
	{From: "report", To: "github.com/assay-eval/assay/store"},
	{From: "report", To: "github.com/assay-eval/assay/suite"},
	{From: "assaytest", To: "modernc.org/sqlite"},
	{From: "store", To: "modernc.org/sqlite"},
	{From: "assaytest", To: "github.com/jackc/pgx/v5"},
	{From: "assaytest", To: "github.com/schollz/progressbar/v3"},
	{From: "harness", To: "github.com/assay-eval/assay/target"},
	{From: "harness", To: "github.com/assay-eval/assay/judge"},
	{From: "harness", To: "github.com/assay-eval/assay/llm"},
	{From: "harness", To: "net/http"},
	{From: "harness", To: "text/template"},
	{From: "assaytest", To: "net/http"},
	{From: "assaytest", To: "github.com/assay-eval/assay/harness/opener"},
	{From: "assaytest", To: "github.com/santhosh-tekuri/jsonschema/v6"},
	{From: "grade", To: "github.com/santhosh-tekuri/jsonschema/v6"},
	{From: "suite", To: "github.com/santhosh-tekuri/jsonschema/v6"},
	{From: "harness/seam", To: "github.com/assay-eval/assay/target"},
	{From: "harness/seam", To: "github.com/assay-eval/assay/judge"},
}

// TestImportArrowsPointOneWay reads the dependencies of each package with
// go list -deps (what the linker sees, tests left out) and fails on an
// arrow that came back.
func TestImportArrowsPointOneWay(t *testing.T) {
	if testing.Short() {
		t.Skip("go list -deps of the module's packages: not in -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	deps := map[string]map[string]bool{}
	for _, a := range arrows {
		if deps[a.From] != nil {
			continue
		}
		out, err := exec.Command("go", "list", "-deps", "./"+a.From).Output()
		if err != nil {
			t.Fatalf("go list -deps ./%s: %v", a.From, err)
		}
		deps[a.From] = map[string]bool{}
		for _, p := range strings.Fields(string(out)) {
			deps[a.From][p] = true
		}
		// A sanity check that the listing is the package's own: every
		// package here depends on the root records.
		if !deps[a.From]["github.com/assay-eval/assay"] {
			t.Fatalf("go list -deps ./%s does not list the root package:\n%s", a.From, out)
		}
	}
	for _, a := range arrows {
		t.Run(a.From+"->"+a.To, func(t *testing.T) {
			if !deps[a.From][a.To] {
				return
			}
			t.Errorf("%s depends on %s: %s", a.From, a.To, importPath(t, a.From, a.To))
		})
	}
}

// importPath is how from reaches to: the chain go list shows from the
// packages of from that import to directly.
func importPath(t *testing.T, from, to string) string {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./"+from).Output()
	if err != nil {
		return "(go list: " + err.Error() + ")"
	}
	var via []string
	for _, line := range strings.Split(string(out), "\n") {
		fields := strings.Fields(line)
		for _, imp := range fields[min(1, len(fields)):] {
			if imp == to {
				via = append(via, fields[0])
			}
		}
	}
	return "imported by " + strings.Join(via, ", ")
}
