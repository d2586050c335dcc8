package aggregate

import (
	"math"
	"sort"

	"github.com/assay-eval/assay"
)

// Trials computes trial statistics over the case results of a run (one per
// case and trial). A trial whose target failed counts as not passed. A case
// is graded when any of its trials is graded or errored.
func Trials(cases []assay.CaseResult) assay.TrialStats {
	type acc struct {
		ct     assay.CaseTrials
		sums   []float64 // by metric index
		counts []int
	}
	byID := make(map[string]*acc, len(cases))
	var order []string
	var names []string
	nameIdx := map[string]int{}
	// per-trial metric sums, to take the spread across trials.
	trialSum := map[int][]float64{}
	trialN := map[int][]int{}
	st := assay.TrialStats{}
	for _, r := range cases {
		a := byID[r.ID]
		if a == nil {
			a = &acc{ct: assay.CaseTrials{ID: r.ID}}
			byID[r.ID] = a
			order = append(order, r.ID)
		}
		a.ct.Trials++
		if r.Error != nil {
			a.ct.Errors++
		}
		if r.Graded() || r.Error != nil {
			a.ct.Graded = true
		}
		if r.Passed() {
			a.ct.Passed++
		}
		for name, v := range r.Metrics {
			j, ok := nameIdx[name]
			if !ok {
				j = len(names)
				nameIdx[name] = j
				names = append(names, name)
			}
			for len(a.sums) <= j {
				a.sums = append(a.sums, 0)
				a.counts = append(a.counts, 0)
			}
			a.sums[j] += v
			a.counts[j]++
			ts, tn := trialSum[r.Trial], trialN[r.Trial]
			for len(ts) <= j {
				ts = append(ts, 0)
				tn = append(tn, 0)
			}
			ts[j] += v
			tn[j]++
			trialSum[r.Trial], trialN[r.Trial] = ts, tn
		}
		if a.ct.Trials > st.Trials {
			st.Trials = a.ct.Trials
		}
	}
	sort.Strings(order)
	passAny, passAll := 0, 0
	st.Cases = make([]assay.CaseTrials, 0, len(order))
	for _, id := range order {
		a := byID[id]
		ct := a.ct
		for j, n := range a.counts {
			if n == 0 {
				continue
			}
			if ct.Metrics == nil {
				ct.Metrics = make(map[string]float64, len(a.counts))
			}
			ct.Metrics[names[j]] = a.sums[j] / float64(n)
		}
		if ct.Graded {
			st.Graded++
			ct.PassAny = ct.Passed > 0
			ct.PassAll = ct.Passed == ct.Trials
			ct.Flaky = ct.PassAny && !ct.PassAll
			if ct.PassAny {
				passAny++
			}
			if ct.PassAll {
				passAll++
			}
			if ct.Flaky {
				st.Flaky = append(st.Flaky, id)
			}
		}
		st.Cases = append(st.Cases, ct)
	}
	if st.Graded > 0 {
		pa := float64(passAny) / float64(st.Graded)
		pl := float64(passAll) / float64(st.Graded)
		st.PassAny, st.PassAll = &pa, &pl
	}
	if len(names) > 0 {
		st.Metrics = make(map[string]assay.MeanSD, len(names))
		per := make([][]float64, len(names))
		for _, t := range sortedInts(trialSum) {
			for j, sum := range trialSum[t] {
				if n := trialN[t][j]; n > 0 {
					per[j] = append(per[j], sum/float64(n))
				}
			}
		}
		for j, xs := range per {
			st.Metrics[names[j]] = meanSD(xs)
		}
	}
	return st
}

func sortedInts[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// meanSD is the mean and the sample (n-1) standard deviation of xs.
func meanSD(xs []float64) assay.MeanSD {
	n := len(xs)
	if n == 0 {
		return assay.MeanSD{}
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(n)
	if n == 1 {
		return assay.MeanSD{Mean: mean, N: 1}
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return assay.MeanSD{Mean: mean, SD: math.Sqrt(ss / float64(n-1)), N: n}
}
