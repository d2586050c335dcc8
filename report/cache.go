package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/assay-eval/assay/cache"
)

// CacheStats writes the table of assay cache stats: one line per kind
// (entries, size on disk) and a total, or a line saying the cache is empty.
func CacheStats(w io.Writer, dir string, stats []cache.KindStats) error {
	if len(stats) == 0 {
		_, err := fmt.Fprintf(w, "cache %s: empty\n", Escape(dir))
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "kind\tentries\tbytes\t\n")
	var n int
	var b int64
	for _, s := range stats {
		fmt.Fprintf(tw, "%s\t%d\t%d\t\n", s.Kind, s.Entries, s.Bytes)
		n, b = n+s.Entries, b+s.Bytes
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t\n", n, b)
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "cache %s\n", Escape(dir))
	return err
}
