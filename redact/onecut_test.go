package redact_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The one cut rule: a string shortened for output (a snippet, a quote, a
// reasoning, a stderr tail, an error body) is cut by package redact, which
// replaces the secrets first, so a cut inside a secret leaves none of it.
// TestOnlyRedactCutsStringsForOutput walks every non-test Go file of the
// module outside this package and fails on a cut for output, which it
// recognises by one of three shapes:
//
//   - marker: a slice expression joined with an ellipsis, s[:n] + "..." or
//     string(r[:n]) + "…";
//   - runes: a head or tail of a []rune conversion, r[:n] or
//     r[len(r)-n:] (rune cuts exist for display);
//   - helper: a function named like a cut (cut, clip, trunc, short,
//     snippet, abbrev, ellipsis, head, tail, prefix, first, excerpt) with
//     a string or []byte parameter s and an int parameter n that takes a
//     head or a tail of s bounded by n: s[:n], s[:n-1], s[len(s)-n:].
//
// cutAllowed lists the cuts that are not for output, each with the reason;
// an entry that no longer matches anything is an error too, so the list
// stays small and true.
var cutAllowed = map[string]string{
	"target/hybrid.go:cut":      "bounds a document's text sent to the embeddings and rerank endpoints, never shown or stored",
	"suite/jsonl.go:firstBytes": "quotes the user's own suite file in a parse error; a suite holds no secret of a run (those come from the environment)",
	"shard/shard.go:prefix":     "bounds a shard group name built from a fingerprint, a commit and CI ids, not external text",
}

// cutWords mark a function named like a cut.
var cutWords = []string{"cut", "clip", "trunc", "short", "snippet", "abbrev", "ellips", "head", "tail", "prefix", "first", "excerpt"}

// findCuts returns the cuts for output in one file, as "FUNC: shape at
// line L" keyed by function name (or "-" outside a function).
func findCuts(fset *token.FileSet, f *ast.File) map[string][]string {
	out := map[string][]string{}
	add := func(fn string, n ast.Node, shape string) {
		out[fn] = append(out[fn], shape+" at line "+strconv.Itoa(fset.Position(n.Pos()).Line))
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		name := fd.Name.Name
		// The function's string and []byte parameters, when it is named
		// like a cut.
		params, limits := map[string]bool{}, map[string]bool{}
		lower := strings.ToLower(name)
		if slices.ContainsFunc(cutWords, func(w string) bool { return strings.Contains(lower, w) }) {
			for _, fld := range fd.Type.Params.List {
				for _, id := range fld.Names {
					if isTextType(fld.Type) {
						params[id.Name] = true
					}
					if t, ok := fld.Type.(*ast.Ident); ok && t.Name == "int" {
						limits[id.Name] = true
					}
				}
			}
		}
		// Variables that hold a []rune conversion.
		runeVars := map[string]bool{}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
				for i, rhs := range as.Rhs {
					if id, ok := as.Lhs[i].(*ast.Ident); ok && isRuneConv(rhs) {
						runeVars[id.Name] = true
					}
				}
			}
			return true
		})
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BinaryExpr:
				if x.Op == token.ADD && (isSliceOperand(x.X) && isEllipsis(x.Y) || isEllipsis(x.X) && isSliceOperand(x.Y)) {
					add(name, x, "marker")
				}
			case *ast.SliceExpr:
				if !isHeadOrTail(x) {
					break
				}
				if isRuneConv(x.X) {
					add(name, x, "runes")
				} else if id, ok := x.X.(*ast.Ident); ok && runeVars[id.Name] {
					add(name, x, "runes")
				} else if ok && params[id.Name] && mentions(x, limits) {
					add(name, x, "helper")
				}
			}
			return true
		})
	}
	return out
}

// isHeadOrTail: x[:hi] (or x[0:hi]), or x[len(...)-k:].
func isHeadOrTail(x *ast.SliceExpr) bool {
	if x.High != nil {
		lit, ok := x.Low.(*ast.BasicLit)
		return x.Low == nil || ok && lit.Value == "0"
	}
	b, ok := x.Low.(*ast.BinaryExpr)
	if !ok || b.Op != token.SUB {
		return false
	}
	c, ok := b.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	fn, ok := c.Fun.(*ast.Ident)
	return ok && fn.Name == "len"
}

