package agreement

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/diag"
)

// Defaults of Compute.
const (
	// MinLabels is the fewest labelled cases of a criterion on which its
	// agreement can validate the judge (min_kappa): below it κ's interval
	// is too wide to tell a fair judge from a good one.
	MinLabels = 30
	// DefaultResamples is the bootstrap's number of resamples.
	DefaultResamples = 2000
	// DefaultSeed seeds the bootstrap, so that the same labels give the
	// same intervals.
	DefaultSeed = 1
	// DefaultDisagreements is how many of the cases where judge and
	// people disagree most are named.
	DefaultDisagreements = 10
	minResamples         = 100
	// maxPairs bounds the labeller pairs shown.
	maxPairs = 10
	// z95 is the standard normal's 97.5 % quantile.
	z95 = 1.959963984540054
)

// maxDraws bounds a bootstrap's work: resamples × n cases drawn. Past it
// the resamples are fewer (at least minResamples), so that a large labels
// file costs seconds, not hours. A variable only so that a test can show
// the cut at a smaller size.
var maxDraws = 20_000_000

// Options tune Compute; the zero value uses the defaults.
type Options struct {
	// Threshold per criterion: a score at or above it is a pass (default
	// the middle of the criterion's scale).
	Threshold map[string]float64
	// Resamples of the bootstrap (DefaultResamples when 0) and its Seed
	// (DefaultSeed when 0).
	Resamples int
	Seed      uint64
	// Disagreements is how many cases to name (DefaultDisagreements when
	// 0; none when negative).
	Disagreements int
}

// Estimate is a statistic with its 95 % bootstrap interval over cases.
// A nil *Estimate is undefined (the statistic has no value on these
// labels); Lo and Hi are nil when no resample defined it.
type Estimate struct {
	Value float64  `json:"value"`
	Lo    *float64 `json:"lo"`
	Hi    *float64 `json:"hi"`
}

// Confusion counts the labelled cases by the judge's verdict and the
// people's, a pass being a score at or above the threshold.
type Confusion struct {
	TP int `json:"tp"` // both pass
	FP int `json:"fp"` // the judge passes, people fail
	FN int `json:"fn"` // the judge fails, people pass
	TN int `json:"tn"` // both fail
}

// Disagreement is a case where judge and people differ, by how much.
type Disagreement struct {
	Case  string  `json:"case"`
	Judge float64 `json:"judge"`
	Human float64 `json:"human"`
}

// Pair is the agreement of two labellers on the cases both labelled.
type Pair struct {
	A        string   `json:"a"`
	B        string   `json:"b"`
	N        int      `json:"n"`
	Kappa    *float64 `json:"kappa"`
	Accuracy *float64 `json:"accuracy"`
}

// PPI is the prediction-powered estimate of the mean of the people's
// score over every judged case: the judge's mean over all N judged
// results plus the mean of human − judge over the n labelled cases, with
// a 95 % normal interval whose variance is the sum of both terms'
// (var(judge)/N + var(human − judge)/n).
type PPI struct {
	JudgeMean float64  `json:"judge_mean"`
	JudgeN    int      `json:"judge_n"`
	N         int      `json:"n"`
	Estimate  float64  `json:"estimate"`
	Lo        *float64 `json:"lo"`
	Hi        *float64 `json:"hi"`
}

// Criterion is the agreement of the judge with people on one criterion.
type Criterion struct {
	Name      string  `json:"criterion"`
	Min       float64 `json:"min"`
	Max       float64 `json:"max"`
	Threshold float64 `json:"threshold"`
	// N is the labelled cases the judge scored; Unjudged the labelled
	// cases it did not.
	N         int `json:"n"`
	Unjudged  int `json:"unjudged,omitempty"`
	Labellers int `json:"labellers"`
	// Resamples is the bootstrap's resamples on this criterion: the
	// report's, fewer on a very large n (at most 20,000,000 cases drawn).
	Resamples int `json:"resamples"`
	// Chance-corrected agreement on pass/fail: Cohen's κ and Gwet's AC1.
	Kappa *Estimate `json:"kappa"`
	AC1   *Estimate `json:"ac1"`
	// Accuracy is the share of cases where the verdicts agree; TPR the
	// judge's passes among the people's passes, TNR its fails among their
	// fails (nil when there are none).
	Accuracy  *float64  `json:"accuracy"`
	TPR       *float64  `json:"tpr"`
	TNR       *float64  `json:"tnr"`
	Confusion Confusion `json:"confusion"`
	// Spearman is the rank correlation of the scores, when the people gave
	// scores rather than pass/fail labels.
	Spearman      *Estimate      `json:"spearman,omitempty"`
	Disagreements []Disagreement `json:"disagreements"`
	// Pairs is the agreement of the labellers among themselves (with two
	// or more): the ceiling the judge can reach.
	Pairs []Pair `json:"labeller_pairs,omitempty"`
	PPI   *PPI   `json:"ppi"`
}

