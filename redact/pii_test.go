package redact_test

import (
	"strings"
	"testing"

	"github.com/assay-eval/assay/redact"
)

func TestPII(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		p    redact.PII
		in   string
		want string
	}{
		{"email", redact.PII{}, "write to jane.doe+kb@mail.example.co.uk today", "write to [email] today"},
		{"phone intl", redact.PII{}, "call +1 415 555 0134 now", "call [phone] now"},
		{"phone dashes", redact.PII{}, "call 415-555-0134", "call [phone]"},
		{"phone area", redact.PII{}, "call (030) 1234-567", "call [phone]"},
		{"date is not a phone", redact.PII{}, "since 2026-12-07", "since 2026-12-07"},
		{"version is not a phone", redact.PII{}, "v1.20.2 and 10.0", "v1.20.2 and 10.0"},
		{"card", redact.PII{}, "card 4111111111111111 declined", "card [number] declined"},
		{"short digits stay", redact.PII{}, "order 12345678", "order 12345678"},
		{"digit run configurable", redact.PII{Digits: 5}, "order 12345678", "order [number]"},
		{"bearer", redact.PII{}, "header Bearer abc.def-123456789", "header Bearer [credential]"},
		{"key=value", redact.PII{}, "my api_key=s3cr3tvalue and password: hunter22", "my api_key=[credential] and password: [credential]"},
		{"shape", redact.PII{}, "use sk-proj-ABCDEFGHIJKLMNOPqrst or AKIAABCDEFGHIJKLMNOP", "use [credential] or [credential]"},
		{"ordinary key words", redact.PII{}, "the keyword: search", "the keyword: search"},
		{"password is", redact.PII{}, "my password is hunter22, help", "my password is [credential], help"},
		{"key is prose", redact.PII{}, "where the key is stored", "where the key is stored"},
		{"jwt", redact.PII{}, "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N", "token [credential]"},
		{"keep email", redact.PII{Keep: []string{"email"}}, "ops@example.com 4111111111111111", "ops@example.com [number]"},
		{"keep all", redact.PII{Keep: redact.PIIKinds}, "ops@example.com +1 415 555 0134", "ops@example.com +1 415 555 0134"},
	} {
		if got := tc.p.String(tc.in); got != tc.want {
			t.Errorf("%s: %q -> %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestPIICheck(t *testing.T) {
	t.Parallel()
	if err := (redact.PII{Keep: []string{"names"}}).Check(); err == nil || !strings.Contains(err.Error(), `"names"`) {
		t.Errorf("err = %v, want one naming the unknown kind", err)
	}
	if err := (redact.PII{Digits: -1}).Check(); err == nil {
		t.Error("a negative digit run was accepted")
	}
	if err := (redact.PII{Keep: []string{"phone"}}).Check(); err != nil {
		t.Error(err)
	}
}
