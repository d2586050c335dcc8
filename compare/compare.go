package compare

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/assay-eval/assay"
)

// Verdict is the outcome of a comparison.
type Verdict string

// Verdicts (docs/metrics.md#comparing-two-runs); Inconclusive is the
// fourth.
const (
	Better    Verdict = "better"
	Same      Verdict = "same"
	Regressed Verdict = "regressed"
)

// MarshalText implements encoding.TextMarshaler.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v), nil }

// UnmarshalText accepts better, same, regressed or inconclusive.
func (v *Verdict) UnmarshalText(b []byte) error {
	switch Verdict(b) {
	case Better, Same, Regressed, Inconclusive:
		*v = Verdict(b)
		return nil
	}
	return fmt.Errorf("unknown verdict %q (valid: better, same, regressed, inconclusive)", b)
}

// Change says which way a metric moved.
type Change string

// Changes. NoChange ("~") is a change that is not significant; Changed is
// a significant change of a measure with no better direction
// (refusal_rate).
const (
	Improved Change = "better"
	Worsened Change = "worse"
	Changed  Change = "changed"
	NoChange Change = "~"
)

// Options tune a comparison. The zero value means the defaults.
type Options struct {
	// Alpha is the significance level (default 0.05).
	Alpha float64
	// Samples is the number of random sign assignments of the sign-flip
	// test when more than ExactMax paired deltas are non-zero (default
	// 10,000).
	Samples int
	// ExactMax is the largest number of non-zero paired deltas for which
	// the sign-flip test enumerates every assignment (default 20).
	ExactMax int
	// MinPaired is the number of paired cases below which the report warns
	// that a CI means little (default 10).
	MinPaired int
	// Seed seeds the PCG generators (default 1); a fixed seed makes the
	// output reproducible.
	Seed uint64
	// Cluster is the tag whose value groups dependent cases; empty: the
	// suite's cluster: as the runs record it (Run.Suite.Cluster), if any.
	Cluster string
	// Margins are equivalence margins by measure name (lower case),
	// overriding DefaultRateMargin and DefaultMetricMargin.
	Margins map[string]float64
	// Multiplicity adjusts the family of the gated measures and the flips
	// (default HolmStepDown; NoAdjustment turns it off).
	Multiplicity Multiplicity
	// History are earlier runs of the same suite and target (SameSystem
	// picks them; others are ignored): their case outcomes tell stable cases
	// from flaky ones.
	History []*assay.Run
}

// Defaults are the options a zero Options stands for.
var Defaults = Options{Alpha: 0.05, Samples: 10000, ExactMax: 20, MinPaired: 10, Seed: 1, Multiplicity: HolmStepDown}

func (o Options) withDefaults() Options {
	d := Defaults
	if o.Alpha > 0 {
		d.Alpha = o.Alpha
	}
	if o.Samples > 0 {
		d.Samples = o.Samples
	}
	if o.ExactMax > 0 {
		d.ExactMax = o.ExactMax
	}
	if o.MinPaired > 0 {
		d.MinPaired = o.MinPaired
	}
	if o.Seed != 0 {
		d.Seed = o.Seed
	}
	d.Cluster = o.Cluster
	if o.Multiplicity != "" {
		d.Multiplicity = o.Multiplicity
	}
	d.Margins, d.History = o.Margins, o.History
	return d
}

// Report is the comparison of two runs; its JSON form is assay.compare/v1.
type Report struct {
	Schema      string        `json:"schema"`
	Verdict     Verdict       `json:"verdict"`
	Baseline    string        `json:"baseline"`
	Candidate   string        `json:"candidate"`
	PairedCases int           `json:"paired_cases"`
	Metrics     []MetricDelta `json:"metrics"`
	Flips       Flips         `json:"flips"`
	// TopScores lists every paired case whose top score changed, largest
	// |delta| first (ties by id). Scores are the target's own, so they
	// compare only between runs of one system kind; not part of the verdict.
	TopScores []ScoreDelta `json:"top_scores"`
	Latency   LatencyDelta `json:"latency"`
	// Cost compares the system's cost and tokens per case (nil when no
	// paired case has a cost in both runs). Reported, not gated (a cost
	// bound belongs to a gate: ratio(cost) <= 1.1).
	Cost     *CostDelta `json:"cost,omitempty"`
	Warnings []string   `json:"warnings"`
	// ChangedCases lists the ids of the cases whose hash (their query,
	// expectations and judgments) differs between the runs, sorted: they
	// are not paired, so no measure, flip or verdict counts them. Empty
	// when the runs record no hashes.
	ChangedCases []string `json:"changed_cases"`
	// Reasons explain the verdict ("ndcg@10 worse", "1 case flipped pass
	// to fail"); empty for same.
	Reasons []string `json:"reasons,omitempty"`
	// Context for renderers.
	Suite           string          `json:"suite"`
	BaselineStatus  assay.RunStatus `json:"baseline_status"`
	CandidateStatus assay.RunStatus `json:"candidate_status"`
	// PairedValues counts case trials paired (PairedCases counts case ids).
	PairedValues  int     `json:"paired_values"`
	OnlyBaseline  int     `json:"only_baseline"`
	OnlyCandidate int     `json:"only_candidate"`
	Alpha         float64 `json:"alpha"`
	// Power is the power at which each measure's MDE is stated (0.8).
	Power float64 `json:"power"`
	// Cluster is the tag whose clusters were the units of the tests
	// ("" when each case was its own unit).
	Cluster string `json:"cluster,omitempty"`
	// Family names the members adjusted together (Options.Multiplicity).
	Family Family `json:"family"`
	// FlipEvidence weighs the flips against each case's noise.
	FlipEvidence *FlipEvidence `json:"flip_evidence,omitempty"`
	// Method is the one line that says how the verdict was reached.
	Method string `json:"method"`

	refusalRegressions int // answered -> refused flips that count as regressions
}

