package cli

import (
	"fmt"
	"io"

	"github.com/assay-eval/assay/cache"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
)

// noCacheIn refuses a database store, which has no cache; its
// URL was taken for a directory name, and shown, password included.
func noCacheIn(storeDir string) error {
	if store.IsURL(storeDir) {
		return usageError("the cache is the directory cache/ under a store directory: give --store DIR", "a database store has no response cache")
	}
	return nil
}

// CacheStats writes the entries and bytes per kind of the response cache
// under the store at storeDir (assay cache stats). It creates nothing.
func CacheStats(w io.Writer, storeDir string) error {
	if err := noCacheIn(storeDir); err != nil {
		return err
	}
	c := cache.At(cache.StoreDir(storeDir))
	st, err := c.Stats()
	if err != nil {
		return inputError(err)
	}
	return report.CacheStats(w, c.Dir(), st)
}

// CacheClear removes the entries of kind ("" = all) of the response cache
// under the store at storeDir, and says how many (assay cache clear).
func CacheClear(w io.Writer, storeDir, kind string) error {
	if err := noCacheIn(storeDir); err != nil {
		return err
	}
	n, err := cache.At(cache.StoreDir(storeDir)).Clear(kind)
	if err != nil {
		return inputError(err)
	}
	_, err = fmt.Fprintf(w, "removed %d cache entries\n", n)
	return err
}
