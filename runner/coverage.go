package runner

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/metric"
)

// CoverageWarnings words a summary's low judged coverage as warnings, one
// per cutoff k whose mean unj@k (Summary.Unjudged) is above
// assay.UnjudgedWarnAbove, in increasing k: the share of the top k documents
// that are unjudged, and the range of each metric read at that cutoff from
// its mean (unjudged counted non-relevant) to its Upper (counted
// relevant), in the order of metrics (the run's metric names; nil: sorted
// by name), leaving out those whose two values are equal. k is the run's
// k, the cutoff of the metrics without one (assay.DefaultK when 0).
func CoverageWarnings(s assay.Summary, metrics []string, k int) []string {
	type cut struct {
		k     int
		share float64
	}
	if k <= 0 {
		k = assay.DefaultK
	}
	if metrics == nil {
		metrics = slices.Sorted(maps.Keys(s.Metrics))
	}
	var cuts []cut
	for name, agg := range s.Unjudged {
		var ck int
		if _, err := fmt.Sscanf(name, "unj@%d", &ck); err != nil || agg.N == 0 || !(agg.Mean > assay.UnjudgedWarnAbove) {
			continue
		}
		cuts = append(cuts, cut{ck, agg.Mean})
	}
	slices.SortFunc(cuts, func(a, b cut) int { return cmp.Compare(a.k, b.k) })
	var out []string
	for _, c := range cuts {
		var ranges []string
		for _, name := range metrics {
			agg, ok := s.Metrics[name]
			spec, err := metric.Parse(name)
			if !ok || err != nil || agg.Upper == nil || *agg.Upper == agg.Mean {
				continue
			}
			mk := spec.K
			if mk <= 0 {
				mk = k
			}
			if mk != c.k {
				continue
			}
			r := fmt.Sprintf("%s between %.3f and %.3f", name, agg.Mean, *agg.Upper)
			if len(ranges) == 0 {
				r = fmt.Sprintf("%s is a lower bound, between %.3f and %.3f (unjudged counted non-relevant, then relevant)", name, agg.Mean, *agg.Upper)
			}
			ranges = append(ranges, r)
		}
		w := fmt.Sprintf("%.1f %% of the top-%d documents are unjudged (more than %g %%)", 100*c.share, c.k, 100*assay.UnjudgedWarnAbove)
		if len(ranges) > 0 {
			w += ": " + strings.Join(ranges, "; ")
		}
		out = append(out, w+"; judge them to narrow the range")
	}
	return out
}
