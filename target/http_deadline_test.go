package target

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
)

// TestHTTPAttemptAndCaseDeadlines: a request that gets no response ends at
// whichever deadline comes first, the attempt's (the target's timeout:
// "no response within") or the case's (the caller's context: "case
// deadline exceeded"), also when the attempt's own timer is not made
// because the case's deadline comes first.
func TestHTTPAttemptAndCaseDeadlines(t *testing.T) {
	t.Parallel()
	fs := newFaultServer(t)
	p := writeFile(t, "target.yaml", `http:
  url: `+fs.srv.URL+`/ask
  body: {id: "{{.ID}}", query: "{{.Query}}"}
  timeout: 300ms
  retries: 0
`)
	tg, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Close(tg) })
	for _, tc := range []struct {
		name     string
		deadline time.Duration // of the case's context; 0: none
		in       string
		atMost   time.Duration
	}{
		{"no-case-deadline", 0, "no response within 300ms", 5 * time.Second},
		{"case-deadline-later", 5 * time.Second, "no response within 300ms", 4 * time.Second},
		{"case-deadline-first", 100 * time.Millisecond, "case deadline exceeded", 290 * time.Millisecond},
		{"case-deadline-same", 300 * time.Millisecond, "case deadline exceeded", 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.deadline)
				defer cancel()
			}
			start := time.Now()
			o, err := tg.Observe(ctx, assay.Case{ID: "hang", Query: "q"})
			took := time.Since(start)
			if err == nil {
				t.Fatalf("no error: %+v", o)
			}
			e := assay.AsError(err)
			if e.Class != assay.ErrTimeout || !strings.Contains(e.Message, tc.in) {
				t.Errorf("error %s %q, want %s containing %q", e.Class, e.Message, assay.ErrTimeout, tc.in)
			}
			if took > tc.atMost {
				t.Errorf("took %s, want at most %s", took, tc.atMost)
			}
		})
	}
}
