package harness

import (
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/redact"
)

// The case a run keeps beside its results is redacted as everything
// stored is, and says its case sensitivity whatever the suite's default.
func TestStoredCaseIsRedactedAndExplicit(t *testing.T) {
	secrets := redact.New(redact.Secret{Name: "API_TOKEN", Value: "sk-live-0123456789abcdef"})
	c := storedCase(assay.Case{ID: "q1", Query: "why does sk-live-0123456789abcdef fail?"}, true, secrets)
	if strings.Contains(c.Query, "sk-live-0123456789abcdef") || !strings.Contains(c.Query, "why does ") {
		t.Errorf("stored query %q: want the secret replaced", c.Query)
	}
	if c.Expect.CaseSensitive == nil || !*c.Expect.CaseSensitive {
		t.Errorf("stored case sensitivity %v; want the suite default (true)", c.Expect.CaseSensitive)
	}
	no := false
	own := assay.Case{ID: "q2", Query: "q"}
	own.Expect.CaseSensitive = &no
	if c := storedCase(own, true, nil); *c.Expect.CaseSensitive {
		t.Error("a case's own case sensitivity was replaced by the suite default")
	}
}
