package ui

import (
	"context"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/assay-eval/assay/store"
)

// listCounter is the fixture's files store, counting its listings of
// every run (List with no filter, what resolving a run id did: it reads
// the header of every run in the store) and its ListPrefix calls (which
// read those of the runs whose id starts with the prefix). A filtered
// List (the comparison's history of the baseline's suite) is the page's
// content, not the REF's resolution, and is not counted.
type listCounter struct {
	*store.Files
	lists, prefixes atomic.Int64
}

func (c *listCounter) List(ctx context.Context, f store.Filter) ([]store.Entry, error) {
	if f.Suite == "" && f.Status == "" && f.ShardGroup == "" && !f.NoShards && len(f.Labels) == 0 {
		c.lists.Add(1)
	}
	return c.Files.List(ctx, f)
}

func (c *listCounter) ListPrefix(ctx context.Context, prefix string) ([]store.Entry, error) {
	c.prefixes.Add(1)
	return c.Files.ListPrefix(ctx, prefix)
}

// TestRunRefResolvedOnceWithoutListing serves the pages that name runs by
// id (a run first cold, then loaded, a case, a comparison, a case diff)
// and counts the store's listings per request: a run id names its run
// without reading every run's header (no List), and each REF of a
// request is resolved once (one ListPrefix a REF), however many ways the
// page reads its run.
func TestRunRefResolvedOnceWithoutListing(t *testing.T) {
	f := getFixture(t)
	fs, ok := f.st.(*store.Files)
	if !ok {
		t.Fatalf("the fixture's store is a %T, not a *store.Files", f.st)
	}
	st := &listCounter{Files: fs}
	h := New(st, Options{PageSize: 5})
	c := serverLinks{}
	for _, tc := range []struct {
		url  string
		refs int64
	}{
		{c.Run(f.qsCand), 1},                     // cold: the first rows
		{c.Run(f.qsCand), 1},                     // loaded by now, or loading
		{c.Run(f.qsCand) + "?status=failing", 1}, // a filtered page
		{c.Run(f.qsCand[:len(f.qsCand)-4]), 1},   // a unique prefix
		{c.Case(f.qsCand, "invite-token-hash"), 1},
		{c.Compare(f.qsBase, f.qsCand), 2},
		{c.CompareCase(f.hBase, f.hCand, "h1"), 2},
	} {
		st.lists.Store(0)
		st.prefixes.Store(0)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", tc.url, nil))
		if rec.Code != 200 {
			t.Fatalf("GET %s: %d\n%s", tc.url, rec.Code, rec.Body)
		}
		if n := st.lists.Load(); n != 0 {
			t.Errorf("GET %s listed every run %d time(s) (each reads every run's header); want 0", tc.url, n)
		}
		if n := st.prefixes.Load(); n != tc.refs {
			t.Errorf("GET %s resolved its REFs %d time(s); want %d (once each)", tc.url, n, tc.refs)
		}
	}
}
