package compare

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/assay-eval/assay"
)

// FlipEvidence is what the flips of a comparison show once the noise of
// each case is taken into account (docs/metrics.md#flips-as-evidence).
type FlipEvidence struct {
	// Deterministic says the evidence shows a deterministic system (Basis
	// says which): then every pass -> fail flip is a confirmed new failure
	// and every fail -> pass flip a confirmed fix.
	Deterministic bool   `json:"deterministic"`
	Basis         string `json:"basis"`
	// HistoryRuns is the number of earlier runs of the same suite and
	// target whose outcomes were used (Options.History, SameSystem).
	HistoryRuns int `json:"history_runs"`
	// PassToFail and FailToPass count the discordant cases; P is McNemar's
	// exact two-sided p over them, PAdjusted the same p adjusted for the
	// family it belongs to.
	PassToFail int     `json:"pass_to_fail"`
	FailToPass int     `json:"fail_to_pass"`
	P          float64 `json:"p"`
	PAdjusted  float64 `json:"p_adjusted"`
	// CasesTested is the number of cases whose own exact test joined the
	// family (the others could not reach significance with their record).
	CasesTested int `json:"cases_tested"`
	// Confirmed are the new failures the evidence confirms; Flaky the
	// flipped cases whose record shows them varying; Unconfirmed the flipped
	// cases with a stable record too short to confirm the flip.
	Confirmed   []CaseEvidence `json:"confirmed"`
	Flaky       []CaseEvidence `json:"flaky"`
	Unconfirmed []CaseEvidence `json:"unconfirmed"`
	// Advice says what would confirm or clear the flips left unconfirmed.
	Advice string `json:"advice,omitempty"`
}

// CaseEvidence is one case's record: its graded outcomes before the
// candidate (the baseline's trials and the history's) and in the candidate,
// and, when its own test was in the family, the one-sided exact p that the
// candidate fails it more often than its record (raw and adjusted).
type CaseEvidence struct {
	ID              string   `json:"id"`
	PriorPassed     int      `json:"prior_passed"`
	Prior           int      `json:"prior"`
	CandidatePassed int      `json:"candidate_passed"`
	Candidate       int      `json:"candidate"`
	P               *float64 `json:"p,omitempty"`
	PAdjusted       *float64 `json:"p_adjusted,omitempty"`
}

// FlipInput is what AssessFlips weighs: the two runs, the flips found by
// the caller's own rule, and the earlier runs of the same system.
type FlipInput struct {
	Base, Cand *assay.Run
	// History are earlier runs; those that are not of the baseline's system
	// (SameSystem) are left out.
	History    []*assay.Run
	PassToFail []string
	FailToPass []string
	// Keep selects the case results that count (nil: all).
	Keep func(r *assay.CaseResult) bool
}

// FlipFamily is the result of AssessFlips before the family adjustment:
// the evidence and the members it adds to a family (McNemar's test first,
// then one per tested case, in the order of Evidence.cases).
type FlipFamily struct {
	Evidence FlipEvidence
	tested   []int // indexes into cases of the cases in the family
	cases    []CaseEvidence
	flipped  map[string]bool
	varied   map[string]bool
	// moreTrials is the --trials the advice names: 3, or twice the trials
	// the runs already have.
	moreTrials int
}

// deterministicKinds are the target kinds whose answers are a function of
// the case alone: the built-in engine, a replayed recording, a TREC run
// file. A recording of a varying system shows its variation when it was
// recorded with several trials.
var deterministicKinds = map[string]bool{"builtin": true, "replay": true, "trec": true}

type record struct {
	id      string
	pass, n int
}

func (r record) mixed() bool { return r.pass > 0 && r.pass < r.n }

// outcomesByID counts the graded outcomes of run per case id, in id order,
// and marks in within the ids whose outcomes varied within the run.
func outcomesByID(run *Compact, within map[string]bool) []record {
	idx := make([]int32, 0, run.n)
	for i := range run.n {
		if run.at(i).graded() {
			idx = append(idx, int32(i))
		}
	}
	slices.SortFunc(idx, func(a, b int32) int { return strings.Compare(run.at(int(a)).id, run.at(int(b)).id) })
	var out []record
	for k, i := range idx {
		r := run.at(int(i))
		if k == 0 || out[len(out)-1].id != r.id {
			if out == nil {
				out = make([]record, 0, len(idx))
			}
			out = append(out, record{id: r.id})
		}
		rec := &out[len(out)-1]
		rec.n++
		if r.passed() {
			rec.pass++
		}
	}
	for _, rec := range out {
		if rec.mixed() {
			within[rec.id] = true
		}
	}
	return slices.Clip(out)
}

