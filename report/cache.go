package report

import (
	"io"
	"strconv"

	"github.com/assay-eval/assay/cache"
)

// CacheStats writes the table of assay cache stats: one line per kind
// (entries, bytes on disk) and a total, then the cache's directory; or a
// line saying the cache is empty.
func CacheStats(w io.Writer, dir string, stats []cache.KindStats) error {
	if len(stats) == 0 {
		p := &printer{w: w}
		p.f("cache %s: empty\n", dir)
		return p.err
	}
	rows := append(append([]cache.KindStats(nil), stats...), cache.KindStats{Kind: "total"})
	wk := len("kind")
	for _, s := range stats {
		rows[len(stats)].Entries += s.Entries
		rows[len(stats)].Bytes += s.Bytes
		wk = max(wk, len(s.Kind))
	}
	we := max(len("entries"), len(strconv.Itoa(rows[len(stats)].Entries)))
	wb := max(len("bytes"), len(strconv.FormatInt(rows[len(stats)].Bytes, 10)))
	p := &printer{w: w}
	p.f("%-*s  %*s  %*s\n", wk, "kind", we, "entries", wb, "bytes")
	for _, s := range rows {
		p.f("%-*s  %*d  %*d\n", wk, s.Kind, we, s.Entries, wb, s.Bytes)
	}
	p.f("cache %s\n", dir)
	return p.err
}
