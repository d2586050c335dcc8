package gate

import (
	"fmt"
	"github.com/assay-eval/assay/metric"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/aggregate"
	"github.com/assay-eval/assay/internal/diag"
)

// Verdict is the outcome of a set of gates against a run.
type Verdict struct {
	Results []assay.GateResult `json:"results"`
	// Pass is true when every gate held (and vacuously with no gates).
	Pass bool `json:"pass"`
	// Warnings are data, worded as the remedy.
	Warnings []string `json:"warnings,omitempty"`
	// Errors name the gates that cannot measure anything as written: a
	// scope no case of the run (or of the baseline) carries, whatever the
	// gate's form. Each such gate also fails in Results; a caller should
	// treat a verdict with Errors as an input error (the CLI exits 2), not
	// as a gate that measured a value and failed. Each reads
	// `SOURCE: gate "EXPR": DETAIL`.
	Errors []string `json:"errors,omitempty"`
}

// Failed returns the results that did not hold.
func (v Verdict) Failed() []assay.GateResult {
	var out []assay.GateResult
	for _, r := range v.Results {
		if !r.Pass {
			out = append(out, r)
		}
	}
	return out
}

// Merge appends the results and warnings of o to v; the merged verdict
// passes only when both do.
func (v Verdict) Merge(o Verdict) Verdict {
	return Verdict{
		Results:  append(append([]assay.GateResult(nil), v.Results...), o.Results...),
		Pass:     v.Pass && o.Pass,
		Warnings: append(append([]string(nil), v.Warnings...), o.Warnings...),
		Errors:   append(append([]string(nil), v.Errors...), o.Errors...),
	}
}

// Evaluate checks every gate against the run, and against the baseline run
// when one is given (nil = none: delta, ratio and no_new_failures gates then
// fail with a detail saying a baseline is needed). It returns an error only
// when a gate does not parse; a gate whose value is missing fails with the
// reason in its Detail.
func Evaluate(gates []assay.Gate, run *assay.Run, baseline *assay.Run) (Verdict, error) {
	exprs, err := ParseAll(gates)
	if err != nil {
		return Verdict{}, err
	}
	return EvaluateExprs(exprs, run, baseline), nil
}

// EvaluateExprs is Evaluate over parsed expressions.
func EvaluateExprs(exprs []Expr, run *assay.Run, baseline *assay.Run) Verdict {
	return EvaluateHistory(exprs, run, baseline, nil)
}

// EvaluateHistory is EvaluateExprs with earlier runs of the baseline's
// suite and target (compare.SameSystem picks them), which no_new_failures
// weighs its flips against (compare.AssessFlips).
func EvaluateHistory(exprs []Expr, run *assay.Run, baseline *assay.Run, history []*assay.Run) Verdict {
	v := Verdict{Pass: true}
	if run == nil {
		run = &assay.Run{}
	}
	if baseline != nil && baseline.Status == assay.StatusIncomplete {
		v.Warnings = append(v.Warnings, fmt.Sprintf("baseline run %s is incomplete: compare against a complete run", short(baseline.RunID)))
	}
	warned := map[string]bool{}
	vc := viewCache{}
	var applied []Expr
	for _, e := range exprs {
		if !AppliesTo(e, run) {
			continue
		}
		applied = append(applied, e)
		r, warn := evalOne(e, run, baseline, history, vc)
		if strings.HasPrefix(r.Detail, noMatchPrefix) || strings.HasPrefix(r.Detail, "baseline: "+noMatchPrefix) {
			msg := fmt.Sprintf("gate %q: %s", r.Expr, r.Detail)
			if e.Source != "" {
				msg = e.Source + ": " + msg
			}
			v.Errors = append(v.Errors, msg)
		}
		v.Results = append(v.Results, r)
		if warn != "" && !warned[warn] {
			warned[warn] = true
			v.Warnings = append(v.Warnings, warn)
		}
	}
	segmentFamilies(applied, v.Results, run, baseline)
	for _, r := range v.Results {
		v.Pass = v.Pass && r.Pass
	}
	return v
}