// MetricDelta is one metric or rate compared over the paired cases that
// have it in both runs.
type MetricDelta struct {
	Name string `json:"name"`
	// N is the number of paired cases compared (each the mean over its
	// paired trials).
	N         int     `json:"n"`
	Baseline  float64 `json:"baseline"`
	Candidate float64 `json:"candidate"`
	Delta     float64 `json:"delta"`
	// CI95 is the 95% interval of the mean delta that the sign-flip test
	// gives (the values it does not reject at Alpha): it excludes 0 exactly
	// when P < Alpha.
	CI95        [2]float64 `json:"ci95"`
	P           float64    `json:"p"`
	Significant bool       `json:"significant"`
	// Direction says which way is better: "higher", "lower" or "none".
	Direction string `json:"direction"`
	Change    Change `json:"change"`
	// Gated metrics decide the verdict: every IR metric and pass_rate.
	Gated bool `json:"gated"`
	// Rate is true for the suite-level rates (pass_rate, error_rate, ...).
	Rate bool `json:"rate"`
	// Clusters is the number of clusters the test, interval and effect
	// were computed over when the comparison is clustered (Report.Cluster);
	// 0 otherwise.
	Clusters int `json:"clusters,omitempty"`
	// Effect: SD, d_z, wins/ties/losses and the MDE of this pair.
	Effect
	// Variance splits the paired deltas' variance between and within
	// cases when some case has several paired trials; nil otherwise.
	Variance *VarianceSplit `json:"variance,omitempty"`
	// PAdjusted is P adjusted for the family (gated measures only).
	PAdjusted *float64 `json:"p_adjusted,omitempty"`
	// Margin is the equivalence margin; Equivalent says the CI95 lies
	// inside ±Margin; CasesToDecide, when not 0, is about how many paired
	// cases would settle a measure that is not shown equivalent (gated
	// measures only).
	Margin        *float64 `json:"margin,omitempty"`
	Equivalent    bool     `json:"equivalent,omitempty"`
	CasesToDecide int      `json:"cases_to_decide,omitempty"`
}

// Flips are the case ids whose pass/fail outcome or refusal changed.
type Flips struct {
	PassToFail []string `json:"pass_to_fail"`
	FailToPass []string `json:"fail_to_pass"`
	// AnsweredToRefused lists the cases that the baseline answered (no
	// paired trial refused) and the candidate refused (every paired trial),
	// over the trials answered without error in both runs;
	// RefusedToAnswered the reverse. An answered-to-refused flip is a
	// regression unless the candidate passes a refusal: true expectation
	// (a negative case that now refuses as it should).
	AnsweredToRefused []string `json:"answered_to_refused"`
	RefusedToAnswered []string `json:"refused_to_answered"`
}

// ScoreDelta is the change of a case's top score: the score of its first
// retrieved document (CaseResult.TopScore), the mean over the paired trials
// that have one in both runs.
type ScoreDelta struct {
	ID        string  `json:"id"`
	Baseline  float64 `json:"baseline"`
	Candidate float64 `json:"candidate"`
	Delta     float64 `json:"delta"`
}

// LatencyDelta compares nearest-rank latency percentiles (ms) over the
// paired case trials that have a latency in each run. It is reported, not
// gated (latency bounds belong to gates).
type LatencyDelta struct {
	N         int          `json:"n"`
	Baseline  LatencyStats `json:"baseline"`
	Candidate LatencyStats `json:"candidate"`
	DeltaP50  float64      `json:"delta_p50"`
	DeltaP95  float64      `json:"delta_p95"`
}

