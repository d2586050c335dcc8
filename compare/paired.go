package compare

import (
	"math/rand/v2"

	"github.com/assay-eval/assay"
)

// Paired is one measure paired over the cases of two runs, for callers
// that test a single measure (package gate's non-inferiority and delta
// gates, ordering checks): the per-case deltas exactly as Runs computes
// them (candidate - baseline, each case the mean over its paired trials).
type Paired struct {
	Measure string
	// Direction is "higher", "lower" or "none" (which way is better).
	Direction string
	// Deltas holds one paired delta per case, in case id order.
	Deltas []float64
}

// PairMeasure pairs measure (an IR metric name as the cases record it, or
// one of the rates pass_rate, error_rate, no_hit_rate, refusal_rate,
// grounded_rate) over the case results of base and cand that keep accepts
// (nil keeps every one). A measure no paired case defines gives a Paired
// with no deltas.
func PairMeasure(base, cand *assay.Run, measure string, keep func(*assay.CaseResult) bool) Paired {
	direction := RateDirection(measure)
	isRate := direction != ""
	if !isRate {
		direction = "higher"
	}
	value := measureValue(measure, isRate)
	pairs, _, _ := pairUp(base, cand)
	if keep != nil {
		kept := pairs[:0:0]
		for _, p := range pairs {
			if keep(p.b) && keep(p.c) {
				kept = append(kept, p)
			}
		}
		pairs = kept
	}
	bs, cs := caseMeans(pairs, func(p pair) (float64, float64, bool) {
		bv, bok := value(p.b)
		cv, cok := value(p.c)
		return bv, cv, bok && cok
	})
	d := make([]float64, len(bs))
	for i := range d {
		d[i] = cs[i] - bs[i]
	}
	return Paired{Measure: measure, Direction: direction, Deltas: d}
}

// RateDirection is the better direction of a rate ("higher", "lower",
// "none"), "" for a name that is not one of compare's rates.
func RateDirection(name string) string {
	for _, r := range rates {
		if r.name == name {
			return r.direction
		}
	}
	return ""
}

// Interval is the sign-flip test of a measure's paired deltas and the
// interval it gives, as Runs computes them for MetricDelta (same seed and
// streams, so the numbers agree with assay compare's).
type Interval struct {
	N     int     // paired cases
	Delta float64 // mean paired delta
	P     float64 // two-sided p of "the mean delta is 0"
	// Lo and Hi bound the two-sided interval at the level asked for.
	Lo, Hi float64
}

// DeltaInterval tests the paired deltas and returns the two-sided
// interval of the mean delta at confidence 1 - alpha that the sign-flip
// test gives. The one-sided 1 - alpha/2 bound on either side is the
// matching end: DeltaInterval(d, 0.10, o).Lo is the one-sided 95 % lower
// bound. An empty d gives N 0 and P 1.
func DeltaInterval(d []float64, alpha float64, o Options) Interval {
	o = o.withDefaults()
	iv := Interval{N: len(d), Delta: mean(d), P: 1}
	if len(d) == 0 {
		return iv
	}
	h := hashDeltas(d)
	iv.P = signFlipP(d, o.ExactMax, o.Samples, rand.NewPCG(o.Seed, h))
	iv.Lo, iv.Hi = flipInterval(d, iv.P, alpha, o.ExactMax, o.Samples, rand.NewPCG(o.Seed, h^intervalStream))
	return iv
}

// DeltaIntervals is DeltaInterval of each of ds, bit for bit, the tests
// run on GOMAXPROCS workers (a segment table's measures are tens of
// independent tests, each fixed by its own deltas and Options.Seed, so the
// numbers do not depend on scheduling).
func DeltaIntervals(ds [][]float64, alpha float64, o Options) []Interval {
	out := make([]Interval, len(ds))
	jobs := make([]func(), len(ds))
	for i, d := range ds {
		jobs[i] = func() { out[i] = DeltaInterval(d, alpha, o) }
	}
	run(jobs)
	return out
}
