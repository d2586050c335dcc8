package compare

import (
	"math"

	"github.com/assay-eval/assay"
)

// SuitePower is what a suite can see (`assay power`): for each measure,
// the spread of its paired deltas, the minimum detectable effect of a
// paired comparison of the suite as it is, and the number of cases needed
// to detect a given delta (docs/metrics.md#power-and-the-minimum-detectable-effect).
type SuitePower struct {
	Suite string `json:"suite"`
	// Latest is the run whose cases are counted; Previous the run before
	// it whose paired deltas give the spread ("" when there is none).
	Latest   string         `json:"latest"`
	Previous string         `json:"previous,omitempty"`
	Alpha    float64        `json:"alpha"`
	Power    float64        `json:"power"`
	Measures []MeasurePower `json:"measures"`
}

// MeasurePower is one measure's power figures.
type MeasurePower struct {
	Name string `json:"name"`
	// N is the number of cases of the latest run with the measure.
	N int `json:"n"`
	// SD is the standard deviation of the paired case deltas it is sized
	// with; Basis says where it comes from: "paired" (the deltas between
	// Previous and Latest) or "spread" (√2 × the sd of the latest run's
	// case values: the deltas of two independent runs, an upper bound
	// for paired runs, used when there is no previous run or its deltas
	// do not vary).
	SD    float64 `json:"sd"`
	Basis string  `json:"basis"`
	// MDE is the minimum detectable effect with N cases (null when SD is
	// 0 or N < 2: nothing to size it against).
	MDE *float64 `json:"mde"`
	// Delta is the change asked about (--delta), and CasesNeeded the
	// paired cases that detect it (null when not asked, or SD is 0).
	Delta       *float64 `json:"delta,omitempty"`
	CasesNeeded *int     `json:"cases_needed,omitempty"`
}

// PowerOf sizes the measures of the latest run of a suite (and the
// previous run, nil when there is none): names are the measures to size
// (IR metric names or rates), deltas the changes to find case counts for.
// A measure the latest run has no case for gets N 0 and null figures.
func PowerOf(latest, previous *assay.Run, names []string, deltas map[string]float64, alpha float64) SuitePower {
	sp := SuitePower{Suite: latest.Suite.Name, Latest: latest.RunID, Alpha: alpha, Power: Power, Measures: []MeasurePower{}}
	if previous != nil {
		sp.Previous = previous.RunID
	}
	self, _, _ := pairUp(latest, latest)
	for _, name := range names {
		mp := MeasurePower{Name: name}
		direction := RateDirection(name)
		value := measureValue(name, direction != "")
		vals, _ := caseMeans(self, func(p pair) (float64, float64, bool) {
			v, ok := value(p.b)
			return v, v, ok
		})
		mp.N = len(vals)
		if previous != nil {
			if d := PairMeasure(previous, latest, name, nil).Deltas; sampleSD(d) > 0 {
				mp.SD, mp.Basis = sampleSD(d), "paired"
			}
		}
		if mp.Basis == "" {
			mp.SD, mp.Basis = math.Sqrt2*sampleSD(vals), "spread"
		}
		if mp.SD > 0 && mp.N >= 2 {
			m := MDE(mp.SD, mp.N, alpha, Power)
			mp.MDE = &m
		}
		if d, ok := deltas[name]; ok {
			mp.Delta = &d
			if mp.SD > 0 {
				n := CasesNeeded(mp.SD, d, alpha, Power)
				mp.CasesNeeded = &n
			}
		}
		sp.Measures = append(sp.Measures, mp)
	}
	return sp
}
