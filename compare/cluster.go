package compare

import (
	"fmt"

	"github.com/assay-eval/assay"
)

// MaxUndecidableClusters is the largest number of clusters (or cases) that
// can never give a two-sided sign-flip p below 0.05: the smallest p of n
// units is 2/2^n, 0.0625 for 5.
const MaxUndecidableClusters = 5

// clusterKey is the tag that groups dependent cases: Options.Cluster, else
// the candidate's suite's, else the baseline's ("" for none).
func clusterKey(base, cand *assay.Run, o Options) string {
	switch {
	case o.Cluster != "":
		return o.Cluster
	case cand.Suite.Cluster != "":
		return cand.Suite.Cluster
	}
	return base.Suite.Cluster
}

// clusterSeries replaces each measure's per-case values by per-cluster
// values: the mean over the cases of a cluster (cases whose candidate
// result carries the tag's value; a case without the tag is a cluster of
// its own). Each cluster then counts once in the sign-flip test, its
// interval and the effect size, as each case counts once across its
// trials. It returns the series and, per series, the number of cases.
func clusterSeries(base, cand *Compact, all []series, pairs []cpair, key string) ([]series, []int) {
	clusterOf := map[string]string{}
	for _, p := range pairs {
		if _, ok := clusterOf[p.key.id]; ok {
			continue
		}
		v, ok := cand.tag(p.ci, key)
		if !ok {
			v, ok = base.tag(p.bi, key)
		}
		if ok {
			clusterOf[p.key.id] = "t:" + v
		} else {
			clusterOf[p.key.id] = "c:" + p.key.id
		}
	}
	out := make([]series, len(all))
	cases := make([]int, len(all))
	for i, s := range all {
		ids := seriesIDs(pairs, pairValue(base, cand, s.name, s.rate))
		cases[i] = len(ids)
		idx := map[string]int{}
		var sb, sc []float64
		var n []int
		for k, id := range ids {
			c := clusterOf[id]
			j, ok := idx[c]
			if !ok {
				j = len(sb)
				idx[c] = j
				sb, sc, n = append(sb, 0), append(sc, 0), append(n, 0)
			}
			sb[j] += s.b[k]
			sc[j] += s.c[k]
			n[j]++
		}
		for j := range sb {
			sb[j] /= float64(n[j])
			sc[j] /= float64(n[j])
		}
		s.b, s.c = sb, sc
		out[i] = s
	}
	return out, cases
}

// seriesIDs are the case ids caseMeans keeps for a measure, in its order.
func seriesIDs(pairs []cpair, value func(cpair) (float64, float64, bool)) []string {
	var ids []string
	for i := 0; i < len(pairs); {
		j := i
		kept := false
		for ; j < len(pairs) && pairs[j].key.id == pairs[i].key.id; j++ {
			_, _, ok := value(pairs[j])
			kept = kept || ok
		}
		if kept {
			ids = append(ids, pairs[i].key.id)
		}
		i = j
	}
	return ids
}

// applyClusters records the clusters behind each measure (N back to the
// number of cases) and warns when too few clusters can decide anything.
func applyClusters(rep *Report, key string, cases []int) {
	rep.Cluster = key
	fewest := -1
	for i := range rep.Metrics {
		md := &rep.Metrics[i]
		md.Clusters = md.N
		md.N = cases[i]
		if md.Gated && (fewest < 0 || md.Clusters < fewest) {
			fewest = md.Clusters
		}
	}
	if fewest >= 0 && fewest <= MaxUndecidableClusters {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf(
			"only %d %s by %s: with %d or fewer clusters no change can reach p < 0.05 (the smallest sign-flip p of %d is %.4g), so \"~\" here means untestable, not \"no difference\"; add cases from more %s values",
			fewest, plural(fewest, "cluster", "clusters"), key, MaxUndecidableClusters, fewest, 2/float64(int(1)<<fewest), key))
	}
}
