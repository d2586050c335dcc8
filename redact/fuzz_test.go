package redact_test

import (
	"strings"
	"testing"
)

// FuzzString: redaction never panics, leaves no secret in the text, and
// redacting twice changes nothing more.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", tok, `\u0073k-live\/Abc123Def456`, `\\u0073k`, "%2", `\u`, `\ud83d\ude00`, `\uD800`, "sk-live%2FAbc123Def456", "x" + tok + tok} {
		f.Add(s)
	}
	r := newR()
	f.Fuzz(func(t *testing.T, s string) {
		out := r.String(s)
		if strings.Contains(out, tok) {
			t.Fatalf("secret left: %q -> %q", s, out)
		}
		if again := r.String(out); again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, out, again)
		}
	})
}
