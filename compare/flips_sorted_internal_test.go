package compare

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// assessFlips counts outcomes per case id over sorted case trials; this
// is the map-based count it replaced, kept to check that the evidence is
// the same: every case record, p-value, list and basis, with and without
// history, trials and varying outcomes.
func TestAssessFlipsSameAsMaps(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 9))
	gen := func(id string, n, trials int, noise int) *Compact {
		r := &assay.Run{RunID: id, Status: assay.StatusComplete, Target: assay.TargetInfo{Kind: "http"},
			Options: assay.RunOptions{Trials: trials}}
		for i := range n {
			if rng.IntN(12) == 0 {
				continue
			}
			for tr := range trials {
				c := assay.CaseResult{ID: fmt.Sprintf("c%03d", i), Trial: tr}
				if rng.IntN(6) != 0 { // else not graded
					p := (i%4 != 0) != (rng.IntN(100) < noise)
					c.Pass = &p
				}
				r.Cases = append(r.Cases, c)
			}
		}
		rng.Shuffle(len(r.Cases), func(i, j int) { r.Cases[i], r.Cases[j] = r.Cases[j], r.Cases[i] })
		return CompactOf(r)
	}
	for round := range 80 {
		n, trials, noise := 1+rng.IntN(80), 1+rng.IntN(3), []int{0, 0, 5, 30}[round%4]
		base, cand := gen("b", n, trials, noise), gen("c", n, trials, noise)
		var hist []*Compact
		for h := range rng.IntN(3) {
			hist = append(hist, gen(fmt.Sprintf("h%d", h), n, trials, noise))
		}
		var p2f, f2p []string
		for i := range n {
			switch rng.IntN(5) {
			case 0:
				p2f = append(p2f, fmt.Sprintf("c%03d", i))
			case 1:
				f2p = append(f2p, fmt.Sprintf("c%03d", i))
			}
		}
		others, alpha := rng.IntN(3), 0.05
		got := assessFlips(base, cand, hist, p2f, f2p, others, alpha)
		want := assessFlipsMaps(base, cand, hist, p2f, f2p, others, alpha)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: sorted\n%+v\nmaps\n%+v", round, got, want)
		}
		gotAdj := got
		wantAdj := want
		adj := gotAdj.Members()
		gotAdj.Settle(adj, alpha)
		wantAdj.Settle(adj, alpha)
		if !reflect.DeepEqual(gotAdj.Evidence, wantAdj.Evidence) {
			t.Fatalf("round %d: decided evidence differs:\n%+v\n%+v", round, gotAdj.Evidence, wantAdj.Evidence)
		}
	}
}

type mrecord struct{ pass, n int }

func (r mrecord) mixed() bool { return r.pass > 0 && r.pass < r.n }

func assessFlipsMaps(base, cand *Compact, hist []*Compact, passToFail, failToPass []string, others int, alpha float64) FlipFamily {
	prior := map[string]*mrecord{}
	within := map[string]bool{} // varied within one run's trials
	add := func(m map[string]*mrecord, run *Compact, markWithin bool) {
		one := map[string]*mrecord{}
		for i := range run.n {
			r := run.at(i)
			if !r.graded() {
				continue
			}
			for _, mm := range []map[string]*mrecord{m, one} {
				rec := mm[r.id]
				if rec == nil {
					rec = &mrecord{}
					mm[r.id] = rec
				}
				rec.n++
				if r.passed() {
					rec.pass++
				}
			}
		}
		if markWithin {
			for id, rec := range one {
				if rec.mixed() {
					within[id] = true
				}
			}
		}
	}
	add(prior, base, true)
	for _, h := range hist {
		add(prior, h, true)
	}
	candRec := map[string]*mrecord{}
	add(candRec, cand, true)

	ff := FlipFamily{flipped: map[string]bool{}, varied: map[string]bool{}}
	ev := &ff.Evidence
	ev.HistoryRuns = len(hist)
	ev.PassToFail, ev.FailToPass = len(passToFail), len(failToPass)
	ev.P = McNemarExact(ev.PassToFail, ev.FailToPass)
	ev.PAdjusted = ev.P
	ev.Confirmed, ev.Flaky, ev.Unconfirmed = []CaseEvidence{}, []CaseEvidence{}, []CaseEvidence{}

	varied := len(within) > 0
	for id, rec := range prior {
		if rec.mixed() {
			ff.varied[id] = true
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
	ids := make([]string, 0, len(candRec))
	for id := range candRec {
		if prior[id] != nil {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	var pmin []float64
	for _, id := range ids {
		p, c := prior[id], candRec[id]
		ce := CaseEvidence{ID: id, PriorPassed: p.pass, Prior: p.n, CandidatePassed: c.pass, Candidate: c.n}
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

// pairCompact sorts both runs' case trials and merges them; this is the
// map-based pairing it replaced: the same pairs in the same order, and the
// same counts of unpaired case trials, with repeated and missing ones.
func TestPairCompactSameAsMaps(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 1))
	gen := func(n, trials int) *Compact {
		c := &Compact{}
		for range n * trials {
			r := assay.CaseResult{ID: fmt.Sprintf("c%02d", rng.IntN(n+3)), Trial: rng.IntN(trials),
				Metrics: map[string]float64{"m": rng.Float64()}}
			c.Add(&r)
		}
		return c
	}
	for round := range 200 {
		n, trials := 1+rng.IntN(40), 1+rng.IntN(3)
		base, cand := gen(n, trials), gen(n, trials)
		if round%7 == 0 {
			base = &Compact{}
		}
		gp, gb, gc := pairCompact(base, cand)
		wp, wb, wc := pairCompactMaps(base, cand)
		if gb != wb || gc != wc || len(gp) != len(wp) {
			t.Fatalf("round %d: sorted %d pairs, only %d/%d; maps %d pairs, only %d/%d", round, len(gp), gb, gc, len(wp), wb, wc)
		}
		for i := range gp {
			if gp[i] != wp[i] {
				t.Fatalf("round %d: pair %d: sorted %+v; maps %+v", round, i, gp[i], wp[i])
			}
		}
	}
}

func pairCompactMaps(base, cand *Compact) (pairs []cpair, onlyB, onlyC int) {
	bm := make(map[key]int, base.n)
	for i := range base.n {
		r := base.at(i)
		bm[key{r.id, r.trial}] = i
	}
	seen := make(map[key]bool, cand.n)
	pairs = make([]cpair, 0, min(base.n, cand.n))
	for i := range cand.n {
		r := cand.at(i)
		k := key{r.id, r.trial}
		if seen[k] {
			continue
		}
		seen[k] = true
		if b, ok := bm[k]; ok {
			pairs = append(pairs, cpair{k, base.at(b), r, b, i})
		} else {
			onlyC++
		}
	}
	onlyB = len(bm) - len(pairs)
	slices.SortFunc(pairs, func(a, b cpair) int {
		if c := strings.Compare(a.key.id, b.key.id); c != 0 {
			return c
		}
		return cmp.Compare(a.key.trial, b.key.trial)
	})
	return pairs, onlyB, onlyC
}
