package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseNative feeds arbitrary bytes to the native parser. It must never
// panic, and every error must be one positioned line.
func FuzzParseNative(f *testing.F) {
	for _, p := range []string{"testdata/kb/suite.yaml", "testdata/kb/suite.json", "testdata/lint/findings.yaml"} {
		if b, err := os.ReadFile(filepath.FromSlash(p)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("assay: 1\ncases:\n  - id: a\n    query: q\n"))
	f.Add([]byte("assay: 1\nnugget_no_vital: zero\ncases:\n  - id: a\n    query: q\n    expect:\n      nuggets: [x, {text: y, importance: okay, match: [a, b], regex: z, parts: [c, [d, e]], assign: judge}, {text: w, assignment: support}]\n"))
	f.Add([]byte("assay: 1\ncases:\n  - id: c\n    turns:\n      - hi\n      - {query: q, relevant: [d], expect: {tools: [search]}}\n    expect:\n      max_turns: 2\n      tools: {mode: superset, args: subset, calls: [{name: s, args: {q: [1, {a: b}]}, args_match: exact, args_regex: {q: ^x}}]}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := parseNative("f.yaml", src)
		if err != nil {
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Fatalf("error spans lines: %q", msg)
			}
			if !strings.HasPrefix(msg, "f.yaml:") {
				t.Fatalf("error not positioned: %q", msg)
			}
			return
		}
		if p == nil || p.suite == nil {
			t.Fatal("no error and no suite")
		}
		if len(p.caseLines) != len(p.suite.Cases) {
			t.Fatalf("%d case line maps for %d cases", len(p.caseLines), len(p.suite.Cases))
		}
		for _, pr := range p.probs {
			if pr.line < 1 || pr.col < 1 || strings.Contains(pr.msg, "\n") {
				t.Fatalf("bad problem %+v", pr)
			}
		}
	})
}
