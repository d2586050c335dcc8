package harness_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// The library speaks Go: no string of the package names a command-line
// flag (a message names a plan's field as {Field}, and the CLI writes it
// as its flag). A message that names --trials fails this test.
func TestNoStringNamesAFlag(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("sources: %v, %v", files, err)
	}
	flag := regexp.MustCompile(`(^|[^-\w])--[a-z][a-z-]+`)
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err == nil && flag.MatchString(s) && filepath.Base(f) != "noflags_test.go" {
				t.Errorf("%s: %s names a flag", fset.Position(lit.Pos()), lit.Value)
			}
			return true
		})
	}
}
