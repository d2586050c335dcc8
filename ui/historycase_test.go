package ui

import (
	"strings"
	"testing"
)

// TestCaseHistoryReadsOneCase: the history of one case (a history cell's
// row, ?case=ID) reads that case's trials of each run through the case
// index, never a run whole (nothing is cached for the grid), and its page
// is the one the grid's outcomes give: the same HTML as from a server
// that read the runs whole for the grid first, and as from a store with
// the read-only methods only (read whole), for a case in both runs, one
// in the baseline only, and one in neither.
func TestCaseHistoryReadsOneCase(t *testing.T) {
	st := benchStore(t)
	synthRun(t, st, 300, 0, false)
	synthRun(t, st, 250, 3, true)
	for _, id := range []string{"q000007", "q000234", "q000290", "nope"} {
		u := "/history?suite=bench&case=" + id
		h := New(st, Options{})
		page := body(t, h, u)
		s := h.(*server)
		s.src.mu.Lock()
		outs, loaded := len(s.src.outs), len(s.src.runs)
		s.src.mu.Unlock()
		if outs != 0 || loaded != 0 {
			t.Errorf("%s: %d runs' outcomes and %d runs held to serve one case's history; want none", id, outs, loaded)
		}
		grid := New(st, Options{})
		body(t, grid, "/history?suite=bench")
		if g := body(t, grid, u); g != page {
			t.Errorf("%s: the case's history differs from its row of the grid:\n%s\nwant\n%s", id, page, g)
		}
		if w := body(t, New(&countingStore{Store: st}, Options{}), u); w != page {
			t.Errorf("%s: the case's history differs from the one read whole:\n%s\nwant\n%s", id, page, w)
		}
	}
	page := body(t, New(st, Options{}), "/history?suite=bench&case=q000290")
	if !strings.Contains(page, `class="cell absent"`) || !strings.Contains(page, `class="cell fail"`) {
		t.Errorf("q000290 (failed in the baseline, not in the candidate): %s", page)
	}
	page = body(t, New(st, Options{}), "/history?suite=bench&case=q000007")
	if !strings.Contains(page, `class="cell fail"`) || !strings.Contains(page, `class="cell pass"`) || !strings.Contains(page, "ndcg@10 ") {
		t.Errorf("q000007 (passed in the baseline, failed in the candidate): %s", page)
	}
}
