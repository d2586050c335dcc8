package cli_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness"
)

// Off a terminal, Progress writes plain lines (the last one when the run
// is done); on a terminal a run of one case shows nothing.
func TestProgressLinesOffTerminalNothingForOneCaseOnATerminal(t *testing.T) {
	clock := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	now := func() time.Time { clock = clock.Add(20 * time.Second); return clock }
	var out bytes.Buffer
	p := cli.NewProgress(&out, false, now)
	p.OnEvent(harness.Event{Kind: harness.Started, Total: 2})
	for _, id := range []string{"a", "b"} {
		p.OnEvent(harness.Event{Kind: harness.Observed, Result: &assay.CaseResult{ID: id}})
	}
	p.OnEvent(harness.Event{Kind: harness.Finished})
	p.Stop()
	if !strings.Contains(out.String(), "assay: progress 2/2 cases (100%)") {
		t.Errorf("off a terminal: %q", out.String())
	}
	out.Reset()
	p = cli.NewProgress(&out, true, now)
	p.OnEvent(harness.Event{Kind: harness.Started, Total: 1})
	p.OnEvent(harness.Event{Kind: harness.Observed, Result: &assay.CaseResult{ID: "a"}})
	p.OnEvent(harness.Event{Kind: harness.Finished})
	p.Stop()
	if out.Len() != 0 {
		t.Errorf("one case on a terminal: %q, want nothing", out.String())
	}
}
