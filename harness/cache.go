package harness

import (
	"fmt"
	"io"

	"github.com/assay-eval/assay/cache"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
)

// cacheDir is the cache directory of a run's store: under a store
// directory; "" with no store or a database store (store.IsURL), which
// keeps no files. The judge, --cache and builtin:hybrid's vectors all
// use it.
func cacheDir(storeDir string) string {
	if storeDir == "" || store.IsURL(storeDir) {
		return ""
	}
	return cache.StoreDir(storeDir)
}

// CacheStats writes the entries and bytes per kind of the response cache
// under the store at storeDir (assay cache stats). It creates nothing.
func CacheStats(w io.Writer, storeDir string) error {
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
	n, err := cache.At(cache.StoreDir(storeDir)).Clear(kind)
	if err != nil {
		return inputError(err)
	}
	_, err = fmt.Fprintf(w, "removed %d cache entries\n", n)
	return err
}
