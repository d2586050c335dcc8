package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bigSuite writes a native suite of n cases over an inline corpus of n
// documents and returns its path.
func bigSuite(tb testing.TB, n int) string {
	tb.Helper()
	var b strings.Builder
	b.WriteString("assay: 1\nname: big\nmetrics: [ndcg@10, recall@5, mrr]\ngates: [pass_rate >= 0.8]\ncorpus:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {id: doc-%d, title: Document %d, text: \"Some text about topic %d and a few words more.\"}\n", i, i, i)
	}
	b.WriteString("cases:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - id: q%05d\n    query: What does document %d say about subject %d?\n    tags: {lang: en, category: factual}\n", i, i, i)
		fmt.Fprintf(&b, "    judgments: {doc-%d: 2, doc-%d: 1}\n", i, (i+1)%n)
		fmt.Fprintf(&b, "    expect:\n      answer_includes: [topic %d]\n      answer_matches: '(?i)topic\\s+%d'\n      retrieves: [doc-%d]\n", i, i, i)
	}
	p := filepath.Join(tb.TempDir(), "big.yaml")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// BenchmarkLoadNative1000 loads a 1,000-case native suite with a
// 1,000-document inline corpus (about 300 KB of YAML).
func BenchmarkLoadNative1000(b *testing.B) {
	p := bigSuite(b, 1000)
	b.ReportAllocs()
	for b.Loop() {
		s, err := Load(p)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Cases) != 1000 {
			b.Fatalf("%d cases", len(s.Cases))
		}
	}
}

// BenchmarkLintNative1000 lints the same suite (load plus every check).
func BenchmarkLintNative1000(b *testing.B) {
	p := bigSuite(b, 1000)
	for b.Loop() {
		fs, err := Lint(p, LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(fs) != 0 {
			b.Fatalf("findings: %v", fs[0])
		}
	}
}

func BenchmarkFingerprint1000(b *testing.B) {
	s, err := Load(bigSuite(b, 1000))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		Fingerprint(s)
	}
}