// sumByID adds up the records of several runs per case id, in id order
// (recs is reordered).
func sumByID(recs []record) []record {
	slices.SortFunc(recs, func(a, b record) int { return strings.Compare(a.id, b.id) })
	var out []record
	for _, r := range recs {
		if len(out) > 0 && out[len(out)-1].id == r.id {
			out[len(out)-1].pass += r.pass
			out[len(out)-1].n += r.n
			continue
		}
		out = append(out, r)
	}
	return out
}

// AssessFlips weighs the flips of in against what is known of each case's
// noise. others is the number of members the caller's family has besides
// the flips (the gated measures); it sets which cases can join the family.
func AssessFlips(in FlipInput, others int, alpha float64) FlipFamily {
	keep := in.Keep
	if keep == nil {
		keep = func(*assay.CaseResult) bool { return true }
	}
	compact := func(run *assay.Run) *Compact {
		head := *run
		head.Cases = nil
		c := &Compact{Head: &head}
		for i := range run.Cases {
			if r := &run.Cases[i]; r.Graded() && keep(r) {
				c.Add(r)
			}
		}
		return c
	}
	var hist []*Compact
	for _, h := range history(in.Base, in.Cand, in.History) {
		hist = append(hist, compact(h))
	}
	return assessFlips(compact(in.Base), compact(in.Cand), hist, in.PassToFail, in.FailToPass, others, alpha)
}

// assessFlips is AssessFlips of runs in compact form; hist are the runs
// of the baseline's system (history). Each run's graded outcomes are
// counted per case id over its case trials sorted by id (outcomesByID), so
// that no map of every case id is built: at 100,000 cases the maps of the
// records were most of the memory a comparison took at its peak.
func assessFlips(base, cand *Compact, hist []*Compact, passToFail, failToPass []string, others int, alpha float64) FlipFamily {
	within := map[string]bool{} // varied within one run's trials
	prior := outcomesByID(base, within)
	if len(hist) > 0 {
		all := prior
		for _, h := range hist {
			all = append(all, outcomesByID(h, within)...)
		}
		prior = sumByID(all)
	}
	candRec := outcomesByID(cand, within)

	ff := FlipFamily{flipped: map[string]bool{}, varied: map[string]bool{}}
	ev := &ff.Evidence
	ev.HistoryRuns = len(hist)
	ev.PassToFail, ev.FailToPass = len(passToFail), len(failToPass)
	ev.P = McNemarExact(ev.PassToFail, ev.FailToPass)
	ev.PAdjusted = ev.P
	ev.Confirmed, ev.Flaky, ev.Unconfirmed = []CaseEvidence{}, []CaseEvidence{}, []CaseEvidence{}

	varied := len(within) > 0
	for _, rec := range prior {
		if rec.mixed() {
			ff.varied[rec.id] = true
			varied = true
		}
	}
	for id := range within {
		ff.varied[id] = true
	}
	tb, tc := trials(base.Head), trials(cand.Head)
	ff.moreTrials = 3
	if t := max(tb, tc); t >= 3 {
		ff.moreTrials = 2 * t
	}
	switch {
	case varied:
		ev.Basis = "outcomes varied within trials or across runs: flips are weighed case by case"
	case deterministicKinds[base.Head.Target.Kind] && deterministicKinds[cand.Head.Target.Kind]:
		ev.Deterministic = true
		ev.Basis = fmt.Sprintf("%s target: deterministic", cand.Head.Target.Kind)
	case tb >= 2 && tc >= 2:
		ev.Deterministic = true
		ev.Basis = fmt.Sprintf("no case varied within %d trials: deterministic", min(tb, tc))
	case len(hist) >= 2:
		ev.Deterministic = true
		ev.Basis = fmt.Sprintf("no case varied across %d history runs: deterministic", len(hist))
	default:
		ev.Basis = "one trial, no history: noise unknown"
	}

	for _, id := range passToFail {
		ff.flipped[id] = true
	}
	// The cases in both records, in id order: a merge of the two sorted
	// lists.
	var pmin []float64
	for i, j := 0, 0; i < len(prior) && j < len(candRec); {
		p, c := prior[i], candRec[j]
		switch {
		case p.id < c.id:
			i++
			continue
		case p.id > c.id:
			j++
			continue
		}
		i++
		j++
		if ff.cases == nil {
			n := min(len(prior), len(candRec))
			ff.cases, pmin = make([]CaseEvidence, 0, n), make([]float64, 0, n)
		}
		ce := CaseEvidence{ID: c.id, PriorPassed: p.pass, Prior: p.n, CandidatePassed: c.pass, Candidate: c.n}
		ff.cases = append(ff.cases, ce)
		pmin = append(pmin, fisherMin(p.n, c.n, (p.n-p.pass)+(c.n-c.pass)))
	}
	if !ev.Deterministic {
		// Tarone: a case joins the family only when its smallest possible p
		// (given its totals, which the conditional test holds fixed) could
		// pass the Bonferroni bound of a family that includes it.
		k := 0
		for {
			n := 0
			for _, v := range pmin {
				if v <= alpha/float64(others+1+k) {
					n++
				}
			}
			if n <= k {
				break
			}
			k++
		}
		for i, v := range pmin {
			if v <= alpha/float64(others+1+k) {
				ce := &ff.cases[i]
				p := fisherUpper(ce.Prior, ce.Candidate, (ce.Prior-ce.PriorPassed)+(ce.Candidate-ce.CandidatePassed), ce.Candidate-ce.CandidatePassed)
				ce.P = &p
				ff.tested = append(ff.tested, i)
			}
		}
	}
	ev.CasesTested = len(ff.tested)
	return ff
}