func evalOne(e Expr, run, baseline *assay.Run, history []*assay.Run, vc viewCache) (assay.GateResult, string) {
	res := assay.GateResult{Expr: e.Text, Op: string(e.Op), Bound: e.Bound, Source: e.Source}
	if res.Expr == "" {
		res.Expr = e.String()
	}
	if e.Kind.NeedsBaseline() && baseline == nil {
		res.Detail = fmt.Sprintf("%s needs a baseline run (pass --baseline REF)", e.Kind)
		return res, ""
	}
	if e.Measure {
		return evalMeasure(e, run, baseline, res), ""
	}
	cand, cdetail := vc.get(run, e.Scope)
	switch e.Kind {
	case Threshold:
		if cdetail != "" {
			res.Detail = cdetail
			return res, ""
		}
		val, detail := lookup(cand, e.Metric)
		if detail != "" {
			res.Detail = detail
			return res, ""
		}
		res.Value = &val
		res.Pass = e.Op.Holds(val, e.Bound)
		return res, ""
	case Delta, Ratio:
		base, bdetail := vc.get(baseline, e.Scope)
		if cdetail != "" {
			res.Detail = cdetail
			return res, ""
		}
		if bdetail != "" {
			res.Detail = "baseline: " + bdetail
			return res, ""
		}
		cv, detail := lookup(cand, e.Metric)
		if detail != "" {
			res.Detail = detail
			return res, ""
		}
		bv, detail := lookup(base, e.Metric)
		if detail != "" {
			res.Detail = "baseline: " + detail
			return res, ""
		}
		var val float64
		if e.Kind == Delta {
			val = cv - bv
		} else {
			switch {
			case bv == 0 && cv == 0:
				val = 1
			case bv == 0:
				res.Detail = fmt.Sprintf("%s is 0 in the baseline: the ratio is undefined (use delta(%s))", e.Metric, e.Metric)
				return res, ""
			default:
				val = cv / bv
			}
		}
		res.Value = &val
		res.Pass = e.Op.Holds(val, e.Bound)
		res.Detail = fmt.Sprintf("baseline %s, run %s", formatValue(bv), formatValue(cv))
		if e.Kind == Delta {
			if iv := deltaInterval(e, run, baseline); iv != "" {
				res.Detail += "; " + iv
			}
		}
		return res, ""
	case NonInferior:
		return evalNonInferior(e, run, baseline, res), ""
	case NoNewFailures:
		if e.Scope != nil {
			// no new failure among no case is not a pass
			if _, isVariant := variantScope(run, e.Scope); !isVariant {
				if !carries(run, *e.Scope) {
					res.Detail = NoMatch(run, *e.Scope)
					return res, ""
				}
				if !carries(baseline, *e.Scope) {
					res.Detail = "baseline: " + NoMatch(baseline, *e.Scope)
					return res, ""
				}
			}
		}
		flips, paired := NewFailures(run, baseline, e.Scope)
		warn := ""
		if paired == 0 {
			warn = "the run and its baseline share no graded case: no_new_failures compared nothing (check that both ran the same suite)"
		}
		if len(flips) == 0 {
			n := 0.0
			res.Value = &n
			res.Pass = true
			res.Detail = fmt.Sprintf("no case went from pass to fail (%d paired)", paired)
			return res, warn
		}
		if e.Strict {
			n := float64(len(flips))
			res.Value = &n
			res.Detail = "pass -> fail: " + caseList(flips)
			return res, warn
		}
		return weighNewFailures(res, run, baseline, history, e.Scope, flips), warn
	}
	res.Detail = "unknown gate form"
	return res, ""
}

// evalMeasure evaluates a gate on a run-level measure (Run.Measures). A
// measure the run (or its baseline) does not hold is undefined: the gate
// fails with the reason. A tag scope does not apply to a run-level value.
func evalMeasure(e Expr, run, baseline *assay.Run, res assay.GateResult) assay.GateResult {
	if e.Scope != nil {
		if _, isVariant := variantScope(run, e.Scope); !isVariant {
			res.Detail = fmt.Sprintf("measure %s is run-level: a [%s] scope does not apply to it (drop the scope)", e.Metric, e.Scope)
			return res
		}
	}
	cv, detail := measureOf(run, e.Metric)
	if detail != "" {
		res.Detail = detail
		return res
	}
	if e.Kind == Threshold {
		res.Value = &cv
		res.Pass = e.Op.Holds(cv, e.Bound)
		return res
	}
	bv, detail := measureOf(baseline, e.Metric)
	if detail != "" {
		res.Detail = "baseline: " + detail
		return res
	}
	val := cv - bv
	if e.Kind == Ratio {
		switch {
		case bv == 0 && cv == 0:
			val = 1
		case bv == 0:
			res.Detail = fmt.Sprintf("%s is 0 in the baseline: the ratio is undefined (use delta(%s))", e.Metric, e.Metric)
			return res
		default:
			val = cv / bv
		}
	}
	res.Value = &val
	res.Pass = e.Op.Holds(val, e.Bound)
	res.Detail = fmt.Sprintf("baseline %s, run %s", formatValue(bv), formatValue(cv))
	return res
}

