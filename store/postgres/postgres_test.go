package postgres_test

import (
	"context"
	"strings"
	"sync"
	"testing"

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
	// 0002_shards, ...), each applied once in all.
	const version = 3
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
