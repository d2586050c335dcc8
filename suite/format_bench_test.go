package suite

import (
	"path/filepath"
	"testing"
)

// BenchmarkLoadBEIRSciFact loads the SciFact test split (300 judged queries,
// 5,183 gzipped documents) the way `assay run DIR` does.
func BenchmarkLoadBEIRSciFact(b *testing.B) {
	dir := fxDataset(b, "scifact")
	for b.Loop() {
		s, err := LoadWith(dir, LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Cases) != 300 {
			b.Fatalf("%d cases", len(s.Cases))
		}
	}
}

// BenchmarkLoadGNOQueries loads GNO's queries.json and its 9-document corpus.
func BenchmarkLoadGNOQueries(b *testing.B) {
	p := fxSeed(b, "gno/queries.json")
	for b.Loop() {
		if _, err := Load(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadKnowlex loads Knowlex's golden_qa.json (inline corpus).
func BenchmarkLoadKnowlex(b *testing.B) {
	p := fxSeed(b, "knowlex-craftstack/golden_qa.json")
	for b.Loop() {
		if _, err := Load(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImportBEIRSciFact writes the native suite for SciFact.
func BenchmarkImportBEIRSciFact(b *testing.B) {
	dir := fxDataset(b, "scifact")
	out := filepath.Join(b.TempDir(), "scifact.yaml")
	for b.Loop() {
		if _, _, err := Import(FormatBEIR, dir, out, LoadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