// CostDelta compares the mean cost (US dollars) and tokens (input +
// output) per case over the N paired case trials that have a cost in both
// runs; Relative is (candidate − baseline) / baseline, nil when the
// baseline is 0. Unpriced counts the paired case trials left out: one of
// the two has no cost.
type CostDelta struct {
	N               int      `json:"n"`
	Unpriced        int      `json:"unpriced"`
	Baseline        float64  `json:"baseline_per_case_usd"`
	Candidate       float64  `json:"candidate_per_case_usd"`
	Delta           float64  `json:"delta_per_case_usd"`
	Relative        *float64 `json:"relative"`
	BaselineTokens  float64  `json:"baseline_tokens_per_case"`
	CandidateTokens float64  `json:"candidate_tokens_per_case"`
	RelativeTokens  *float64 `json:"relative_tokens"`
}

// costDelta is the CostDelta of the pairs (nil when none has a cost in
// both runs).
func costDelta(pairs []cpair) *CostDelta {
	var d CostDelta
	var bs, cs, bt, ct float64
	for _, p := range pairs {
		bu, cu := p.b.is(fUsage), p.c.is(fUsage)
		if !bu || !cu || !p.b.is(fCost) || !p.c.is(fCost) {
			if bu || cu {
				d.Unpriced++
			}
			continue
		}
		d.N++
		bs += p.b.cost
		cs += p.c.cost
		bt += float64(p.b.tokens)
		ct += float64(p.c.tokens)
	}
	if d.N == 0 {
		return nil
	}
	n := float64(d.N)
	d.Baseline, d.Candidate = bs/n, cs/n
	d.Delta = d.Candidate - d.Baseline
	d.BaselineTokens, d.CandidateTokens = bt/n, ct/n
	d.Relative = relative(d.Baseline, d.Candidate)
	d.RelativeTokens = relative(d.BaselineTokens, d.CandidateTokens)
	return &d
}

func relative(b, c float64) *float64 {
	if b == 0 {
		return nil
	}
	r := (c - b) / b
	return &r
}

// LatencyStats are the percentiles of one run.
type LatencyStats struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
}

type pair struct {
	key  key
	b, c *assay.CaseResult
}

func (p pair) caseID() string { return p.key.id }

// cpair is a pair of case trials of two runs in compact form: b is case
// bi of the baseline, c case ci of the candidate.
type cpair struct {
	key    key
	b, c   *compactCase
	bi, ci int
}

func (p cpair) caseID() string { return p.key.id }

type key struct {
	id    string
	trial int
}

// rate is a suite-level rate computed per paired case trial: value reports
// the 0/1 outcome and whether the pair counts for the rate.
type rate struct {
	name      string
	direction string
	gated     bool
	always    bool // reported even when zero in both runs
	value     func(r *assay.CaseResult) (v float64, ok bool)
	// cvalue is value of the same case in compact form.
	cvalue func(r *compactCase) (v float64, ok bool)
}

