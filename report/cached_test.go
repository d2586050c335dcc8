package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestRenderersCountCachedCases: the text and markdown summaries say how
// many cases were answered from the cache, and say nothing of it when none
// was.
func TestRenderersCountCachedCases(t *testing.T) {
	t.Parallel()
	r := sampleRun()
	r.Summary.Cached = 3
	var txt, md bytes.Buffer
	if err := Text(&txt, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, r, nil); err != nil {
		t.Fatal(err)
	}
	if want := "cached   3 of 4 cases answered from the cache, not the system (no latency measured for them)\n"; !strings.Contains(txt.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, txt.String())
	}
	if want := "Cached 3 of 4 cases: answered from the cache, not the system (no latency measured for them).\n"; !strings.Contains(md.String(), want) {
		t.Errorf("markdown lacks %q:\n%s", want, md.String())
	}
	txt.Reset()
	md.Reset()
	r.Summary.Cached = 0
	Text(&txt, r, TextOptions{})
	Markdown(&md, r, nil)
	if strings.Contains(strings.ToLower(txt.String()+md.String()), "cached") {
		t.Errorf("a run with no cached case mentions the cache:\n%s\n%s", txt.String(), md.String())
	}
}
