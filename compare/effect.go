package compare

import (
	"math"

	"github.com/assay-eval/assay"
)

// Power is the power at which MetricDelta.MDE is stated: the smallest true
// mean delta that a two-sided test at Alpha detects 80 % of the time.
const Power = 0.8

// Effect is the size of one measure's change beside its delta and interval:
// the standardised effect, the win/tie/loss counts and the smallest change
// the comparison could have seen.
type Effect struct {
	// SD is the sample standard deviation (n - 1) of the paired case
	// deltas (0 with fewer than 2 cases).
	SD float64 `json:"sd"`
	// DZ is the standardised paired effect d_z = mean delta / SD; null
	// when SD is 0 (every case moved alike, or fewer than 2 cases).
	DZ *float64 `json:"d_z"`
	// Wins, Ties and Losses count the paired cases whose delta went the
	// better way, was exactly 0, or went the worse way, by the measure's
	// direction (for a measure with no direction, up counts as a win).
	Wins   int `json:"wins"`
	Ties   int `json:"ties"`
	Losses int `json:"losses"`
	// MDE is the minimum detectable effect of this pair at Power and
	// Alpha, from SD and n (MDE); null when SD is 0 or there are fewer
	// than 2 cases: a pair whose deltas do not vary shows no noise to
	// size a change against, which is not the same as seeing every change.
	MDE *float64 `json:"mde"`
}

// EffectOf computes the Effect of a measure's paired case deltas (direction
// "higher", "lower" or "none"; alpha the level the MDE is stated at).
func EffectOf(d []float64, direction string, alpha float64) Effect {
	var e Effect
	for _, v := range d {
		up := v > 0
		switch {
		case v == 0:
			e.Ties++
		case up == (direction != "lower"):
			e.Wins++
		default:
			e.Losses++
		}
	}
	n := len(d)
	if n < 2 {
		return e
	}
	e.SD = sampleSD(d)
	if e.SD > 0 {
		dz := mean(d) / e.SD
		e.DZ = &dz
		mde := MDE(e.SD, n, alpha, Power)
		e.MDE = &mde
	}
	return e
}

// sampleSD is the sample standard deviation (divisor n - 1) of x; 0 for
// fewer than 2 values or when they are all equal (allEqual: not the
// rounding noise of float subtraction).
func sampleSD(x []float64) float64 {
	if len(x) < 2 || allEqual(x) {
		return 0
	}
	m := mean(x)
	var ss float64
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss / float64(len(x)-1))
}

// VarianceSplit divides the variance of a measure's paired deltas, with
// trials, into the part between cases and the part within cases (from
// trial to trial), by one-way analysis of variance over the case trials'
// deltas grouped by case (docs/metrics.md#variance-between-and-within-cases).
type VarianceSplit struct {
	// Trials is the mean number of paired trials per case.
	Trials float64 `json:"trials"`
	// Between and Within are the estimated variance components: of the
	// cases' true mean deltas, and of one trial's delta around its case's
	// mean. Between is (MS_between - MS_within) / k, floored at 0.
	Between float64 `json:"between"`
	Within  float64 `json:"within"`
	// BetweenShare and WithinShare are their shares of Between + Within
	// (summing to 1; both 0 when there is no variance at all).
	BetweenShare float64 `json:"between_share"`
	WithinShare  float64 `json:"within_share"`
	// Advice is "more trials" when the trial noise left in a case's mean
	// delta (Within / Trials) is larger than Between, "more cases"
	// otherwise, "" when there is no variance.
	Advice string `json:"advice"`
}