var rates = []rate{
	{"pass_rate", "higher", true, true, func(r *assay.CaseResult) (float64, bool) {
		return b2f(r.Passed()), r.Graded()
	}, func(r *compactCase) (float64, bool) {
		return b2f(r.passed()), r.graded()
	}},
	{"error_rate", "lower", false, true, func(r *assay.CaseResult) (float64, bool) {
		return b2f(r.Error != nil), true
	}, func(r *compactCase) (float64, bool) {
		return b2f(r.is(fErrored)), true
	}},
	{"no_hit_rate", "lower", false, false, func(r *assay.CaseResult) (float64, bool) {
		return b2f(r.Retrieved == 0), r.Answered()
	}, func(r *compactCase) (float64, bool) {
		return b2f(r.is(fNoHit)), r.answered()
	}},
	{"refusal_rate", "none", false, false, func(r *assay.CaseResult) (float64, bool) {
		return b2f(r.Refused), r.Answered()
	}, func(r *compactCase) (float64, bool) {
		return b2f(r.refused()), r.answered()
	}},
	{"grounded_rate", "higher", false, false, func(r *assay.CaseResult) (float64, bool) {
		return b2f(!r.Refused && r.Citations > 0), r.Answered()
	}, func(r *compactCase) (float64, bool) {
		return b2f(!r.refused() && r.is(fCited)), r.answered()
	}},
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// series is one measure's paired per-case values (trial means), in case id order.
type series struct {
	name      string
	direction string
	gated     bool
	rate      bool
	b, c      []float64
}

// Runs compares cand with base (docs/metrics.md#comparing-two-runs). Cases are paired by id
// and trial; see the package documentation for the statistics and the
// verdict rule. Runs never fails: what limits the comparison is reported in
// Warnings.
func Runs(base, cand *assay.Run, o Options) Report {
	return RunsCompact(CompactOf(base), CompactOf(cand), o)
}

// RunsCompact is Runs of two runs in compact form (a caller that reads
// run records as streams fills them case by case): the same report, byte
// for byte, without holding either run's full results.
func RunsCompact(base, cand *Compact, o Options) Report {
	c := prepare(base, cand, o)
	c.decide(nil, 1, 0)
	return c.rep
}

// Pair is one comparison of a variant matrix: a variant's run (Cand) and
// its baseline (Base), with the earlier runs of its system (History,
// as Options.History).
type Pair struct {
	Base, Cand *assay.Run
	History    []*assay.Run
}

// Matrix compares the pairs of a variant matrix as Runs compares one, but
// as one family: the tests of every pair (each pair's gated measures, its
// flips and the cases whose own test joined) are adjusted together by
// Holm's step-down procedure, so the chance of a false alarm anywhere in
// the matrix stays at alpha. Each report's Family lists its own members
// with their matrix-adjusted p and says how many comparisons and tests the
// family held. o.History is ignored (each Pair carries its own). With
// Multiplicity NoAdjustment each pair is decided on its raw p-values. One
// pair is the same as Runs.
func Matrix(pairs []Pair, o Options) []Report {
	cs := make([]*comparison, len(pairs))
	var ps []float64
	for i, p := range pairs {
		po := o
		po.History = p.History
		cs[i] = prepare(CompactOf(p.Base), CompactOf(p.Cand), po)
		ps = append(ps, cs[i].members()...)
	}
	adj := ps
	if o.withDefaults().Multiplicity != NoAdjustment {
		adj = Holm(ps)
	}
	out := make([]Report, len(cs))
	at := 0
	for i, c := range cs {
		n := len(c.members())
		c.decide(adj[at:at+n], len(cs), len(ps))
		at += n
		out[i] = c.rep
	}
	return out
}

// comparison is one pair compared up to its verdict (prepare), which
// decide then reaches from the family's adjusted p-values.
type comparison struct {
	rep Report
	sds []float64
	ff  FlipFamily
	o   Options
}

// members are the raw p-values of the comparison's family: its gated
// measures in report order, then the flips' (FlipFamily.Members).
func (c *comparison) members() []float64 {
	var ps []float64
	for _, m := range c.rep.Metrics {
		if m.Gated {
			ps = append(ps, m.P)
		}
	}
	return append(ps, c.ff.Members()...)
}

// decide reaches the verdict. adj are the adjusted p-values of members
// (nil: adjust them here, the comparison its own family); comparisons and
// tests size the family they were adjusted in (1 and 0 for its own).
func (c *comparison) decide(adj []float64, comparisons, tests int) {
	decide(&c.rep, c.sds, &c.ff, c.o, adj)
	if comparisons > 1 {
		c.rep.Family.Comparisons, c.rep.Family.Tests = comparisons, tests
		c.rep.Method = methodLine(&c.rep, c.o)
	}
}

func prepare(bc, cc *Compact, o Options) *comparison {
	o = o.withDefaults()
	base, cand := bc.Head, cc.Head
	rep := Report{
		Schema:          assay.CompareSchema,
		Baseline:        base.RunID,
		Candidate:       cand.RunID,
		Suite:           cand.Suite.Name,
		BaselineStatus:  base.Status,
		CandidateStatus: cand.Status,
		Alpha:           o.Alpha,
		Power:           Power,
		Metrics:         []MetricDelta{},
		Flips:           emptyFlips(),
		TopScores:       []ScoreDelta{},
		Warnings:        []string{},
	}
	o.Margins = margins(base, cand, o.Margins)
	pairs, onlyB, onlyC := pairCompact(bc, cc)
	pairs, rep.ChangedCases = dropChanged(bc, cc, pairs)
	rep.PairedValues = len(pairs)
	rep.OnlyBaseline, rep.OnlyCandidate = onlyB, onlyC
	rep.PairedCases = caseCount(pairs)
	rep.Warnings = append(warnings(bc, cc, &rep, o), changeWarnings(base, cand, rep.ChangedCases)...)
	rep.Warnings = append(rep.Warnings, coverageWarnings(base, cand)...)

	all := buildSeries(bc, cc, pairs)
	key := clusterKey(base, cand, o)
	var cases []int
	if key != "" {
		all, cases = clusterSeries(bc, cc, all, pairs, key)
	}
	// Everything read from the cases is taken before the measures are
	// tested, so that the runs (and pairs) are let go before the tests'
	// own allocations.
	variances := varianceSplits(bc, cc, all, pairs)
	rep.Flips = flips(pairs)
	rep.TopScores = topScores(pairs)
	rep.Latency = latency(pairs)
	rep.Cost = costDelta(pairs)
	for _, id := range rep.Flips.AnsweredToRefused {
		if !refusalExpected(pairs, id) {
			rep.refusalRegressions++
		}
	}
	var hist []*Compact
	for _, h := range history(base, cand, o.History) {
		hist = append(hist, CompactOf(h))
	}
	gated := 0
	for _, s := range all {
		if s.gated {
			gated++
		}
	}
	ff := assessFlips(bc, cc, hist, rep.Flips.PassToFail, rep.Flips.FailToPass, gated, o.Alpha)
	rep.Metrics = measureAll(all, o)
	if key != "" {
		applyClusters(&rep, key, cases)
	}
	for i := range rep.Metrics {
		rep.Metrics[i].Variance = variances[i]
	}
	sds := make([]float64, len(all))
	for i, s := range all {
		sds[i] = sdOf(s)
	}
	return &comparison{rep: rep, sds: sds, ff: ff, o: o}
}

func countGated(ms []MetricDelta) int {
	n := 0
	for _, m := range ms {
		if m.Gated {
			n++
		}
	}
	return n
}

// pairUp pairs the cases of both runs by (id, trial), sorted by id then
// trial so that resampling is reproducible whatever the order of the files.
func pairUp(base, cand *assay.Run) (pairs []pair, onlyB, onlyC int) {
	bm := make(map[key]*assay.CaseResult, len(base.Cases))
	for i := range base.Cases {
		r := &base.Cases[i]
		bm[key{r.ID, r.Trial}] = r
	}
	seen := make(map[key]bool, len(cand.Cases))
	for i := range cand.Cases {
		r := &cand.Cases[i]
		k := key{r.ID, r.Trial}
		if seen[k] {
			continue
		}
		seen[k] = true
		if b, ok := bm[k]; ok {
			pairs = append(pairs, pair{k, b, r})
		} else {
			onlyC++
		}
	}
	onlyB = len(bm) - len(pairs)
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].key.id != pairs[j].key.id {
			return pairs[i].key.id < pairs[j].key.id
		}
		return pairs[i].key.trial < pairs[j].key.trial
	})
	return pairs, onlyB, onlyC
}

