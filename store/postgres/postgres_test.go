package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assay-eval/assay"

	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/postgres"
	"github.com/assay-eval/assay/store/postgres/pgtest"
	"github.com/assay-eval/assay/store/storetest"
)

// TestConformance runs store/storetest against a Postgres store: each
// directory the suite names is a schema of its own (the same directory,
// the same schema: a second handle on one store).
func TestConformance(t *testing.T) {
	base := pgtest.BaseURL(t)
	var mu sync.Mutex
	urls := map[string]string{}
	storetest.Run(t, func(tb testing.TB, root string) store.Store {
		mu.Lock()
		u, ok := urls[root]
		if !ok {
			var schema string
			var err error
			if u, schema, err = pgtest.NewSchema(base); err != nil {
				mu.Unlock()
				tb.Fatal(err)
			}
			urls[root] = u
			tb.Cleanup(func() { pgtest.DropSchema(base, schema) })
		}
		mu.Unlock()
		s, err := postgres.Open(u, store.OpenOptions{})
		if err != nil {
			tb.Fatal(err)
		}
		return s
	})
}

func openTest(t testing.TB, u string) *postgres.Store {
	t.Helper()
	s, err := postgres.OpenStore(context.Background(), u, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestConcurrentFirstOpensMigrateOnce: eight stores opened at once on a new
// database (eight CI jobs starting together) all open; the migrations are
// applied once, by one of them, under the advisory lock.
func TestConcurrentFirstOpensMigrateOnce(t *testing.T) {
	u := pgtest.EmptyURL(t)
	const n = 8
	var wg sync.WaitGroup
	stores := make([]*postgres.Store, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			stores[i], errs[i] = postgres.OpenStore(context.Background(), u, store.OpenOptions{Migrate: true})
		})
	}
	wg.Wait()
	// The schema's version is its number of migrations (0001_init,
	// 0002_shards, 0003_suite_cases, 0004_labels), each applied once in all.
	const version = 4
	applied := 0
	for i := range n {
		if errs[i] != nil {
			t.Errorf("open %d: %v", i, errs[i])
			continue
		}
		a, v := stores[i].Migrations()
		applied += len(a)
		if v != version {
			t.Errorf("open %d: schema version %d; want %d", i, v, version)
		}
		stores[i].Close()
	}
	if applied != version {
		t.Errorf("%d migrations were applied; want each of the %d once", applied, version)
	}
	s := openTest(t, u)
	if a, v := s.Migrations(); len(a) != 0 || v != version {
		t.Errorf("a later open applied %v (version %d); want nothing, version %d", a, v, version)
	}
	again, err := s.Migrate(context.Background())
	if err != nil || len(again) != 0 {
		t.Errorf("Migrate on a current schema = %v, %v; want nothing applied", again, err)
	}
}

// TestSearchPathWithoutSchema: a search_path naming no schema that exists
// is said so, not a raw "no schema has been selected".
func TestSearchPathWithoutSchema(t *testing.T) {
	base := pgtest.BaseURL(t)
	_, err := postgres.OpenStore(context.Background(), base+"&search_path=assay_no_such_schema", store.OpenOptions{})
	if err == nil || !strings.Contains(err.Error(), "the search_path names none that exists") {
		t.Errorf("open with a missing schema: %v", err)
	}
}

// TestKilledRunKeepsWhatItHad: the case lines of a run being written are
// committed in batches at least every second, so a process killed at any
// point has kept every case it appended more than a second or two before:
// another handle (another process) reads them while the writer is still
// open, never finished, and the run is incomplete. So is a full batch
// (1,000 lines) appended at once.
func TestKilledRunKeepsWhatItHad(t *testing.T) {
	u := pgtest.URL(t)
	w1 := openTest(t, u)
	other := openTest(t, u)
	ctx := context.Background()
	run := storetest.NewRun("kb", storetestT0)
	w, err := w1.Begin(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	lines := func() int {
		n := 0
		if err := other.Cases(ctx, run.RunID, false, func(assay.CaseResult) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for i := range 10 {
		if err := w.Append(storetest.Case(fmt.Sprintf("q%d", i), true, 1)); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(2500 * time.Millisecond)
	if n := lines(); n != 10 {
		t.Fatalf("2.5 s after 10 Appends another process reads %d case lines; want all 10 committed", n)
	}
	start := time.Now()
	for i := range 1000 {
		if err := w.Append(storetest.Case(fmt.Sprintf("b%d", i), true, 1)); err != nil {
			t.Fatal(err)
		}
	}
	for lines() < 1010 && time.Since(start) < 10*time.Second {
		time.Sleep(20 * time.Millisecond)
	}
	if n := lines(); n != 1010 {
		t.Errorf("after a batch of 1,000 Appends another process reads %d case lines; want 1010", n)
	}
	if got, err := other.Load(ctx, run.RunID); err != nil || got.Status != assay.StatusIncomplete {
		t.Errorf("the run being written: %v; want it incomplete", err)
	}
}
