package suite

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoadFile: any bytes in a suite file on disk (the bounded reader, the
// format sniffing, the parse) give a suite or one line that names the file
// first, never a panic. Inputs that name other files (a corpus, a schema,
// a cases file) are left out: they would read whatever path the fuzzer
// writes.
func FuzzLoadFile(f *testing.F) {
	for _, p := range []string{"testdata/kb/suite.yaml", "testdata/kb/suite.json"} {
		if b, err := os.ReadFile(filepath.FromSlash(p)); err == nil && !mentionsFiles(b) {
			f.Add(b)
		}
	}
	f.Add([]byte("assay: 1\ncases:\n  - {id: a, query: q, k: 99999999999999999999}\n"))
	f.Add([]byte("assay: 1\ncases:\n  - {id: a, query: q, expect: {max_latency_ms: .inf}}\n"))
	f.Add([]byte("[{\"id\": \"q\", \"query\": \"x\", \"relevantDocs\": [\"a\"]}]"))
	f.Add([]byte("\xef\xbb\xbf{\"assay\": 1, \"cases\": []}"))
	f.Add([]byte("assay: 1\nmargins: {pass_rate: 0.05, nDCG@10: -1, x: .nan}\ncases:\n  - {id: a, query: q, relevant: [d]}\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src []byte) {
		if mentionsFiles(src) {
			t.Skip()
		}
		path := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Load(path)
		if err != nil {
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, path) {
				t.Fatalf("error is not one line naming the file first: %q", msg)
			}
			return
		}
		if s.Path != path {
			t.Fatalf("suite path %q, want %q", s.Path, path)
		}
		seen := map[string]bool{}
		for _, c := range s.Cases {
			if c.ID == "" || seen[c.ID] {
				t.Fatalf("case id %q empty or repeated", c.ID)
			}
			seen[c.ID] = true
		}
	})
}

// mentionsFiles reports whether a suite's bytes may name another file.
func mentionsFiles(b []byte) bool {
	l := bytes.ToLower(b)
	for _, w := range []string{"corpus", "schema", ".json"} {
		if bytes.Contains(l, []byte(w)) {
			return true
		}
	}
	return false
}
