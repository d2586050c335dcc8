package corpus

import (
	"path/filepath"
	"testing"

	"github.com/assay-eval/assay/internal/shareddata"
)

func sharedDir(tb testing.TB) string { return shareddata.Dir(tb) }

// BenchmarkLoadSciFact loads the BEIR SciFact corpus (5,183 documents,
// 8 MB of gzip-compressed JSONL).
func BenchmarkLoadSciFact(b *testing.B) {
	p := filepath.Join(sharedDir(b), "datasets", "scifact", "corpus.jsonl.gz")
	b.ReportAllocs()
	for b.Loop() {
		docs, err := Load(p)
		if err != nil {
			b.Fatal(err)
		}
		if len(docs) != 5183 {
			b.Fatalf("%d documents, want 5183", len(docs))
		}
	}
}

// BenchmarkLoadDir loads the GNO seed corpus, a directory of markdown files.
func BenchmarkLoadDir(b *testing.B) {
	p := filepath.Join(sharedDir(b), "seed-fixtures", "gno", "corpus")
	for b.Loop() {
		if _, err := Load(p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFingerprintSciFact(b *testing.B) {
	docs, err := Load(filepath.Join(sharedDir(b), "datasets", "scifact", "corpus.jsonl.gz"))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		Fingerprint(docs)
	}
}

// TestLoadSharedCorpora loads the real corpora in ../shared end to end.
func TestLoadSharedCorpora(t *testing.T) {
	t.Parallel()
	shared := sharedDir(t)
	docs, err := Load(filepath.Join(shared, "datasets", "scifact", "corpus.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 5183 {
		t.Errorf("scifact: %d documents, want 5183", len(docs))
	}
	gno, err := Load(filepath.Join(shared, "seed-fixtures", "gno", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	if len(gno) != 9 || gno[0].ID != "de/deployment-anleitung.md" {
		t.Errorf("gno: %d documents, first %q; want 9, de/deployment-anleitung.md", len(gno), gno[0].ID)
	}
	for _, d := range gno {
		if d.Title == "" || d.Title == d.ID {
			t.Errorf("gno %s: title %q, want its heading", d.ID, d.Title)
		}
	}
}