// Members returns the raw p-values the flips add to a family: McNemar's
// test, then each tested case's.
func (ff *FlipFamily) Members() []float64 {
	out := []float64{ff.Evidence.P}
	for _, i := range ff.tested {
		out = append(out, *ff.cases[i].P)
	}
	return out
}

// memberNames names Members: "flips", then "case ID" for each tested case.
func (ff *FlipFamily) memberNames() []string {
	out := []string{"flips"}
	for _, i := range ff.tested {
		out = append(out, "case "+ff.cases[i].ID)
	}
	return out
}

// Settle takes the adjusted p-values of Members (same order) and sorts the
// flipped cases into confirmed, flaky and unconfirmed.
func (ff *FlipFamily) Settle(adj []float64, alpha float64) {
	ev := &ff.Evidence
	ev.PAdjusted = adj[0]
	confirmed := map[string]bool{}
	for j, i := range ff.tested {
		a := adj[j+1]
		ff.cases[i].PAdjusted = &a
		if a < alpha && ff.cases[i].CandidatePassed < ff.cases[i].Candidate {
			confirmed[ff.cases[i].ID] = true
		}
	}
	for _, ce := range ff.cases {
		switch {
		case confirmed[ce.ID], ev.Deterministic && ff.flipped[ce.ID]:
			ev.Confirmed = append(ev.Confirmed, ce)
		case !ff.flipped[ce.ID]:
		case ff.varied[ce.ID]:
			ev.Flaky = append(ev.Flaky, ce)
		default:
			ev.Unconfirmed = append(ev.Unconfirmed, ce)
		}
	}
	if n := len(ev.Flaky) + len(ev.Unconfirmed); n > 0 {
		ev.Advice = fmt.Sprintf("%d %s not confirmed: rerun both with --trials %d (and keep earlier runs in the store) to tell a new failure from noise", n, plural(n, "flip", "flips"), ff.moreTrials)
	}
}

// fisherUpper is the one-sided p of the exact conditional (Fisher) test
// that the candidate fails a case more often than its prior record: with
// prior and cand observations and fails failures in all, P(X >= x) for X
// hypergeometric (fails drawn from prior+cand, cand of them in the
// candidate), x the candidate's failures.
func fisherUpper(prior, cand, fails, x int) float64 {
	n := prior + cand
	hi := min(fails, cand)
	if x <= max(0, fails-prior) {
		return 1
	}
	var s float64
	for k := x; k <= hi; k++ {
		s += math.Exp(lnChoose(fails, k) + lnChoose(n-fails, cand-k) - lnChoose(n, cand))
	}
	return math.Min(1, s)
}

// fisherMin is the smallest p fisherUpper can give for these totals: every
// failure that fits in the candidate is there.
func fisherMin(prior, cand, fails int) float64 {
	if fails == 0 || cand == 0 || prior == 0 {
		return 1
	}
	return fisherUpper(prior, cand, fails, min(fails, cand))
}

// ids lists the ids of cases.
func ids(cs []CaseEvidence) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return slices.Clip(out)
}
