package compare

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
)

// coverageWarnings warns, for each run whose judged coverage is low (a mean
// unj@k above assay.UnjudgedWarnAbove), that a change of its metrics may
// be documents nobody judged: the worst cutoff is named.
func coverageWarnings(base, cand *assay.Run) []string {
	var w []string
	for _, r := range []struct {
		name string
		run  *assay.Run
	}{{"baseline", base}, {"candidate", cand}} {
		k, share := worstCoverage(r.run.Summary.Unjudged)
		if k == 0 {
			continue
		}
		w = append(w, fmt.Sprintf("%.1f %% of the %s's top-%d documents are unjudged: a metric that moved may have moved with documents nobody judged; judge them (each run's warnings give the metrics' ranges)", 100*share, r.name, k))
	}
	return w
}

// worstCoverage is the cutoff with the largest mean unj@k above the
// threshold and that mean; k is 0 when none is above it.
func worstCoverage(unj map[string]assay.MetricAgg) (k int, share float64) {
	type cut struct {
		k     int
		share float64
	}
	var cuts []cut
	for name, agg := range unj {
		n, err := strconv.Atoi(strings.TrimPrefix(name, "unj@"))
		if err != nil || n <= 0 || agg.N == 0 || !(agg.Mean > assay.UnjudgedWarnAbove) {
			continue
		}
		cuts = append(cuts, cut{n, agg.Mean})
	}
	if len(cuts) == 0 {
		return 0, 0
	}
	c := slices.MaxFunc(cuts, func(a, b cut) int {
		if a.share != b.share {
			return cmp.Compare(a.share, b.share)
		}
		return cmp.Compare(b.k, a.k) // the smaller cutoff on a tie
	})
	return c.k, c.share
}
