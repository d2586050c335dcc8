package store_test

import (
	"testing"

	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/storetest"
)

// TestFilesConformance: the files store with no index passes the same
// conformance suite as the stores with one.
func TestFilesConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t testing.TB, root string) store.Store {
		s, err := store.OpenFiles(root, store.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