// Report is the agreement of a run's judge with a labels file.
type Report struct {
	Labels     string      `json:"labels"`
	Rows       int         `json:"rows"`
	Unlabelled int         `json:"unlabelled,omitempty"`
	Resamples  int         `json:"resamples"`
	Seed       uint64      `json:"seed"`
	MinLabels  int         `json:"min_labels"`
	Criteria   []Criterion `json:"criteria"`
	Warnings   []string    `json:"warnings,omitempty"`
}

// Criterion returns the report's entry for name, or nil.
func (r *Report) Criterion(name string) *Criterion {
	for i := range r.Criteria {
		if r.Criteria[i].Name == name {
			return &r.Criteria[i]
		}
	}
	return nil
}

// Compute measures the judge's agreement with the labels on each
// criterion of rubric that has labels: scores holds the judge's scores
// (Scores.Add over a run's results). A label's people value is its score,
// or the scale's max for a pass and min for a fail; a case labelled by
// several people gets their mean. A score outside its criterion's scale,
// or a criterion the rubric lacks, is a positioned error.
func Compute(rubric []assay.JudgeCriterion, scores *Scores, labels *Labels, o Options) (*Report, error) {
	if o.Resamples <= 0 {
		o.Resamples = DefaultResamples
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.Disagreements == 0 {
		o.Disagreements = DefaultDisagreements
	}
	rep := &Report{Labels: labels.File, Rows: len(labels.Rows), Unlabelled: labels.Unlabelled, Resamples: o.Resamples, Seed: o.Seed, MinLabels: MinLabels, Criteria: []Criterion{}}
	if err := CheckLabels(rubric, labels); err != nil {
		return nil, err
	}
	rows := map[string][]Label{}
	for _, l := range labels.Rows {
		rows[l.Criterion] = append(rows[l.Criterion], l)
	}
	if scores == nil {
		scores = NewScores(nil)
	}
	for ci, c := range rubric {
		ls := rows[c.Name]
		if len(ls) == 0 {
			continue
		}
		cr := criterion(c, ls, scores, o, uint64(ci))
		if cr.N < MinLabels {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %d labelled cases the judge scored; label at least %d to validate the judge on it", c.Name, cr.N, MinLabels))
		}
		if cr.Resamples < o.Resamples {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %d resamples instead of %d for the intervals over %d cases (the bootstrap draws at most %d cases)", c.Name, cr.Resamples, o.Resamples, cr.N, maxDraws))
		}
		if cr.Unjudged > 0 {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %d labelled %s no judge score in the run (not in it, or not judged): left out", c.Name, cr.Unjudged, plural(cr.Unjudged, "case has", "cases have")))
		}
		rep.Criteria = append(rep.Criteria, cr)
	}
	if len(rep.Criteria) == 0 {
		rep.Warnings = append(rep.Warnings, "no labelled rows: fill in label (true or false) or score in the labels file")
	}
	return rep, nil
}

// CheckLabels checks labels against the judge's rubric: a criterion the
// rubric lacks, or a score outside its criterion's scale, is a positioned
// error.
func CheckLabels(rubric []assay.JudgeCriterion, labels *Labels) error {
	byName := map[string]assay.JudgeCriterion{}
	names := make([]string, len(rubric))
	for i, c := range rubric {
		byName[c.Name] = c
		names[i] = c.Name
	}
	for _, l := range labels.Rows {
		c, ok := byName[l.Criterion]
		if !ok {
			hint := ""
			if near := diag.Nearest(l.Criterion, names); near != "" {
				hint = " (did you mean " + near + "?)"
			}
			return diag.Errorf(labels.File, l.Line, 0, "criterion %q is not in the judge's rubric%s (criteria: %s)", l.Criterion, hint, join(names))
		}
		if l.Score != nil && (*l.Score < c.Min || *l.Score > c.Max) {
			return diag.Errorf(labels.File, l.Line, 0, "score %v is outside %s's scale %v to %v", *l.Score, c.Name, c.Min, c.Max)
		}
	}
	return nil
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

// humanValue is a label's value on the criterion's scale.
func humanValue(c assay.JudgeCriterion, l Label) float64 {
	if l.Score != nil {
		return *l.Score
	}
	if *l.Label {
		return c.Max
	}
	return c.Min
}

// pairT is one labelled case the judge scored.
type pairT struct {
	id           string
	judge, human float64
	j, h         bool // pass
}

func criterion(c assay.JudgeCriterion, ls []Label, scores *Scores, o Options, stream uint64) Criterion {
	th, ok := o.Threshold[c.Name]
	if !ok {
		th = (c.Min + c.Max) / 2
	}
	cr := Criterion{Name: c.Name, Min: c.Min, Max: c.Max, Threshold: th, Disagreements: []Disagreement{}}
	// The people's mean per case, in order of first label.
	type acc struct {
		sum float64
		n   int
	}
	var order []string
	sums := map[string]*acc{}
	labellers := map[string]map[string]float64{} // labeller → case → value
	continuous := false
	for _, l := range ls {
		v := humanValue(c, l)
		if l.Score != nil {
			continuous = true
		}
		a, ok := sums[l.Case]
		if !ok {
			a = &acc{}
			sums[l.Case] = a
			order = append(order, l.Case)
		}
		a.sum += v
		a.n++
		if labellers[l.Labeller] == nil {
			labellers[l.Labeller] = map[string]float64{}
		}
		labellers[l.Labeller][l.Case] = v
	}
	cr.Labellers = len(labellers)
	var ps []pairT
	for _, id := range order {
		f, ok := scores.Case(c.Name, id)
		if !ok {
			cr.Unjudged++
			continue
		}
		h := sums[id].sum / float64(sums[id].n)
		ps = append(ps, pairT{id: id, judge: f, human: h, j: f >= th, h: h >= th})
	}
	cr.N = len(ps)
	cr.Confusion = confusion(ps)
	cm := cr.Confusion
	cr.Accuracy = ratio(cm.TP+cm.TN, cr.N)
	cr.TPR = ratio(cm.TP, cm.TP+cm.FN)
	cr.TNR = ratio(cm.TN, cm.TN+cm.FP)
	rng := rand.New(rand.NewPCG(o.Seed, stream))
	cr.Resamples = o.Resamples
	if len(ps) > 0 && cr.Resamples*len(ps) > maxDraws {
		cr.Resamples = max(minResamples, maxDraws/len(ps))
	}
	cr.Kappa, cr.AC1, cr.Spearman = bootstrap(ps, continuous, cr.Resamples, rng)
	// The cases where the scores differ most (on the scale's width), then
	// by id.
	ds := slices.Clone(ps)
	slices.SortStableFunc(ds, func(a, b pairT) int {
		if c := cmp.Compare(math.Abs(b.judge-b.human), math.Abs(a.judge-a.human)); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	for _, d := range ds {
		if len(cr.Disagreements) >= o.Disagreements || d.judge == d.human {
			break
		}
		cr.Disagreements = append(cr.Disagreements, Disagreement{Case: d.id, Judge: d.judge, Human: d.human})
	}
	if len(labellers) >= 2 {
		cr.Pairs = pairs(labellers, th)
	}
	cr.PPI = ppi(scores.Sum(c.Name), ps)
	return cr
}

func ratio(a, b int) *float64 {
	if b == 0 {
		return nil
	}
	v := float64(a) / float64(b)
	return &v
}

func confusion(ps []pairT) Confusion {
	var m Confusion
	for _, p := range ps {
		switch {
		case p.j && p.h:
			m.TP++
		case p.j:
			m.FP++
		case p.h:
			m.FN++
		default:
			m.TN++
		}
	}
	return m
}

// Kappa is Cohen's κ of a confusion matrix: (po − pe) / (1 − pe), pe the
// agreement expected from each side's pass rate alone. It is undefined
// (ok false) with no cases, or when pe is 1 (both sides say the same one
// verdict of every case).
func Kappa(m Confusion) (float64, bool) {
	n := float64(m.TP + m.FP + m.FN + m.TN)
	if n == 0 {
		return 0, false
	}
	po := float64(m.TP+m.TN) / n
	pj, ph := float64(m.TP+m.FP)/n, float64(m.TP+m.FN)/n
	pe := pj*ph + (1-pj)*(1-ph)
	if pe >= 1 {
		return 0, false
	}
	return (po - pe) / (1 - pe), true
}

// AC1 is Gwet's AC1 of a confusion matrix: (po − pe) / (1 − pe) with pe
// = 2π(1 − π), π the mean of the two sides' pass rates. Unlike κ it stays
// near po when one verdict dominates. It is undefined with no cases.
func AC1(m Confusion) (float64, bool) {
	n := float64(m.TP + m.FP + m.FN + m.TN)
	if n == 0 {
		return 0, false
	}
	po := float64(m.TP+m.TN) / n
	pi := (float64(m.TP+m.FP)/n + float64(m.TP+m.FN)/n) / 2
	pe := 2 * pi * (1 - pi)
	if pe >= 1 {
		return 0, false
	}
	return (po - pe) / (1 - pe), true
}

// Spearman is the rank correlation of x and y: Pearson's correlation of
// their ranks, ties given their mean rank. It is undefined with fewer than
// two pairs or when either side is constant.
func Spearman(x, y []float64) (float64, bool) {
	if len(x) < 2 || len(x) != len(y) {
		return 0, false
	}
	return pearson(ranks(x), ranks(y))
}

func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		mean := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = mean
		}
		i = j + 1
	}
	return r
}

func pearson(x, y []float64) (float64, bool) {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx, my = mx/n, my/n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return 0, false
	}
	return sxy / math.Sqrt(sxx*syy), true
}

