package runner

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/metric"
)

// CoverageWarnings words a summary's low judged coverage as warnings, one
// per cutoff k whose mean unj@k (Summary.Unjudged) is above
// assay.UnjudgedWarnAbove and at which some metric would change with the
// unjudged documents counted relevant, in increasing k. It names the
// share of the top k documents that are unjudged and, in the order of
// metrics (the run's metric names; nil: sorted by name), each metric read
// at that cutoff whose mean (unjudged counted non-relevant) differs from
// its Upper (counted relevant): a rising one is a lower bound; a falling
// one (nDCG, map: the documents also join the ideal ranking) is said to
// fall. k is the run's k, the cutoff of the metrics without one
// (assay.DefaultK when 0).
func CoverageWarnings(s assay.Summary, metrics []string, k int) []string {
	if k <= 0 {
		k = assay.DefaultK
	}
	if metrics == nil {
		metrics = slices.Sorted(maps.Keys(s.Metrics))
	}
	type cut struct {
		k     int
		share float64
	}
	var cuts []cut
	for name, agg := range s.Unjudged {
		ck, err := strconv.Atoi(strings.TrimPrefix(name, "unj@"))
		if err != nil || ck <= 0 || agg.N == 0 || !(agg.Mean > assay.UnjudgedWarnAbove) {
			continue
		}
		cuts = append(cuts, cut{ck, agg.Mean})
	}
	slices.SortFunc(cuts, func(a, b cut) int { return cmp.Compare(a.k, b.k) })
	var out []string
	for _, c := range cuts {
		var rising, falling []string
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
			lo, up := agg.Mean, *agg.Upper
			switch {
			case up > lo && len(rising) == 0:
				rising = append(rising, fmt.Sprintf("%s is a lower bound, between %.3f and %.3f with them relevant", name, lo, up))
			case up > lo:
				rising = append(rising, fmt.Sprintf("%s between %.3f and %.3f", name, lo, up))
			case len(falling) == 0:
				falling = append(falling, fmt.Sprintf("with them relevant %s would fall from %.3f to %.3f (they also join the ideal ranking)", name, lo, up))
			default:
				falling = append(falling, fmt.Sprintf("%s from %.3f to %.3f", name, lo, up))
			}
		}
		if len(rising)+len(falling) == 0 {
			continue
		}
		var parts []string
		if len(rising) > 0 {
			parts = append(parts, strings.Join(rising, ", "))
		}
		if len(falling) > 0 {
			parts = append(parts, strings.Join(falling, ", "))
		}
		out = append(out, fmt.Sprintf("%.1f %% of the top-%d documents are unjudged (more than %g %%) and count as non-relevant: %s; judge them to narrow the range",
			100*c.share, c.k, 100*assay.UnjudgedWarnAbove, strings.Join(parts, "; ")))
	}
	return out
}
