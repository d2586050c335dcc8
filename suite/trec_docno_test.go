package suite

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTRECCorpusDocnoIDs: a TREC suite's corpus directory of DOCNO.txt files
// gives each document its DOCNO as id, so the qrels' docnos judge them.
func TestTRECCorpusDocnoIDs(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"qrels.txt":              "401 0 FT911-3 1\n401 0 LA0101-7 0\n",
		"topics.txt":             "<top>\n<num> Number: 401\n<title> raku kilns\n</top>\n",
		"corpus/FT911-3.txt":     "raku kilns fire fast\n",
		"corpus/la/LA0101-7.txt": "a story about kilns\n",
	}
	for p, body := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != FormatTREC || len(s.Corpus) != 2 {
		t.Fatalf("format %q, %d documents", s.Format, len(s.Corpus))
	}
	if d := s.Corpus[0]; d.ID != "FT911-3" || d.Path != "FT911-3.txt" {
		t.Errorf("document 0: id %q path %q, want FT911-3, FT911-3.txt", d.ID, d.Path)
	}
	if d := s.Corpus[1]; d.ID != "LA0101-7" || d.Path != "la/LA0101-7.txt" {
		t.Errorf("document 1: id %q path %q, want LA0101-7, la/LA0101-7.txt", d.ID, d.Path)
	}
	fs, err := Lint(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if f.Severity == SeverityError {
			t.Errorf("lint: %s", f)
		}
	}
}