// bootstrap is κ, AC1 and (when continuous) Spearman's ρ on ps, each
// with its 95 % percentile interval over resamples of the cases (with
// replacement; the three statistics share each resample); nil when a
// statistic is undefined on ps. A resample is a count per case, so that
// each statistic costs O(n) on it: ranks are found by walking the cases
// sorted once.
func bootstrap(ps []pairT, continuous bool, resamples int, rng *rand.Rand) (kappa, ac1, rho *Estimate) {
	n := len(ps)
	w := newWeighted(ps)
	count := make([]int, n)
	for i := range count {
		count[i] = 1
	}
	k, a, r, kok, aok, rok := w.stats(count, continuous)
	if kok {
		kappa = &Estimate{Value: k}
	}
	if aok {
		ac1 = &Estimate{Value: a}
	}
	if continuous && rok {
		rho = &Estimate{Value: r}
	}
	if n < 2 || (kappa == nil && ac1 == nil && rho == nil) {
		return kappa, ac1, rho
	}
	var ks, as, rs []float64
	for range resamples {
		clear(count)
		for range n {
			count[rng.IntN(n)]++
		}
		k, a, r, kok, aok, rok := w.stats(count, continuous)
		if kok {
			ks = append(ks, k)
		}
		if aok {
			as = append(as, a)
		}
		if rok {
			rs = append(rs, r)
		}
	}
	percentile(kappa, ks)
	percentile(ac1, as)
	percentile(rho, rs)
	return kappa, ac1, rho
}

