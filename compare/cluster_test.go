package compare_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/internal/pyoracle"
)

// clusteredPair builds two runs of n cases in k clusters (tag doc); the
// candidate's ndcg@10 moves by a per-cluster shift plus case noise.
func clusteredPair(seed uint64, n, k int, shift float64) (base, cand *assay.Run) {
	rng := rand.New(rand.NewPCG(seed, 9))
	shifts := make([]float64, k)
	for j := range shifts {
		shifts[j] = shift + 0.05*rng.NormFloat64()
	}
	tag := func(i int) map[string]string { return map[string]string{"doc": fmt.Sprintf("d%d", i%k)} }
	base = run("b", n, func(i int, c *assay.CaseResult) { c.Tags = tag(i) })
	cand = run("c", n, func(i int, c *assay.CaseResult) {
		c.Tags = tag(i)
		c.Metrics["ndcg@10"] += shifts[i%k] + 0.01*rng.NormFloat64()
	})
	base.Suite.Cluster = "doc"
	return base, cand
}

func TestClustersAreTheUnits(t *testing.T) {
	t.Parallel()
	base, cand := clusteredPair(1, 40, 8, 0.02)
	rep := compare.Runs(base, cand, compare.Options{})
	md := metric(t, rep, "ndcg@10")
	if rep.Cluster != "doc" || md.Clusters != 8 || md.N != 40 {
		t.Fatalf("cluster %q, clusters %d, n %d; want doc, 8, 40", rep.Cluster, md.Clusters, md.N)
	}
	// the same runs without clusters test 40 cases
	base.Suite.Cluster = ""
	flat := compare.Runs(base, cand, compare.Options{})
	if m := metric(t, flat, "ndcg@10"); m.Clusters != 0 || m.N != 40 || m.P == md.P {
		t.Fatalf("unclustered: clusters %d n %d p %v (clustered p %v)", m.Clusters, m.N, m.P, md.P)
	}
	// Options.Cluster names the tag for runs that do not record one
	if m := metric(t, compare.Runs(base, cand, compare.Options{Cluster: "doc"}), "ndcg@10"); m.Clusters != 8 || m.P != md.P {
		t.Fatalf("Options.Cluster: clusters %d p %v; want 8, %v", m.Clusters, m.P, md.P)
	}
}

func TestFiveClustersCannotDecide(t *testing.T) {
	t.Parallel()
	// 30 cases, all 0.1 better, but from 5 documents only: p >= 0.0625
	base, cand := clusteredPair(2, 30, 5, 0.1)
	rep := compare.Runs(base, cand, compare.Options{})
	md := metric(t, rep, "ndcg@10")
	if md.Significant || md.P < 0.0625 {
		t.Fatalf("5 clusters: significant %v p %v", md.Significant, md.P)
	}
	found := false
	for _, w := range rep.Warnings {
		found = found || strings.Contains(w, "only 5 clusters by doc: with 5 or fewer clusters no change can reach p < 0.05")
	}
	if !found {
		t.Fatalf("no warning about 5 clusters: %q", rep.Warnings)
	}
	// six clusters moving alike can decide
	base, cand = clusteredPair(3, 30, 6, 0.1)
	if md := metric(t, compare.Runs(base, cand, compare.Options{}), "ndcg@10"); !md.Significant {
		t.Fatalf("6 clusters, all better: p %v, want significant", md.P)
	}
}

// TestClusteredTestAgainstScipy checks the clustered sign-flip p against
// scipy's exact permutation test (sign flips of one sample) over the
// cluster means of the case deltas, grouped by numpy.
func TestClusteredTestAgainstScipy(t *testing.T) {
	type pairIn struct {
		Deltas   []float64 `json:"deltas"`
		Clusters []string  `json:"clusters"`
	}
	var in []pairIn
	var got []float64
	for seed := range uint64(12) {
		k := 4 + int(seed%9) // 4..12 clusters: exact enumeration
		base, cand := clusteredPair(seed+10, 20+int(seed)*3, k, 0.01*float64(seed%4))
		rep := compare.Runs(base, cand, compare.Options{})
		got = append(got, metric(t, rep, "ndcg@10").P)
		var pi pairIn
		for i := range base.Cases {
			pi.Deltas = append(pi.Deltas, cand.Cases[i].Metrics["ndcg@10"]-base.Cases[i].Metrics["ndcg@10"])
			pi.Clusters = append(pi.Clusters, base.Cases[i].Tags["doc"])
		}
		in = append(in, pi)
	}
	const script = `
import sys, json
import numpy as np
from scipy.stats import permutation_test
d = json.load(sys.stdin)
out = []
for pair in d:
    deltas = np.array(pair['deltas'])
    labels = np.array(pair['clusters'])
    means = np.array([deltas[labels == c].mean() for c in sorted(set(pair['clusters']))])
    if np.all(means == 0):
        out.append(1.0)
        continue
    res = permutation_test((means,), np.mean, permutation_type='samples',
                           alternative='two-sided', n_resamples=np.inf)
    out.append(float(res.pvalue))
print(json.dumps(out))
`
	var want []float64
	pyoracle.Run(t, script, in, &want)
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Errorf("pair %d (%d cases): clustered p %v, scipy %v", i, len(in[i].Deltas), got[i], want[i])
		}
	}
}
