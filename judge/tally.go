package judge

import (
	"fmt"

	"github.com/assay-eval/assay"
)

// maxUnstable is how many unstable results a summary names.
const maxUnstable = 100

// Tally totals the judge over a run's results, one at a time (a run need
// not keep its results). Its methods are not safe for concurrent use.
type Tally struct {
	j         *Judge
	s         assay.JudgeSummary
	spreadSum map[string]float64
	spreadN   map[string]int
	trials    bool
	probes    probeTally
}

// NewTally returns an empty tally for the judge's results; trials says
// whether the run makes more than one trial per case (unstable results
// are then named "id#trial").
func (j *Judge) NewTally(trials bool) *Tally {
	return &Tally{j: j, s: assay.JudgeSummary{Model: j.cfg.Model, Prompt: PromptVersion}, spreadSum: map[string]float64{}, spreadN: map[string]int{}, trials: trials, probes: probeTally{}}
}

// Add counts one result.
func (t *Tally) Add(r *assay.CaseResult) {
	jr := r.Judge
	if jr == nil {
		return
	}
	s := &t.s
	switch {
	case jr.Error != nil:
		s.Errors++
	case jr.NotJudged != "":
		s.NotJudged++
	default:
		s.Judged++
		if jr.Cached {
			s.Cached++
		}
		if jr.Model != "" {
			s.Model = jr.Model
		}
	}
	s.Calls = addInt(s.Calls, jr.Calls)
	s.PromptTokens = addInt(s.PromptTokens, jr.PromptTokens)
	s.CompletionTokens = addInt(s.CompletionTokens, jr.CompletionTokens)
	if jr.Cost != nil {
		s.Cost = addCost(s.Cost, *jr.Cost)
	}
	for _, sc := range jr.Scores {
		if sc.Spread != nil {
			t.spreadSum[sc.Criterion] += *sc.Spread
			t.spreadN[sc.Criterion]++
		}
	}
	t.probes.add(jr)
	if len(jr.CriteriaNotJudged) > 0 && jr.Judged() {
		s.PartlyJudged++
	}
	if len(jr.Unstable) > 0 {
		s.UnstableCases++
		if len(s.Unstable) < maxUnstable {
			id := r.ID
			if t.trials {
				id = fmt.Sprintf("%s#%d", r.ID, r.Trial)
			}
			s.Unstable = append(s.Unstable, id)
		}
	}
}

// Summary is the totals so far: counts, usage and cost (nil without
// prices; 0 with prices and nothing spent), the bound that stopped the
// judging, and with repeats the spread and agreement per criterion:
// spread is the mean over the judged results of max − min of a
// criterion's repeats, agreement 1 − spread / (scale max − scale min).
func (t *Tally) Summary() *assay.JudgeSummary {
	s := t.s
	s.Budget = t.j.Stopped()
	s.Breaker = t.j.Broken()
	if s.Cost == nil && t.j.priced() {
		zero := 0.0
		s.Cost = &zero
	}
	if t.j.repeats > 1 {
		s.Repeats = t.j.repeats
		for _, cr := range t.j.rubric {
			n := t.spreadN[cr.Name]
			if n == 0 {
				continue
			}
			if s.Spread == nil {
				s.Spread, s.Agreement = map[string]float64{}, map[string]float64{}
			}
			spread := t.spreadSum[cr.Name] / float64(n)
			s.Spread[cr.Name] = spread
			s.Agreement[cr.Name] = 1 - spread/(cr.Max-cr.Min)
		}
	}
	s.Unstable = append([]string(nil), s.Unstable...)
	s.Probes = t.probes.summary(t.j.probes, t.j.rubric)
	return &s
}