// percentile sets e's interval to the 2.5 % and 97.5 % quantiles of vals
// (none when vals is empty).
func percentile(e *Estimate, vals []float64) {
	if e == nil || len(vals) == 0 {
		return
	}
	slices.Sort(vals)
	lo, hi := quantile(vals, 0.025), quantile(vals, 0.975)
	e.Lo, e.Hi = &lo, &hi
}

// weighted computes the statistics of a resample given as a count per
// case.
type weighted struct {
	ps             []pairT
	orderJ, orderH []int     // case indices by judge score, by people's value
	rankJ, rankH   []float64 // scratch
}

func newWeighted(ps []pairT) *weighted {
	w := &weighted{ps: ps, orderJ: make([]int, len(ps)), orderH: make([]int, len(ps)), rankJ: make([]float64, len(ps)), rankH: make([]float64, len(ps))}
	for i := range ps {
		w.orderJ[i], w.orderH[i] = i, i
	}
	slices.SortStableFunc(w.orderJ, func(a, b int) int { return cmp.Compare(ps[a].judge, ps[b].judge) })
	slices.SortStableFunc(w.orderH, func(a, b int) int { return cmp.Compare(ps[a].human, ps[b].human) })
	return w
}

func (w *weighted) stats(count []int, continuous bool) (k, a, r float64, kok, aok, rok bool) {
	var m Confusion
	for i, p := range w.ps {
		c := count[i]
		switch {
		case c == 0:
		case p.j && p.h:
			m.TP += c
		case p.j:
			m.FP += c
		case p.h:
			m.FN += c
		default:
			m.TN += c
		}
	}
	k, kok = Kappa(m)
	a, aok = AC1(m)
	if continuous {
		r, rok = w.spearman(count)
	}
	return
}