// measureOf reads a run-level measure, or says why it is undefined.
func measureOf(run *assay.Run, name string) (float64, string) {
	v, ok := run.Measures[name]
	if ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
		return v, ""
	}
	if ok {
		return 0, fmt.Sprintf("measure %s is undefined: the target reported %v", name, v)
	}
	if len(run.Measures) == 0 {
		return 0, fmt.Sprintf("measure %s is undefined: the target reported no measures (or is %s a misspelt metric?)", name, name)
	}
	return 0, fmt.Sprintf("measure %s is undefined: the target did not report it (reported: %s)", name, strings.Join(slices.Sorted(maps.Keys(run.Measures)), ", "))
}

// carries reports whether some case of the run has the scope's tag.
func carries(run *assay.Run, sc Scope) bool {
	for i := range run.Cases {
		if run.Cases[i].Tags[sc.Key] == sc.Value {
			return true
		}
	}
	return false
}

// NewFailures returns the ids (in order) of the graded cases, carrying the
// scope's tag when scope is non-nil, that passed in the baseline and do not
// pass in the run, and the number of graded cases the two runs share. With
// trials a case passes when every one of its trials passed (pass^N). A
// case whose hash differs between the runs (assay.CaseResult.Hash: it was
// edited) is not shared.
func NewFailures(run, baseline *assay.Run, scope *Scope) (flips []string, paired int) {
	if run == nil || baseline == nil {
		return nil, 0
	}
	base := caseOutcomes(baseline.Cases, scope)
	cand := caseOutcomes(run.Cases, scope)
	changed := changedCases(run, baseline)
	for _, id := range slices.Sorted(maps.Keys(cand)) {
		b, ok := base[id]
		if !ok || changed[id] {
			continue
		}
		paired++
		if b && !cand[id] {
			flips = append(flips, id)
		}
	}
	return flips, paired
}

// caseOutcomes maps each graded case id (within scope) to whether all its
// trials passed.
func caseOutcomes(cases []assay.CaseResult, scope *Scope) map[string]bool {
	out := map[string]bool{}
	for _, r := range cases {
		if scope != nil && r.Tags[scope.Key] != scope.Value {
			continue
		}
		if !r.Graded() && r.Error == nil {
			continue
		}
		prev, seen := out[r.ID]
		out[r.ID] = (prev || !seen) && r.Passed()
	}
	return out
}

// view is what a gate reads: a summary (the whole run's or a segment's)
// and the case results under it, with their trial statistics computed once.
type view struct {
	sum    assay.Summary
	cases  []assay.CaseResult
	trials *assay.TrialStats
	// judge is the run's judge summary (a segment's view too): its
	// min_kappa decides whether a judge metric may be read.
	judge *assay.JudgeSummary
	// metrics are the ranking metrics the run computed (its options'),
	// nil when it does not say (a run recorded before they were kept).
	metrics []string
}

func (v *view) trialStats() *assay.TrialStats {
	if v.trials == nil {
		st := aggregate.Trials(v.cases)
		v.trials = &st
	}
	return v.trials
}

// viewCache holds the views of one evaluation, so gates that share a scope
// share its summary and trial statistics.
type viewCache map[viewKey]cachedView

type viewKey struct {
	run   *assay.Run
	scope string
}

type cachedView struct {
	v      *view
	detail string
}

func (c viewCache) get(run *assay.Run, sc *Scope) (*view, string) {
	k := viewKey{run: run}
	if sc != nil {
		k.scope = sc.String()
	}
	if cv, ok := c[k]; ok {
		return cv.v, cv.detail
	}
	v, detail := viewOf(run, sc)
	c[k] = cachedView{v, detail}
	return v, detail
}

// viewOf returns the run, or the cases of its segment scope. A scope the
// run has no segment for is summarised from the cases carrying the tag; a
// scope no case carries gives a detail instead.
func viewOf(run *assay.Run, sc *Scope) (*view, string) {
	v, detail := scopeView(run, sc)
	if run != nil {
		v.judge = run.Summary.Judge
		v.metrics = run.Options.Metrics
	}
	return v, detail
}

