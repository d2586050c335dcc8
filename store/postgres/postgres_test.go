package postgres_test

import (
	"context"
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

func openTest(t *testing.T) *postgres.Store {
	t.Helper()
	s, err := postgres.OpenStore(context.Background(), pgtest.URL(t), store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