// pairCompact is pairUp of two runs in compact form: the last of a
// baseline's repeated (id, trial) and the first of a candidate's count.
// Each run's case trials are sorted by (id, trial) and the two lists
// merged, rather than mapping every key of both runs.
func pairCompact(base, cand *Compact) (pairs []cpair, onlyB, onlyC int) {
	bs, cs := byKey(base, false), byKey(cand, true)
	pairs = make([]cpair, 0, min(len(bs), len(cs)))
	i, j := 0, 0
	for i < len(bs) && j < len(cs) {
		b, c := base.at(int(bs[i])), cand.at(int(cs[j]))
		switch compareKey(b, c) {
		case -1:
			i++
		case 1:
			j++
		default:
			pairs = append(pairs, cpair{key{c.id, c.trial}, b, c, int(bs[i]), int(cs[j])})
			i++
			j++
		}
	}
	return pairs, len(bs) - len(pairs), len(cs) - len(pairs)
}

// byKey is the indexes of run's case trials in (id, trial) order, one for
// each (id, trial): its first case trial when first, else its last.
func byKey(run *Compact, first bool) []int32 {
	ix := make([]int32, run.n)
	for i := range ix {
		ix[i] = int32(i)
	}
	slices.SortFunc(ix, func(a, b int32) int {
		if c := compareKey(run.at(int(a)), run.at(int(b))); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	out := ix[:0] // written behind the reading: the previous one is kept aside
	prev := int32(-1)
	for _, i := range ix {
		if prev >= 0 && compareKey(run.at(int(prev)), run.at(int(i))) == 0 {
			if !first {
				out[len(out)-1] = i
			}
		} else {
			out = append(out, i)
		}
		prev = i
	}
	return out
}

// compareKey orders two case trials by id, then trial.
func compareKey(a, b *compactCase) int {
	if c := strings.Compare(a.id, b.id); c != 0 {
		return c
	}
	return cmp.Compare(a.trial, b.trial)
}

// pairMetric is the value of a metric in both cases of a pair, through
// the index of its name in each run (metricIndex).
func pairMetric(base, cand *Compact, bix, cix int32) func(p cpair) (float64, float64, bool) {
	return func(p cpair) (float64, float64, bool) {
		bv, bok := base.metric(p.bi, bix)
		cv, cok := cand.metric(p.ci, cix)
		return bv, cv, bok && cok
	}
}

// buildSeries collects pass_rate, every IR metric, then the other rates.
func buildSeries(base, cand *Compact, pairs []cpair) []series {
	var out []series
	rateSeries := func(r rate) {
		s := series{name: r.name, direction: r.direction, gated: r.gated, rate: true}
		any1 := false
		s.b, s.c = caseMeans(pairs, func(p cpair) (float64, float64, bool) {
			bv, bok := r.cvalue(p.b)
			cv, cok := r.cvalue(p.c)
			any1 = any1 || (bok && cok && (bv != 0 || cv != 0))
			return bv, cv, bok && cok
		})
		if len(s.b) > 0 && (r.always || any1) {
			out = append(out, s)
		}
	}
	rateSeries(rates[0])
	for _, name := range metricNames(base, cand, pairs) {
		s := series{name: name, direction: "higher", gated: true}
		s.b, s.c = caseMeans(pairs, pairMetric(base, cand, base.metricIndex(name), cand.metricIndex(name)))
		if len(s.b) > 0 {
			out = append(out, s)
		}
	}
	for _, r := range rates[1:] {
		rateSeries(r)
	}
	return out
}

// caseMeans pairs a measure over cases: for each case id (pairs are sorted
// by id, then trial), the means over its paired trials where value defines
// the measure in both runs, baseline and candidate. A case whose trials
// define it in neither is left out. With one trial per case these are the
// per-trial values; with several, each case counts once, so the interval
// and the sign-flip test treat cases, not trials, as the independent units
// ("assay compare pairs cases over their trial means").
func caseMeans[P interface{ caseID() string }](pairs []P, value func(P) (b, c float64, ok bool)) (bs, cs []float64) {
	if n := caseCount(pairs); n > 0 {
		bs, cs = make([]float64, 0, n), make([]float64, 0, n)
	}
	for i := 0; i < len(pairs); {
		j := i
		var sb, sc float64
		n := 0
		for ; j < len(pairs) && pairs[j].caseID() == pairs[i].caseID(); j++ {
			if bv, cv, ok := value(pairs[j]); ok {
				sb += bv
				sc += cv
				n++
			}
		}
		if n > 0 {
			bs = append(bs, sb/float64(n))
			cs = append(cs, sc/float64(n))
		}
		i = j
	}
	return bs, cs
}

// caseCount is the number of case ids of pairs (sorted by id).
func caseCount[P interface{ caseID() string }](pairs []P) int {
	n := 0
	for i := range pairs {
		if i == 0 || pairs[i].caseID() != pairs[i-1].caseID() {
			n++
		}
	}
	return n
}

// metricNames orders the metrics: the candidate's metric set, then the
// baseline's, then any other name found in the cases, sorted.
func metricNames(base, cand *Compact, pairs []cpair) []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, n := range cand.Head.Options.Metrics {
		add(n)
	}
	for _, n := range base.Head.Options.Metrics {
		add(n)
	}
	rest := map[string]bool{}
	for _, p := range pairs {
		base.eachMetric(p.bi, func(ix int32) {
			n := base.metrics[ix]
			if _, ok := cand.metric(p.ci, cand.metricIndex(n)); ok && !seen[n] {
				rest[n] = true
			}
		})
	}
	for _, n := range slices.Sorted(maps.Keys(rest)) {
		add(n)
	}
	return out
}

// measureAll computes every MetricDelta. The work is a list of jobs run
// on GOMAXPROCS workers, each writing its own slots; every random stream is
// fixed by Options.Seed and the deltas themselves (the sign-flip test and
// its interval), so
// the numbers do not depend on scheduling or on the number of cores.
// Measures with identical deltas (recall@5 and hit@5 when every case has
// one relevant document) are computed once.
func measureAll(all []series, o Options) []MetricDelta {
	out := make([]MetricDelta, len(all))
	deltas := make([][]float64, len(all))
	same := make([]int, len(all)) // index of the first measure with equal deltas
	first := map[uint64][]int{}
	var jobs []func()
	for i, s := range all {
		d := make([]float64, len(s.b))
		for k := range d {
			d[k] = s.c[k] - s.b[k]
		}
		deltas[i] = d
		out[i] = MetricDelta{
			Name: s.name, N: len(d), Baseline: mean(s.b), Candidate: mean(s.c), Delta: mean(d),
			Direction: s.direction, Gated: s.gated, Rate: s.rate, Change: NoChange,
		}
		h := hashDeltas(d)
		same[i] = i
		for _, j := range first[h] {
			if slices.Equal(deltas[j], d) {
				same[i] = j
				break
			}
		}
		if same[i] != i {
			continue
		}
		first[h] = append(first[h], i)
		jobs = append(jobs, func() {
			out[i].P = signFlipP(d, o.ExactMax, o.Samples, rand.NewPCG(o.Seed, h))
			lo, hi := flipInterval(d, out[i].P, o.Alpha, o.ExactMax, o.Samples, rand.NewPCG(o.Seed, h^intervalStream))
			out[i].CI95 = [2]float64{lo, hi}
		})
	}
	run(jobs)
	for i := range out {
		if j := same[i]; j != i {
			out[i].CI95, out[i].P = out[j].CI95, out[j].P
		}
		classify(&out[i], o.Alpha)
		out[i].Effect = EffectOf(deltas[i], out[i].Direction, o.Alpha)
	}
	return out
}

// intervalStream separates the sign assignments of the interval from
// those of the p-value of the same deltas.
const intervalStream = 0x1a7e5a15c0f1d3e7

// hashDeltas is an FNV-1a hash of the deltas' bits: it finds equal delta
// vectors and seeds the sign-flip test, so equal deltas get equal p.
func hashDeltas(d []float64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, v := range d {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
	return h.Sum64()
}

// run runs jobs on GOMAXPROCS workers and waits for them.
func run(jobs []func()) {
	work := make(chan func())
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(1, len(jobs))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range work {
				job()
			}
		}()
	}
	for _, job := range jobs {
		work <- job
	}
	close(work)
	wg.Wait()
}