// varianceSplit decomposes the per-trial deltas of one measure grouped by
// case. It returns nil when no case has more than one paired trial (no
// within-case variance can be seen) or fewer than 2 cases are grouped.
func varianceSplit(groups [][]float64) *VarianceSplit {
	var n, cases int
	var grand float64
	multi := false
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		cases++
		n += len(g)
		for _, v := range g {
			grand += v
		}
		multi = multi || len(g) > 1
	}
	if !multi || cases < 2 || n <= cases {
		return nil
	}
	grand /= float64(n)
	var ssb, ssw, sumSq float64
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		m := mean(g)
		if !allEqual(g) {
			for _, v := range g {
				ssw += (v - m) * (v - m)
			}
		}
		ssb += float64(len(g)) * (m - grand) * (m - grand)
		sumSq += float64(len(g) * len(g))
	}
	msb := ssb / float64(cases-1)
	msw := ssw / float64(n-cases)
	// k0, the effective group size of an unbalanced one-way design.
	k0 := (float64(n) - sumSq/float64(n)) / float64(cases-1)
	vs := &VarianceSplit{Trials: float64(n) / float64(cases), Within: msw}
	vs.Between = math.Max(0, (msb-msw)/k0)
	total := vs.Between + vs.Within
	if total <= 0 {
		return vs
	}
	vs.BetweenShare = vs.Between / total
	vs.WithinShare = vs.Within / total
	vs.Advice = "more cases"
	if vs.Within/vs.Trials > vs.Between {
		vs.Advice = "more trials"
	}
	return vs
}

// varianceSplits is MetricDelta.Variance for every measure of all, from
// the per-trial paired deltas grouped by case (pairs sorted by id, then
// trial): all nil when no case has two paired trials.
func varianceSplits(base, cand *Compact, all []series, pairs []cpair) []*VarianceSplit {
	out := make([]*VarianceSplit, len(all))
	if caseCount(pairs) == len(pairs) {
		return out // one paired trial per case: varianceSplit finds no split
	}
	for i, s := range all {
		value := pairValue(base, cand, s.name, s.rate)
		if value == nil {
			continue
		}
		var groups [][]float64
		for a := 0; a < len(pairs); {
			b := a
			var g []float64
			for ; b < len(pairs) && pairs[b].key.id == pairs[a].key.id; b++ {
				if bv, cv, ok := value(pairs[b]); ok {
					g = append(g, cv-bv)
				}
			}
			groups = append(groups, g)
			a = b
		}
		out[i] = varianceSplit(groups)
	}
	return out
}

// measureValue returns the per-trial value of a measure, as buildSeries
// reads it.
func measureValue(name string, isRate bool) func(r *assay.CaseResult) (float64, bool) {
	if isRate {
		for _, r := range rates {
			if r.name == name {
				return r.value
			}
		}
		return nil
	}
	return func(r *assay.CaseResult) (float64, bool) {
		v, ok := r.Metrics[name]
		return v, ok
	}
}

// pairValue is measureValue in both cases of a compact pair: the two
// values and whether both runs define the measure (nil for a rate that is
// not one of rates).
func pairValue(base, cand *Compact, name string, isRate bool) func(cpair) (float64, float64, bool) {
	if isRate {
		for _, r := range rates {
			if r.name == name {
				return func(p cpair) (float64, float64, bool) {
					bv, bok := r.cvalue(p.b)
					cv, cok := r.cvalue(p.c)
					return bv, cv, bok && cok
				}
			}
		}
		return nil
	}
	return pairMetric(base, cand, base.metricIndex(name), cand.metricIndex(name))
}

// allEqual reports whether the values of x are equal up to the rounding
// of the subtractions that made them (a spread within 1e-12 of their
// scale): deltas of 0.45 - 0.5 and 0.49 - 0.54 are one change, whose
// float spread (about 1e-17) is no variance.
func allEqual(x []float64) bool {
	if len(x) == 0 {
		return true
	}
	lo, hi, scale := x[0], x[0], 1.0
	for _, v := range x {
		lo, hi, scale = math.Min(lo, v), math.Max(hi, v), math.Max(scale, math.Abs(v))
	}
	return hi-lo <= 1e-12*scale
}
