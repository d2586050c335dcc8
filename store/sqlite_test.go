package store_test

import (
	"testing"

	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/storetest"
)

func TestSQLiteConformance(t *testing.T) {
	storetest.Run(t, func(t testing.TB, root string) store.Store {
		s, err := store.Open(root)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