// classify sets Significant and Change from P, Delta and the direction.
func classify(md *MetricDelta, alpha float64) {
	md.Significant = md.P < alpha && md.Delta != 0
	if !md.Significant {
		return
	}
	switch {
	case md.Direction == "higher" && md.Delta > 0, md.Direction == "lower" && md.Delta < 0:
		md.Change = Improved
	case md.Direction == "higher" && md.Delta < 0, md.Direction == "lower" && md.Delta > 0:
		md.Change = Worsened
	default:
		md.Change = Changed
	}
}

// flips compares each case's outcome: a case passes in a run when every
// one of its paired trials that was graded in both runs passed.
func flips(pairs []cpair) Flips {
	f := emptyFlips()
	for i := 0; i < len(pairs); { // pairs are sorted by id: one case at a time
		id := pairs[i].key.id
		b, c, graded := true, true, false
		for ; i < len(pairs) && pairs[i].key.id == id; i++ {
			p := pairs[i]
			if !p.b.graded() || !p.c.graded() {
				continue
			}
			graded = true
			b = b && p.b.passed()
			c = c && p.c.passed()
		}
		switch {
		case !graded:
		case b && !c:
			f.PassToFail = append(f.PassToFail, id)
		case !b && c:
			f.FailToPass = append(f.FailToPass, id)
		}
	}
	f.AnsweredToRefused, f.RefusedToAnswered = refusalFlips(pairs)
	return f
}

