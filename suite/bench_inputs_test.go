package suite

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// Generated inputs of the classes whose cost once grew faster than their
// size: a mapping of many keys, many judgments, a very long
// query or comment, deep nesting. The benchmarks below and the tests in
// limits_test.go use them; docs/benchmarks.md has the figures.

// bigMappingSuite is a one-case suite whose judgments mapping has n keys,
// in style "block", "flow" or "json".
func bigMappingSuite(n int, style string) string {
	var b strings.Builder
	switch style {
	case "block":
		b.WriteString("assay: 1\nname: big\ncases:\n  - id: q\n    query: q\n    judgments:\n")
		for i := range n {
			fmt.Fprintf(&b, "      d%d: 1\n", i)
		}
	case "flow":
		b.WriteString("assay: 1\nname: big\ncases:\n  - id: q\n    query: q\n    judgments: {")
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "d%d: 1", i)
		}
		b.WriteString("}\n")
	case "json":
		b.WriteString(`{"assay": 1, "name": "big", "cases": [{"id": "q", "query": "q", "judgments": {`)
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, `"d%d": 1`, i)
		}
		b.WriteString("}}]}\n")
	default:
		panic(style)
	}
	return b.String()
}

// longQuerySuite is a one-case suite whose query (or, with comment, a
// comment in the case) is n bytes long.
func longQuerySuite(n int, comment bool) string {
	long := strings.Repeat("x", n)
	if comment {
		return "assay: 1\nname: long\ncases:\n  - id: q\n    # " + long + "\n    query: q\n    relevant: [d]\n"
	}
	return "assay: 1\nname: long\ncases:\n  - id: q\n    query: " + long + "\n    relevant: [d]\n"
}

// deepSuite is a suite whose case tags value is n flow sequences deep.
func deepSuite(n int) string {
	return "assay: 1\nname: deep\ncases:\n  - id: q\n    query: q\n    tags: " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n"
}

// BenchmarkParseLargeMapping parses a case whose judgments mapping has
// 40,000 keys, by the whole-document parse.
func BenchmarkParseLargeMapping(b *testing.B) {
	for _, style := range []string{"block", "flow", "json"} {
		src := []byte(bigMappingSuite(40000, style))
		{
			b.Run(style+"/whole", func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := parseNative("big.yaml", src); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkParseLongQuery parses a suite with a 1 MiB query (the longest a
// scalar may be) and refuses one with a 100 MB query.
func BenchmarkParseLongQuery(b *testing.B) {
	for _, tc := range []struct {
		name string
		n    int
		ok   bool
	}{{"1MiB", 1 << 20, true}, {"100MB", 100 << 20, false}} {
		src := []byte(longQuerySuite(tc.n, false))
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				_, err := parseNative("long.yaml", src)
				if (err == nil) != tc.ok {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseDeep refuses a suite nested 60,000 levels deep.
func BenchmarkParseDeep(b *testing.B) {
	src := []byte(deepSuite(60000))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseNative("deep.yaml", src); err == nil {
			b.Fatal("no error")
		}
	}
}

// BenchmarkLintManyJudgments lints a case with 20,000 judgments whose
// query is 1 MB (the leakage check looks for every judged id in it).
func BenchmarkLintManyJudgments(b *testing.B) {
	var s strings.Builder
	s.WriteString("assay: 1\ncorpus: [{id: d0, text: x}]\ncases:\n  - id: q\n    query: see d17 ")
	s.WriteString(strings.Repeat("word ", 200000))
	s.WriteString("\n    judgments:\n")
	for i := range 20000 {
		fmt.Fprintf(&s, "      d%d: 1\n", i)
	}
	p := b.TempDir() + "/s.yaml"
	if err := os.WriteFile(p, []byte(s.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Lint(p, LoadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
