package corpus

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzReadJSONL feeds arbitrary bytes to the JSONL reader: it must never
// panic, errors are one line positioned "c.jsonl:N: ...", and what it
// returns is sorted by id with no duplicates or empty ids.
func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(`{"_id": "a", "title": "T", "text": "x"}` + "\n" + `{"id": 2, "text": "y", "metadata": {"k": [1]}}`))
	f.Add([]byte("\n\n{\"_id\": \"\"}\n"))
	f.Add([]byte(`{"_id": "a", "text": "x"}` + "\r\n" + `{"_id": "a", "text": "x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		docs, err := ReadJSONL("c.jsonl", bytes.NewReader(b))
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "c.jsonl:") || strings.Contains(msg, "\n") {
				t.Fatalf("bad error %q", msg)
			}
			return
		}
		for i, d := range docs {
			if d.ID == "" {
				t.Fatal("empty id accepted")
			}
			if i > 0 && docs[i-1].ID >= d.ID {
				t.Fatalf("not sorted or duplicate: %q then %q", docs[i-1].ID, d.ID)
			}
		}
	})
}

// FuzzHeading: Heading never panics and returns a trimmed single line.
func FuzzHeading(f *testing.F) {
	f.Add("# Title\n")
	f.Add("---\na: b\n---\n```\n# no\n```\n## Yes ##\n")
	f.Fuzz(func(t *testing.T, md string) {
		h := Heading(md)
		if strings.ContainsAny(h, "\n") || strings.TrimSpace(h) != h {
			t.Fatalf("Heading(%q) = %q", md, h)
		}
	})
}
