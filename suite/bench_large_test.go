package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// largeSuite writes a native suite of n cases without a corpus in one of
// three styles and returns its path: "flow" is what `targetstub -suite N`
// prints (one flow mapping per "- " item), "block" the usual multi-line
// block style, "json" an indented JSON file.
func largeSuite(tb testing.TB, n int, style string) string {
	tb.Helper()
	var b strings.Builder
	ext := ".yaml"
	switch style {
	case "flow":
		b.WriteString("assay: 1\nname: stub\ncases:\n")
		for i := range n {
			fmt.Fprintf(&b, "  - {id: c%06d, query: how often is the kettle descaled %d, expect: {answer_includes: [month]}}\n", i, i)
		}
	case "block":
		b.WriteString("assay: 1\nname: stub\ncases:\n")
		for i := range n {
			fmt.Fprintf(&b, "  - id: c%06d\n    query: how often is the kettle descaled %d\n    expect:\n      answer_includes:\n        - month\n", i, i)
		}
	case "json":
		ext = ".json"
		b.WriteString("{\n  \"assay\": 1,\n  \"name\": \"stub\",\n  \"cases\": [\n")
		for i := range n {
			if i > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, "    {\n      \"id\": \"c%06d\",\n      \"query\": \"how often is the kettle descaled %d\",\n      \"expect\": {\n        \"answer_includes\": [\n          \"month\"\n        ]\n      }\n    }", i, i)
		}
		b.WriteString("\n  ]\n}\n")
	default:
		tb.Fatalf("unknown style %q", style)
	}
	p := filepath.Join(tb.TempDir(), "large"+ext)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// BenchmarkLoadLarge loads a 10,000-case native suite in each style (about
// 1 MB of YAML, 2 MB of JSON). The lean parse (native_lean.go) reads them
// in pieces; the whole-document parse held goccy/go-yaml's AST of the
// whole file, about 10 KB a case.
func BenchmarkLoadLarge(b *testing.B) {
	for _, style := range []string{"flow", "block", "json"} {
		b.Run(style, func(b *testing.B) {
			p := largeSuite(b, 10000, style)
			b.ReportAllocs()
			for b.Loop() {
				s, err := Load(p)
				if err != nil {
					b.Fatal(err)
				}
				if len(s.Cases) != 10000 {
					b.Fatalf("%d cases", len(s.Cases))
				}
			}
		})
	}
}

// TestLargeSuiteStyles checks that the lean parse reads the benchmark's
// suites as the whole-document parse does, and takes the fast front end
// for all of their cases.
func TestLargeSuiteStyles(t *testing.T) {
	for _, style := range []string{"flow", "block", "json"} {
		p := largeSuite(t, 500, style)
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !sameParse(t, style, src) {
			t.Errorf("%s: lean path not taken", style)
		}
		sp, texts, pieces := splitPieces(t, src)
		for i, pc := range pieces {
			if sp.fastPiece(texts[i], pc) == nil {
				t.Fatalf("%s: case %d not read by the fast front end", style, i+1)
			}
		}
	}
}
