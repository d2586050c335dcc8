package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestRenderersCountRetriedCases: the text and markdown summaries say how
// many cases were retried (and that latency leaves the waits out), and say
// nothing of the kind when none was.
func TestRenderersCountRetriedCases(t *testing.T) {
	t.Parallel()
	r := sampleRun()
	r.Summary.Retried = 2
	var txt, md bytes.Buffer
	if err := Text(&txt, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, r, nil); err != nil {
		t.Fatal(err)
	}
	if want := "retried  2 of 4 cases (latency excludes the backoff waits; latency_total_ms has them)\n"; !strings.Contains(txt.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, txt.String())
	}
	if want := "2 of 4 cases were retried; latency excludes the backoff waits.\n"; !strings.Contains(md.String(), want) {
		t.Errorf("markdown lacks %q:\n%s", want, md.String())
	}
	txt.Reset()
	md.Reset()
	r.Summary.Retried = 0
	Text(&txt, r, TextOptions{})
	Markdown(&md, r, nil)
	if strings.Contains(txt.String(), "retried") || strings.Contains(md.String(), "retried") {
		t.Errorf("a run with no retried case mentions retries:\n%s\n%s", txt.String(), md.String())
	}
}