func emptyFlips() Flips {
	return Flips{PassToFail: []string{}, FailToPass: []string{}, AnsweredToRefused: []string{}, RefusedToAnswered: []string{}}
}

// refusalFlips compares each case's refusal over the trials answered in
// both runs: refused when every such trial refused, answered when none
// did (a case that refused in some trials only does not flip).
func refusalFlips(pairs []cpair) (toRefused, toAnswered []string) {
	toRefused, toAnswered = []string{}, []string{}
	for i := 0; i < len(pairs); { // pairs are sorted by id: one case at a time
		id := pairs[i].key.id
		bAll, bNone, cAll, cNone, answered := true, true, true, true, false
		for ; i < len(pairs) && pairs[i].key.id == id; i++ {
			p := pairs[i]
			if !p.b.answered() || !p.c.answered() {
				continue
			}
			answered = true
			bAll, bNone = bAll && p.b.refused(), bNone && !p.b.refused()
			cAll, cNone = cAll && p.c.refused(), cNone && !p.c.refused()
		}
		switch {
		case !answered:
		case bNone && cAll:
			toRefused = append(toRefused, id)
		case bAll && cNone:
			toAnswered = append(toAnswered, id)
		}
	}
	return toRefused, toAnswered
}

// refusalExpected reports whether every paired trial of case id in the
// candidate passes a refusal check (the case states refusal: true and the
// candidate refused, as it should).
func refusalExpected(pairs []cpair, id string) bool {
	seen := false
	for _, p := range pairs {
		if p.key.id != id || !p.c.answered() {
			continue
		}
		if !p.c.is(fRefusalPass) {
			return false
		}
		seen = true
	}
	return seen
}

// topScores lists the cases whose top score changed, by the mean over
// their paired trials that have a top score in both runs.
func topScores(pairs []cpair) []ScoreDelta {
	out := []ScoreDelta{}
	for i := 0; i < len(pairs); {
		j := i
		var sb, sc float64
		n := 0
		for ; j < len(pairs) && pairs[j].key.id == pairs[i].key.id; j++ {
			pb, pc := pairs[j].b, pairs[j].c
			if !pb.is(fTop) || !pc.is(fTop) || math.IsNaN(pb.top) || math.IsNaN(pc.top) {
				continue
			}
			sb, sc, n = sb+pb.top, sc+pc.top, n+1
		}
		if n > 0 && sb != sc {
			b, c := sb/float64(n), sc/float64(n)
			out = append(out, ScoreDelta{ID: pairs[i].key.id, Baseline: b, Candidate: c, Delta: c - b})
		}
		i = j
	}
	sort.SliceStable(out, func(a, b int) bool {
		da, db := math.Abs(out[a].Delta), math.Abs(out[b].Delta)
		if da != db {
			return da > db
		}
		return out[a].ID < out[b].ID
	})
	return out
}