func scopeView(run *assay.Run, sc *Scope) (*view, string) {
	if sc == nil {
		return &view{sum: run.Summary, cases: run.Cases}, ""
	}
	if match, isVariant := variantScope(run, sc); isVariant {
		if !match {
			return &view{}, fmt.Sprintf("the run is variant %s, not %s", VariantName(run.Variant), sc.Value)
		}
		return &view{sum: run.Summary, cases: run.Cases}, ""
	}
	var cases []assay.CaseResult
	for _, r := range run.Cases {
		if r.Tags[sc.Key] == sc.Value {
			cases = append(cases, r)
		}
	}
	if seg, ok := run.Segments[sc.String()]; ok {
		return &view{sum: seg, cases: cases}, ""
	}
	if len(cases) == 0 {
		return &view{}, NoMatch(run, *sc)
	}
	return &view{sum: aggregate.Summarize(cases, nil), cases: cases}, ""
}

const noMatchPrefix = "scope "

// NoMatch is the detail of a scope no case of the run carries: it names
// the scope and suggests the nearest tag the run has, "scope [categroy=x]
// matches no case (did you mean [category=x]?)". A gate with such a scope
// fails, whatever its form: it measured nothing.
func NoMatch(run *assay.Run, sc Scope) string { return NoMatchIn(runTags(run), sc) }

// NoMatchIn is NoMatch over known tags (key -> values), as lint knows them
// from a suite's cases.
func NoMatchIn(tags map[string]map[string]bool, sc Scope) string {
	msg := fmt.Sprintf("%s[%s] matches no case", noMatchPrefix, sc)
	if len(tags) == 0 {
		return msg + " (the run's cases carry no tags)"
	}
	if s := nearestTag(tags, sc); s != "" {
		return msg + " (did you mean [" + s + "]?)"
	}
	known := make([]string, 0, len(tags))
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		known = append(known, k+"="+strings.Join(slices.Sorted(maps.Keys(tags[k])), "|"))
	}
	const most = 8
	if len(known) > most {
		known = append(known[:most], "...")
	}
	return msg + " (tags: " + strings.Join(known, ", ") + ")"
}

// runTags are the tag values of the run's cases, or of its segments when
// it holds no cases.
func runTags(run *assay.Run) map[string]map[string]bool {
	tags := map[string]map[string]bool{}
	add := func(k, v string) {
		if tags[k] == nil {
			tags[k] = map[string]bool{}
		}
		tags[k][v] = true
	}
	for i := range run.Cases {
		for k, v := range run.Cases[i].Tags {
			add(k, v)
		}
	}
	for key := range run.Segments {
		if k, v, ok := strings.Cut(key, "="); ok {
			add(k, v)
		}
	}
	return tags
}

// nearestTag is the known "key=value" closest to the scope: the same key
// with the nearest value, or the nearest key (with the scope's value when
// that key has it, else its nearest value). "" when nothing is close.
func nearestTag(tags map[string]map[string]bool, sc Scope) string {
	near := diag.Nearest
	key := sc.Key
	if tags[key] == nil {
		key = near(sc.Key, slices.Sorted(maps.Keys(tags)))
		if key == "" {
			return ""
		}
	}
	vals := tags[key]
	if vals[sc.Value] {
		return key + "=" + sc.Value
	}
	v := near(sc.Value, slices.Sorted(maps.Keys(vals)))
	if v == "" {
		if len(vals) == 1 {
			return key + "=" + slices.Sorted(maps.Keys(vals))[0]
		}
		return ""
	}
	return key + "=" + v
}

// AppliesTo reports whether a gate applies to the run. Every gate does,
// except one scoped to a variant ([variant=NAME], or [KEY=VALUE] with KEY
// a variant key) on a run of another variant: the gates of a variant
// matrix are evaluated against each variant's run, and each scoped gate
// only against its own.
func AppliesTo(e Expr, run *assay.Run) bool {
	if e.Scope == nil || run == nil {
		return true
	}
	match, isVariant := variantScope(run, e.Scope)
	return !isVariant || match
}

// variantScope reports whether sc names a variant of the run (isVariant)
// and whether it is the run's own (match).
func variantScope(run *assay.Run, sc *Scope) (match, isVariant bool) {
	if len(run.Variant) == 0 {
		return false, false
	}
	if v, ok := run.Variant[sc.Key]; ok {
		return v == sc.Value, true
	}
	if sc.Key != "variant" {
		return false, false
	}
	if VariantName(run.Variant) == sc.Value {
		return true, true
	}
	for _, v := range run.Variant {
		if v == sc.Value {
			return true, true
		}
	}
	return false, true
}

