package ui

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
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

// countingStore is a Store (only the read-only interface: no files) that
// counts the lookups of latest, the List a REF "latest" resolves with.
type countingStore struct {
	Store
	mu     sync.Mutex
	latest int
}

func (c *countingStore) List(ctx context.Context, f store.Filter) ([]store.Entry, error) {
	if reflect.DeepEqual(f, store.Filter{Status: assay.StatusComplete, NoShards: true, Limit: 1}) {
		c.mu.Lock()
		c.latest++
		c.mu.Unlock()
	}
	return c.Store.List(ctx, f)
}

// TestComparePageResolvesEachRefOnce: the compare page resolves latest
// once and reads the comparison and the rows of that one run, even when
// the store is any value with the read-only methods only.
func TestComparePageResolvesEachRefOnce(t *testing.T) {
	f := getFixture(t)
	latest, err := store.ResolveEntry(context.Background(), f.st, "latest")
	if err != nil {
		t.Fatal(err)
	}
	cs := &countingStore{Store: f.st}
	page := body(t, New(cs, Options{}), "/compare?base="+f.qsBase+"&cand=latest")
	if cs.latest != 1 {
		t.Errorf("latest was resolved %d times for one compare page, want 1", cs.latest)
	}
	if !strings.Contains(page, report.ShortID(latest.RunID)) {
		t.Errorf("the compare page does not name the latest run %s", latest.RunID)
	}
}
