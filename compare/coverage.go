package compare

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
)

// coverageWarnings warns when the two runs' judged coverage differs: for a
// cutoff k both runs recorded, the mean unj@k of one exceeds the other's
// by more than assay.UnjudgedWarnAbove. Every metric counts unjudged
// documents non-relevant, so the run that surfaced more of them is scored
// lower for documents nobody judged, and a delta may be that. Runs that
// are equally (un)judged get no warning here: each run's own warnings
// give its metrics' ranges. One warning, for the cutoff with the largest
// difference (the smallest k on a tie).
func coverageWarnings(base, cand *assay.Run) []string {
	bu, cu := base.Summary.Unjudged, cand.Summary.Unjudged
	bestK, bestB, bestC := 0, 0.0, 0.0
	for _, name := range slices.Sorted(maps.Keys(cu)) {
		k, err := strconv.Atoi(strings.TrimPrefix(name, "unj@"))
		b, ok := bu[name]
		c := cu[name]
		if err != nil || k <= 0 || !ok || b.N == 0 || c.N == 0 {
			continue
		}
		d := abs(c.Mean - b.Mean)
		if !(d > assay.UnjudgedWarnAbove) {
			continue
		}
		if best := abs(bestC - bestB); bestK == 0 || d > best || d == best && k < bestK {
			bestK, bestB, bestC = k, b.Mean, c.Mean
		}
	}
	if bestK == 0 {
		return nil
	}
	more := "candidate"
	if bestB > bestC {
		more = "baseline"
	}
	return []string{fmt.Sprintf("judged coverage differs: %.1f %% of the baseline's top-%d documents are unjudged, %.1f %% of the candidate's; the %s is scored lower for documents nobody judged, so a delta may be that; judge them",
		100*bestB, bestK, 100*bestC, more)}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