// VariantName names a variant: its value when it has one key ("fast"),
// otherwise its values in key order joined by "/" ("fast/slim").
func VariantName(v map[string]string) string {
	keys := slices.Sorted(maps.Keys(v))
	vals := make([]string, len(keys))
	for i, k := range keys {
		vals[i] = v[k]
	}
	return strings.Join(vals, "/")
}

// lookup reads the named value from a view; a non-empty detail says why
// there is none.
func lookup(v *view, name string) (float64, string) {
	s := v.sum
	// answered is checked as well as the value: a run recorded before
	// rates over nothing were undefined holds 0 for them.
	noneAnswered := s.Cases > 0 && s.Cases == s.Errors
	why := func(name string) string {
		if s.Cases == 0 {
			return name + " is undefined: the run has no case"
		}
		return fmt.Sprintf("%s is undefined: no case was answered (%d of %d errored)", name, s.Errors, s.Cases)
	}
	answeredRate := func(name string, p *float64) (float64, string) {
		if p == nil || noneAnswered {
			return 0, why(name)
		}
		return *p, ""
	}
	latency := func(name string, x float64) (float64, string) {
		if s.LatencyMs.N == 0 && s.LatencyMs.Max == 0 {
			if noneAnswered {
				return 0, why(name)
			}
			return 0, name + " is undefined: no observation has a latency"
		}
		if noneAnswered {
			return 0, why(name)
		}
		return x, ""
	}
	switch name {
	case "pass_rate":
		if s.PassRate == nil {
			return 0, "pass_rate is undefined: no case was graded (no case states an expectation)"
		}
		return *s.PassRate, ""
	case "error_rate":
		if s.Rates.Error == nil {
			return 0, why(name)
		}
		return *s.Rates.Error, ""
	case "no_hit_rate":
		return answeredRate(name, s.Rates.NoHit)
	case "refusal_rate":
		return answeredRate(name, s.Rates.Refusal)
	case "grounded_rate":
		return answeredRate(name, s.Rates.Grounded)
	case "p50_latency_ms":
		return latency(name, s.LatencyMs.P50)
	case "p95_latency_ms":
		return latency(name, s.LatencyMs.P95)
	case "p99_latency_ms":
		return latency(name, s.LatencyMs.P99)
	case "max_latency_ms":
		return latency(name, s.LatencyMs.Max)
	case "cases":
		return float64(s.Cases), ""
	case "graded":
		return float64(s.Graded), ""
	case "passed":
		return float64(s.Passed), ""
	case "failed":
		return float64(s.Failed), ""
	case "errors":
		return float64(s.Errors), ""
	case "cost_usd", "cost_per_case_usd", "cost", "tokens", "tokens_per_case":
		return costOf(s, name)
	case "flaky_cases":
		return float64(len(v.trialStats().Flaky)), ""
	case "pass_any_rate", "pass_all_rate":
		st := v.trialStats()
		p := st.PassAny
		if name == "pass_all_rate" {
			p = st.PassAll
		}
		if p == nil {
			return 0, name + " is undefined: no case was graded"
		}
		return *p, ""
	}
	m, ok := s.Metrics[name]
	if (!ok || m.N == 0) && assay.IsAttributionMetric(name) {
		return 0, fmt.Sprintf("%s is undefined: no answer cites a passage at sentence level ([n] markers or citations with offsets)", name)
	}
	if !ok || m.N == 0 {
		if assay.IsNuggetMetric(name) {
			return 0, fmt.Sprintf("metric %s is undefined: no case has nuggets it applies to (expect.nuggets; a vital score needs a vital nugget)", name)
		}
		if why := NotComputed(name, v.metrics); why != "" {
			return 0, why
		}
		return 0, fmt.Sprintf("metric %s was not computed (no judged cases)", name)
	}
	if why := v.judge.JudgeUndefined(name); why != "" {
		return 0, name + " is undefined: " + why
	}
	if isJudgeMetric(name) && !judgedEnough(m.N, s.Cases) {
		return 0, fmt.Sprintf("%s is undefined: the judge scored %d of %d results, and a judge gate needs at least %d%% of them (summary.judge says why the others were not)", name, m.N, s.Cases, int(MinJudgedShare*100))
	}
	return m.Mean, ""
}