func latency(pairs []cpair) LatencyDelta {
	b, c := make([]float64, 0, len(pairs)), make([]float64, 0, len(pairs))
	for _, p := range pairs {
		if p.b.is(fLatency) && p.c.is(fLatency) {
			b = append(b, p.b.latency)
			c = append(c, p.c.latency)
		}
	}
	l := LatencyDelta{N: len(b)}
	if len(b) == 0 {
		return l
	}
	l.Baseline = LatencyStats{P50: percentile(b, 50), P95: percentile(b, 95)}
	l.Candidate = LatencyStats{P50: percentile(c, 50), P95: percentile(c, 95)}
	l.DeltaP50 = l.Candidate.P50 - l.Baseline.P50
	l.DeltaP95 = l.Candidate.P95 - l.Baseline.P95
	return l
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// warnings words what limits the comparison as the remedy.
func warnings(bc, cc *Compact, rep *Report, o Options) []string {
	base, cand := bc.Head, cc.Head
	w := []string{}
	if base.Status != assay.StatusComplete {
		w = append(w, fmt.Sprintf("baseline run %s is %s: compared the cases it finished; compare against a complete run", short(base.RunID), nonEmpty(string(base.Status), "of unknown status")))
	}
	if cand.Status != assay.StatusComplete {
		w = append(w, fmt.Sprintf("candidate run %s is %s: compared the cases it finished; rerun it to completion", short(cand.RunID), nonEmpty(string(cand.Status), "of unknown status")))
	}
	if base.Suite.Name != cand.Suite.Name {
		w = append(w, fmt.Sprintf("suites differ (%q vs %q): compare runs of one suite", base.Suite.Name, cand.Suite.Name))
	}
	if base.Suite.Fingerprint != cand.Suite.Fingerprint {
		w = append(w, fmt.Sprintf("suite fingerprints differ: compared the %d %s present in both", rep.PairedCases, plural(rep.PairedCases, "case", "cases")))
	} else if rep.OnlyBaseline+rep.OnlyCandidate > 0 {
		w = append(w, fmt.Sprintf("%d case %s only in the baseline and %d only in the candidate: compared the %d %s present in both",
			rep.OnlyBaseline, plural(rep.OnlyBaseline, "trial", "trials"), rep.OnlyCandidate, rep.PairedCases, plural(rep.PairedCases, "case", "cases")))
	}
	if diff := versionDiff(base.Target.Versions, cand.Target.Versions); diff != "" {
		w = append(w, "system versions differ ("+diff+"): pin them to attribute the change to the code under test")
	}
	if tb, tc := trials(base), trials(cand); tb != tc {
		w = append(w, fmt.Sprintf("trials differ (%d vs %d): compared the %d case %s present in both; run both with the same --trials", tb, tc, rep.PairedValues, plural(rep.PairedValues, "trial", "trials")))
	}
	if only := metricsInOne(bc, cc); only != "" {
		w = append(w, "metrics recorded by one run only were not compared ("+only+"): run both with the same metric set")
	}
	for _, r := range []struct {
		name string
		run  *assay.Run
	}{{"baseline", base}, {"candidate", cand}} {
		if n := r.run.Summary.Cached; n > 0 {
			w = append(w, fmt.Sprintf("the %s answered %d of %d %s from the response cache: a change in the system does not show in them, and their latency is not compared; run without --cache to measure them", r.name, n, r.run.Summary.Cases, plural(r.run.Summary.Cases, "case", "cases")))
		}
	}
	if base.Options.K != 0 && cand.Options.K != 0 && base.Options.K != cand.Options.K {
		w = append(w, fmt.Sprintf("k differs (%d vs %d): run both with the same -k", base.Options.K, cand.Options.K))
	}
	switch {
	case rep.PairedCases == 0:
		w = append(w, "no case is in both runs: nothing was compared; compare runs of the same suite")
	case rep.PairedCases < o.MinPaired:
		w = append(w, fmt.Sprintf("only %d paired %s: need >= %d for a 95%% CI to mean much", rep.PairedCases, plural(rep.PairedCases, "case", "cases"), o.MinPaired))
	}
	return w
}

// metricsInOne names the metrics that appear in the cases of one run and
// in none of the other's.
func metricsInOne(base, cand *Compact) string {
	names := func(r *Compact) map[string]bool {
		m := map[string]bool{}
		for _, n := range r.metricNames() {
			m[n] = true
		}
		return m
	}
	b, c := names(base), names(cand)
	var parts []string
	for _, n := range slices.Sorted(maps.Keys(b)) {
		if !c[n] {
			parts = append(parts, n+" only in the baseline")
		}
	}
	for _, n := range slices.Sorted(maps.Keys(c)) {
		if !b[n] {
			parts = append(parts, n+" only in the candidate")
		}
	}
	return strings.Join(parts, ", ")
}

func trials(r *assay.Run) int {
	if r.Options.Trials > 0 {
		return r.Options.Trials
	}
	return 1
}

func versionDiff(b, c map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(unionKeys(b, c))) {
		if b[k] != c[k] {
			parts = append(parts, fmt.Sprintf("%s %s → %s", k, nonEmpty(b[k], "none"), nonEmpty(c[k], "none")))
		}
	}
	return strings.Join(parts, ", ")
}

func unionKeys(a, b map[string]string) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func short(id string) string {
	if len(id) > 13 {
		return id[:13]
	}
	return id
}

func nonEmpty(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