// spearman is Spearman's ρ of the resample: each case's rank among the
// drawn values (ties, copies of a case included, at their mean rank),
// then Pearson's r weighted by the counts.
func (w *weighted) spearman(count []int) (float64, bool) {
	rankCounted(w.orderJ, func(i int) float64 { return w.ps[i].judge }, count, w.rankJ)
	rankCounted(w.orderH, func(i int) float64 { return w.ps[i].human }, count, w.rankH)
	var n, mx, my float64
	for i, c := range count {
		if c == 0 {
			continue
		}
		f := float64(c)
		n += f
		mx += f * w.rankJ[i]
		my += f * w.rankH[i]
	}
	if n < 2 {
		return 0, false
	}
	mx, my = mx/n, my/n
	var sxy, sxx, syy float64
	for i, c := range count {
		if c == 0 {
			continue
		}
		f := float64(c)
		dx, dy := w.rankJ[i]-mx, w.rankH[i]-my
		sxy += f * dx * dy
		sxx += f * dx * dx
		syy += f * dy * dy
	}
	if sxx == 0 || syy == 0 {
		return 0, false
	}
	return sxy / math.Sqrt(sxx*syy), true
}

// rankCounted sets rank[i] to case i's mean rank among the drawn values,
// walking order (the cases sorted by value) once.
func rankCounted(order []int, val func(int) float64, count []int, rank []float64) {
	pos := 0
	for g := 0; g < len(order); {
		h, c := g, 0
		for h < len(order) && val(order[h]) == val(order[g]) {
			c += count[order[h]]
			h++
		}
		mean := float64(pos) + float64(c+1)/2
		for x := g; x < h; x++ {
			rank[order[x]] = mean
		}
		pos += c
		g = h
	}
}

// quantile is the q quantile of sorted x, interpolating linearly between
// order statistics (Hyndman and Fan's type 7, numpy's default).
func quantile(x []float64, q float64) float64 {
	h := q * float64(len(x)-1)
	i := int(math.Floor(h))
	if i+1 >= len(x) {
		return x[len(x)-1]
	}
	return x[i] + (h-float64(i))*(x[i+1]-x[i])
}

// ppi is the prediction-powered mean (PPI); nil when the judge scored no
// result or no labelled case.
func ppi(all Moments, ps []pairT) *PPI {
	if all.N == 0 || len(ps) == 0 {
		return nil
	}
	var d Moments
	for _, p := range ps {
		d.Add(p.human - p.judge)
	}
	out := &PPI{JudgeMean: all.Mean(), JudgeN: all.N, N: len(ps), Estimate: all.Mean() + d.Mean()}
	if all.N >= 2 && d.N >= 2 {
		se := math.Sqrt(all.Var()/float64(all.N) + d.Var()/float64(d.N))
		lo, hi := out.Estimate-z95*se, out.Estimate+z95*se
		out.Lo, out.Hi = &lo, &hi
	}
	return out
}

// pairs is the agreement of each two labellers (by name) on the cases
// both labelled, the first maxPairs pairs.
func pairs(by map[string]map[string]float64, th float64) []Pair {
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []Pair
	for i, a := range names {
		for _, b := range names[i+1:] {
			if len(out) >= maxPairs {
				return out
			}
			var m Confusion
			for id, va := range by[a] {
				vb, ok := by[b][id]
				if !ok {
					continue
				}
				pa, pb := va >= th, vb >= th
				switch {
				case pa && pb:
					m.TP++
				case pa:
					m.FP++
				case pb:
					m.FN++
				default:
					m.TN++
				}
			}
			p := Pair{A: a, B: b, N: m.TP + m.FP + m.FN + m.TN}
			if k, ok := Kappa(m); ok {
				p.Kappa = &k
			}
			p.Accuracy = ratio(m.TP+m.TN, p.N)
			out = append(out, p)
		}
	}
	return out
}
