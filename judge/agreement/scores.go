package agreement

import (
	"math"

	"github.com/assay-eval/assay"
)

// Moments accumulate a mean and variance one value at a time (Welford).
type Moments struct {
	N    int
	mean float64
	m2   float64
}

// Add counts x.
func (m *Moments) Add(x float64) {
	m.N++
	d := x - m.mean
	m.mean += d / float64(m.N)
	m.m2 += d * (x - m.mean)
}

// Mean is the mean (0 with nothing counted).
func (m Moments) Mean() float64 { return m.mean }

// Var is the sample variance (n − 1 in the denominator; 0 below two).
func (m Moments) Var() float64 {
	if m.N < 2 {
		return 0
	}
	return m.m2 / float64(m.N-1)
}

// Scores collects a run's judge scores, one result at a time: per
// criterion the moments over every judged result (for the PPI's judge
// term), and the mean over trials of each case that keep names (the
// labelled cases; every case when keep is nil). It holds no more than
// that, so a run of any size can be read through it.
type Scores struct {
	keep  map[string]bool
	all   map[string]*Moments
	cases map[string]map[string]*Moments // criterion → case → trials
}

// NewScores returns an empty collection keeping the cases of keep (nil:
// every case).
func NewScores(keep map[string]bool) *Scores {
	return &Scores{keep: keep, all: map[string]*Moments{}, cases: map[string]map[string]*Moments{}}
}

// KeepLabelled is the case ids the labels name, for NewScores.
func KeepLabelled(l *Labels) map[string]bool {
	out := map[string]bool{}
	for _, r := range l.Rows {
		out[r.Case] = true
	}
	return out
}

// Add counts one result (a result the judge did not score counts
// nothing).
func (s *Scores) Add(r *assay.CaseResult) {
	if !r.Judge.Judged() {
		return
	}
	for _, sc := range r.Judge.Scores {
		if math.IsNaN(sc.Score) || math.IsInf(sc.Score, 0) {
			continue
		}
		m := s.all[sc.Criterion]
		if m == nil {
			m = &Moments{}
			s.all[sc.Criterion] = m
		}
		m.Add(sc.Score)
		if s.keep != nil && !s.keep[r.ID] {
			continue
		}
		byCase := s.cases[sc.Criterion]
		if byCase == nil {
			byCase = map[string]*Moments{}
			s.cases[sc.Criterion] = byCase
		}
		cm := byCase[r.ID]
		if cm == nil {
			cm = &Moments{}
			byCase[r.ID] = cm
		}
		cm.Add(sc.Score)
	}
}

// Case is the judge's score of a case on a criterion (the mean over its
// trials), and whether it has one.
func (s *Scores) Case(criterion, id string) (float64, bool) {
	m := s.cases[criterion][id]
	if m == nil {
		return 0, false
	}
	return m.Mean(), true
}

// Sum is the moments of a criterion's scores over every judged result.
func (s *Scores) Sum(criterion string) Moments {
	if m := s.all[criterion]; m != nil {
		return *m
	}
	return Moments{}
}
