package nesting

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestYAMLDeep(t *testing.T) {
	n := MaxDepth + 1
	for _, tc := range []struct {
		name      string
		src       string
		line, col int
	}{
		{"flow sequences", "a: " + strings.Repeat("[", n), 1, 3 + MaxDepth},
		{"flow mappings", "a: 1\nb: " + strings.Repeat("{x: ", n), 2, 4 + 4*(MaxDepth-1)},
		{"json", "{\"a\":\n" + strings.Repeat("[", n), 2, MaxDepth},
		{"block entries on one line", "a:\n  " + strings.Repeat("- ", n) + "x\n", 2, 3 + 2*(MaxDepth-1)},
		{"after a comment with brackets", "# [[[[\na: " + strings.Repeat("[", n), 2, 3 + MaxDepth},
		{"block mappings by indentation", indented(n), n, n},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := YAML([]byte(tc.src))
			if err == nil {
				t.Fatalf("no error for %d levels", n)
			}
			if err.Line != tc.line || err.Col != tc.col || !strings.Contains(err.Msg, "nested more than 1000 levels") {
				t.Fatalf("got %v, want %d:%d: nested more than 1000 levels...", err, tc.line, tc.col)
			}
		})
	}
}

// indented is a block mapping n levels deep, one key per line.
func indented(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	return b.String()
}

func TestYAMLNotDeep(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"at the limit", "a: " + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1)},
		{"top-level flow at the limit", strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)},
		{"an entry's flow at the limit", "- " + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1)},
		{"entries at the limit, a scalar last", strings.Repeat("- ", MaxDepth) + "x\n"},
		{"block mappings at the limit, a scalar last", indented(MaxDepth-1) + strings.Repeat(" ", MaxDepth-1) + "k: v\n"},
		{"a scalar on its own line at the limit", indented(MaxDepth) + strings.Repeat(" ", MaxDepth) + "v\n"},
		{"brackets in a comment", "a: 1 # " + strings.Repeat("[", 2*MaxDepth)},
		{"brackets in a double-quoted string", "a: \"" + strings.Repeat("[", 2*MaxDepth) + "\""},
		{"brackets in a single-quoted string", "a: 'it''s " + strings.Repeat("{", 2*MaxDepth) + "'"},
		{"brackets in a plain scalar", "a: x " + strings.Repeat("[", 2*MaxDepth)},
		{"brackets in a literal block", "a: |\n  " + strings.Repeat("[", 2*MaxDepth) + "\n  - - - -\nb: 1\n"},
		{"brackets in a literal block of an entry", "a:\n  - |\n    " + strings.Repeat("[", 2*MaxDepth) + "\n"},
		{"many siblings", strings.Repeat("- a: [1, {b: c}]\n  d: e\n", 5*MaxDepth)},
		{"json strings with escapes", `{"a": "\"[[[[", "b": [1, 2]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := YAML([]byte(tc.src)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestYAMLLong(t *testing.T) {
	long := strings.Repeat("x", MaxScalar+1)
	for _, tc := range []struct {
		name, src, what string
		line, col       int
	}{
		{"comment", "a: 1\n# " + long + "\n", "a comment", 2, 1},
		{"plain query", "a: 1\nquery: " + long + "\n", "a scalar", 2, 8},
		{"quoted query", "a: 1\nquery: \"" + long + "\"\n", "a string", 2, 8},
		{"literal block", "a: |\n  " + long + "\n", "a block scalar", 1, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := YAML([]byte(tc.src))
			if err == nil || err.Line != tc.line || err.Col != tc.col || !strings.HasPrefix(err.Msg, tc.what+" longer than 1 MiB") {
				t.Fatalf("got %v, want %d:%d: %s longer than 1 MiB", err, tc.line, tc.col, tc.what)
			}
		})
	}
}

func TestJSON(t *testing.T) {
	n := MaxDepth + 1
	err := JSON([]byte("{\"a\": \"[[[\",\n \"b\": " + strings.Repeat("[", n)))
	if err == nil || err.Line != 2 || err.Col != 7+MaxDepth-1 {
		t.Fatalf("got %v, want 2:%d", err, 7+MaxDepth-1)
	}
	if err := JSON([]byte(strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth))); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
}

// TestJSONBracketsInStrings: brackets in strings count towards whether
// the text is scanned, never towards its depth, on either side of the
// number of brackets that makes JSON scan.
func TestJSONBracketsInStrings(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	for _, extra := range []int{0, 1, MaxDepth} {
		src := `{"s": "` + strings.Repeat("{", extra) + `", "a": ` + deep[1:len(deep)-1] + `}`
		if err := JSON([]byte(src)); err != nil {
			t.Errorf("%d brackets in a string: %v", extra, err)
		}
		if err := JSON([]byte(`{"s": "` + strings.Repeat("[", extra) + `", "a": ` + deep + `}`)); err == nil {
			t.Errorf("%d brackets in a string: one level too deep, and no error", extra)
		}
	}
}

// TestRepositoryFiles checks that no YAML or JSON file of the repository
// is refused: the scan must not count what a parser does not.
func TestRepositoryFiles(t *testing.T) {
	root := filepath.Join("..", "..")
	n := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == ".git" || d.Name() == "fuzz") {
			return filepath.SkipDir
		}
		ext := filepath.Ext(p)
		if ext != ".yaml" && ext != ".yml" && ext != ".json" && ext != ".txtar" && ext != ".jsonl" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		n++
		if ext == ".txtar" {
			return nil // scripts hold files of every kind, deep ones on purpose
		}
		if e := YAML(b); e != nil {
			t.Errorf("%s:%v", p, e)
		}
		if ext == ".json" || ext == ".jsonl" {
			if e := JSON(b); e != nil {
				t.Errorf("%s:%v (json)", p, e)
			}
		}
		return nil
	})
	if n < 10 {
		t.Fatalf("found only %d files", n)
	}
}
