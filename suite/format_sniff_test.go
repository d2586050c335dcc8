package suite

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A file longer than sniffPrefix is told native from its start (and not
// read whole), and is still told foreign when its start says so or cannot
// say.
func TestSniffLargeFiles(t *testing.T) {
	t.Parallel()
	big := func(head, item string) string {
		var b strings.Builder
		b.WriteString(head)
		for i := 0; b.Len() < 3*sniffPrefix; i++ {
			fmt.Fprintf(&b, item, i)
		}
		return b.String()
	}
	dir := writeFiles(t, map[string]string{
		"native.yaml":    big("# a golden set\nassay: 1\ncases:\n", "  - {id: c%d, query: q}\n"),
		"native.json":    big(`{"assay": 1, "cases": [`, `{"id": "c%d", "query": "q"}, `) + `{"id": "z", "query": "q"}]}`,
		"assaylast.json": big(`{"cases": [`, `{"id": "c%d", "query": "q"}, `) + `{"id": "z", "query": "q"}], "assay": 1}`,
		"kebab.yaml":     big("", "- id: c%d\n  query: q\n"),
		"qrels.txt":      big("", "%d 0 doc 1\n"),
		"gno.json":       big(`[`, `{"id": "%d", "query": "q", "relevantDocs": ["x"]}, `) + `{"id": "z", "query": "q", "relevantDocs": ["x"]}]`,
		"knowlex.json":   big(`{"questions": [`, `{"id": "%d"}, `) + `{"id": "z"}], "corpus": []}`,
		"oneline.txt":    strings.Repeat("x", 2*sniffPrefix),
	})
	for _, tc := range []struct {
		path, want string
		whole      bool // the file had to be read whole
	}{
		{"native.yaml", "", false},
		{"native.json", "", false},
		{"assaylast.json", "", true},
		{"kebab.yaml", FormatKebab, true},
		{"qrels.txt", FormatTREC, true},
		{"gno.json", FormatGNO, true},
		{"knowlex.json", FormatKnowlex, true},
		{"oneline.txt", "", true},
	} {
		got, data := sniffFormat(filepath.Join(dir, tc.path))
		if got != tc.want || (data != nil) != tc.whole {
			t.Errorf("%s: format %q, read whole %v; want %q, %v", tc.path, got, data != nil, tc.want, tc.whole)
		}
	}
}