// mentions reports whether the bounds of x use one of the names.
func mentions(x *ast.SliceExpr, names map[string]bool) bool {
	found := false
	for _, b := range []ast.Expr{x.Low, x.High} {
		if b == nil {
			continue
		}
		ast.Inspect(b, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && names[id.Name] {
				found = true
			}
			return !found
		})
	}
	return found
}

func isTextType(e ast.Expr) bool {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name == "string"
	}
	if at, ok := e.(*ast.ArrayType); ok && at.Len == nil {
		id, ok := at.Elt.(*ast.Ident)
		return ok && id.Name == "byte"
	}
	return false
}

func isRuneConv(e ast.Expr) bool {
	c, ok := e.(*ast.CallExpr)
	if !ok || len(c.Args) != 1 {
		return false
	}
	at, ok := c.Fun.(*ast.ArrayType)
	if !ok || at.Len != nil {
		return false
	}
	id, ok := at.Elt.(*ast.Ident)
	return ok && (id.Name == "rune" || id.Name == "int32")
}

// isSliceOperand: s[:n], or a conversion of one (string(b[:n])).
func isSliceOperand(e ast.Expr) bool {
	if c, ok := e.(*ast.CallExpr); ok && len(c.Args) == 1 {
		e = c.Args[0]
	}
	_, ok := ast.Unparen(e).(*ast.SliceExpr)
	return ok
}

func isEllipsis(e ast.Expr) bool {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return false
	}
	s, err := strconv.Unquote(lit.Value)
	return err == nil && (strings.Contains(s, "...") || strings.Contains(s, "…"))
}

// moduleCuts checks every non-test Go file under root but package redact,
// testdata and hidden directories; keys are "slash/path.go:func".
func moduleCuts(t *testing.T, root string) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "redact" || d.Name() == "testdata" || (strings.HasPrefix(d.Name(), ".") && rel != ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for fn, found := range findCuts(fset, f) {
			out[rel+":"+fn] = append(out[rel+":"+fn], found...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestOnlyRedactCutsStringsForOutput(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found: %v", err)
	}
	found := moduleCuts(t, root)
	for _, key := range slices.Sorted(mapKeys(found)) {
		if _, ok := cutAllowed[key]; !ok {
			t.Errorf("%s cuts a string for output (%s): cut with package redact (Redactor.Head, Redactor.Clip, Redactor.Tail; Clip for text of a record), which redacts before the cut", key, strings.Join(found[key], ", "))
		}
	}
	for key := range cutAllowed {
		if _, ok := found[key]; !ok {
			t.Errorf("allowed cut %s no longer exists: remove it from cutAllowed", key)
		}
	}
}

// TestTheCutCheckFlagsAPlantedCut: each shape the check knows is found in
// a file planted for it, and a slice that is not a cut for output is not.
func TestTheCutCheckFlagsAPlantedCut(t *testing.T) {
	t.Parallel()
	src := `package p

func describe(body string) string {
	if len(body) > 200 {
		return body[:200] + "..."
	}
	return body
}

func quote(b []byte) string { return string(b[:40]) + "…" }

func title(s string) string {
	r := []rune(s)
	return string(r[:10])
}

func clipBody(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func parse(line string) (string, string) {
	i := 3
	return line[:i], line[i:]
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "planted.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := findCuts(fset, f)
	for fn, shape := range map[string]string{"describe": "marker", "quote": "marker", "title": "runes", "clipBody": "helper"} {
		if len(got[fn]) == 0 || !strings.HasPrefix(got[fn][0], shape) {
			t.Errorf("planted cut in %s (%s) not flagged: %v", fn, shape, got[fn])
		}
	}
	if len(got["parse"]) > 0 {
		t.Errorf("a parser's slice flagged: %v", got["parse"])
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