// costOf reads a cost name of the system's usage (Summary.Cost), or says
// why it is undefined: no case reported usage, or an answered case has no
// usage or no price. cost is cost_per_case_usd; tokens is input + output
// tokens over the run.
func costOf(s assay.Summary, name string) (float64, string) {
	c := s.Cost
	if c == nil {
		if s.Cases > 0 && s.Cases == s.Errors {
			return 0, fmt.Sprintf("%s is undefined: no case was answered (%d of %d errored)", name, s.Errors, s.Cases)
		}
		return 0, fmt.Sprintf("%s is undefined: no case reported usage (map the system's usage into the observation: docs/cost.md)", name)
	}
	var p *float64
	switch name {
	case "cost_usd":
		p = c.CostUSD
	case "cost_per_case_usd", "cost":
		p = c.CostPerCaseUSD
	case "tokens":
		if c.WithUsage == c.Answered && c.Answered > 0 {
			t := float64(c.InputTokens + c.OutputTokens)
			p = &t
		}
	case "tokens_per_case":
		p = c.TokensPerCase
	}
	if p != nil {
		return *p, ""
	}
	n, what := c.Priced, "priced"
	if strings.HasPrefix(name, "tokens") {
		n, what = c.WithUsage, "reported usage"
	}
	why := c.Unpriced
	if why == "" {
		why = "no case was answered"
	}
	return 0, fmt.Sprintf("%s is undefined: %s (%d of %d answered cases %s)", name, why, n, c.Answered, what)
}

// MinJudgedShare is the smallest share of a run's results (or of a
// scope's) the judge must have scored for a judge metric (judge.CRITERION)
// to be read: below it the mean speaks for the few results a budget, a
// judge error or a failed target left, and the gate is undefined.
const MinJudgedShare = 0.8

// judgedEnough reports whether n judged results of cases reach
// MinJudgedShare (a run that records no case count is read as it is).
func judgedEnough(n, cases int) bool {
	return cases <= 0 || float64(n) >= MinJudgedShare*float64(cases)-Epsilon
}

// formatValue prints a gate value: up to 4 decimals, trailing zeros trimmed.
func formatValue(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return fmt.Sprint(f)
	}
	s := fmt.Sprintf("%.4f", f)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

// FormatValue prints a gate value the way results are shown: up to four
// decimals with trailing zeros trimmed ("0.8", "0.6123", "1200").
func FormatValue(f float64) string { return formatValue(f) }

// FormatPair prints a gate's value and bound as FormatValue does, with all
// the digits they need when four decimals would show two different numbers
// alike: value 0.80000001 against == 0.8 prints "0.80000001" and "0.8", so
// the line explains its verdict.
func FormatPair(value, bound float64) (string, string) {
	v, b := formatValue(value), formatValue(bound)
	if v == b && value != bound && !math.IsNaN(value) && !math.IsNaN(bound) {
		v, b = strconv.FormatFloat(value, 'f', -1, 64), strconv.FormatFloat(bound, 'f', -1, 64)
	}
	return v, b
}

// Line renders one result as a line of text, with its source unless it
// came from a flag:
//
//	✓ pass_rate >= 0.8  value 0.8333, bound 0.8
//	✗ delta(ndcg@10) >= -0.02  value -0.06, bound -0.02 (baseline 0.61, run 0.55)  suite.yaml:14
func Line(r assay.GateResult) string {
	var b strings.Builder
	if r.Pass {
		b.WriteString("✓ ")
	} else {
		b.WriteString("✗ ")
	}
	b.WriteString(r.Expr)
	if r.Value != nil {
		v, bd := FormatPair(*r.Value, r.Bound)
		fmt.Fprintf(&b, "  value %s, bound %s", v, bd)
		if r.Detail != "" {
			fmt.Fprintf(&b, " (%s)", r.Detail)
		}
	} else if r.Detail != "" {
		fmt.Fprintf(&b, "  %s", r.Detail)
	}
	if r.Source != "" && !strings.HasPrefix(r.Source, "--") {
		fmt.Fprintf(&b, "  [%s]", r.Source)
	}
	return b.String()
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	if id == "" {
		return "(no id)"
	}
	return id
}

// NotComputed says that the ranking metric name is not among the metrics
// computed (a run's options', a suite's metrics), naming them; "" when it
// is, when name is no ranking metric, or when computed is empty (not
// known).
func NotComputed(name string, computed []string) string {
	spec, err := metric.Parse(name)
	if err != nil || len(computed) == 0 {
		return ""
	}
	for _, c := range computed {
		if cs, err := metric.Parse(c); err == nil && cs.Name == spec.Name {
			return ""
		}
	}
	return fmt.Sprintf("metric %s is not computed by this suite (its metrics: %s; add it to metrics:)", name, strings.Join(computed, ", "))
}
