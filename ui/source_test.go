package ui

import (
	"strings"
	"testing"
)

// TestFirstPageShowsWarnings: the first page of a large run not loaded
// yet (made from run.json's header and first rows) lists the run's
// warnings, which run.json holds after its cases; a run without warnings
// shows none.
func TestFirstPageShowsWarnings(t *testing.T) {
	st := benchStore(t)
	warned := synthRunWarned(t, st, 2000, 0, false, []string{"run stopped early: <b>two</b> errors", `a "warnings": [] lookalike`})
	plain := synthRun(t, st, 2000, 1, false)
	page := body(t, New(st, Options{}), "/run/"+warned)
	for _, w := range []string{"run stopped early: &lt;b&gt;two&lt;/b&gt; errors", "a &#34;warnings&#34;: [] lookalike"} {
		if !strings.Contains(page, w) {
			t.Errorf("the first page of a run with warnings lacks %q", w)
		}
	}
	if page := body(t, New(st, Options{}), "/run/"+plain); strings.Contains(page, "<h2>Warnings</h2>") {
		t.Errorf("a run without warnings shows a Warnings section")
	}
}
