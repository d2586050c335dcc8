package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Every field a harness message names ({Field} in a string) has a flag
// here: a field renamed in harness, or a message naming a new one, would
// otherwise print its Go name where the CLI's message names a flag.
func TestEveryFieldHarnessNamesHasAFlag(t *testing.T) {
	files, err := filepath.Glob("../../../../harness/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("harness sources: %v, %v", files, err)
	}
	marker := regexp.MustCompile(`\{([A-Z][A-Za-z]*)\}`)
	fset := token.NewFileSet()
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, _ := strconv.Unquote(lit.Value)
			for _, m := range marker.FindAllStringSubmatch(s, -1) {
				seen++
				if _, ok := flagNames[m[1]]; !ok {
					t.Errorf("%s: {%s} has no flag in flagNames", fset.Position(lit.Pos()), m[1])
				}
			}
			return true
		})
	}
	if seen < 20 {
		t.Errorf("found %d field markers in harness's strings; the scan is broken", seen)
	}
}
