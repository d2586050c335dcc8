package judge

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/assay-eval/assay/internal/pyoracle"
)

// TestProbeIntervalAgreesWithSciPy: a probe's effect is the mean of the
// paired differences, and its interval SciPy's percentile bootstrap of the
// mean (scipy.stats.bootstrap, another generator and 20000 resamples):
// the ends agree within a fifth of the standard error (the Monte Carlo
// error of a 2.5 % quantile of 2000 resamples is about 0.06 of it, and
// scores in tenths put the means of 12 cases on steps of 0.16 of it).
func TestProbeIntervalAgreesWithSciPy(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var in [][]float64
	for _, n := range []int{12, 40, 150} {
		d := make([]float64, n)
		for i := range d {
			// Judge scores on a 0-1 scale differ by tenths, mostly upward.
			d[i] = math.Round((rng.NormFloat64()*0.2+0.05)*10) / 10
		}
		in = append(in, d)
	}
	const script = `
import json, sys
import numpy as np
from scipy import stats
out = []
for d in json.load(sys.stdin):
    d = np.array(d)
    r = stats.bootstrap((d,), np.mean, confidence_level=0.95, n_resamples=20000, method='percentile', random_state=1)
    out.append([float(d.mean()), float(r.confidence_interval.low), float(r.confidence_interval.high), float(d.std(ddof=1) / np.sqrt(len(d)))])
print(json.dumps(out))
`
	var want [][4]float64
	pyoracle.Run(t, script, in, &want)
	for i, d := range in {
		mean, lo, hi, se := want[i][0], want[i][1], want[i][2], want[i][3]
		if got := probeMean(d); math.Abs(got-mean) > 1e-12 {
			t.Errorf("n=%d: effect %v, scipy %v", len(d), got, mean)
		}
		glo, ghi := probeInterval(d, "verbosity/relevance")
		if math.Abs(glo-lo) > 0.2*se || math.Abs(ghi-hi) > 0.2*se {
			t.Errorf("n=%d: interval [%v, %v], scipy [%v, %v] (se %v)", len(d), glo, ghi, lo, hi, se)
		}
	}
}
