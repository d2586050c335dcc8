package gate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
)

// NonInferiorAlpha is the one-sided level of a non-inferiority gate: the
// bound it checks is the one-sided 95 % bound of the paired mean delta.
const NonInferiorAlpha = 0.05

// leadingFunc returns the word before "(" at the start of s, and the rest.
func leadingFunc(s string) (string, string) {
	i := strings.IndexByte(s, '(')
	if i < 0 {
		return "", s
	}
	return strings.TrimSpace(s[:i]), s[i:]
}

// parseNonInferior reads "noninferior(METRIC, MARGIN)" (e already holds
// the text, source and scope).
func parseNonInferior(e Expr, rest string, fail func(string, ...any) (Expr, error)) (Expr, error) {
	_, args := leadingFunc(rest)
	end := strings.LastIndexByte(args, ')')
	if end < 0 {
		return fail("missing ) after noninferior( (want noninferior(METRIC, MARGIN), e.g. noninferior(ndcg@10, 0.02))")
	}
	if t := strings.TrimSpace(args[end+1:]); t != "" {
		return fail("unexpected %q after noninferior(...) (it takes no operator: the margin is inside)", t)
	}
	name, margin, ok := strings.Cut(args[1:end], ",")
	name, margin = strings.TrimSpace(name), strings.TrimSpace(margin)
	if !ok || name == "" || margin == "" || strings.Contains(margin, ",") {
		return fail("want noninferior(METRIC, MARGIN), e.g. noninferior(ndcg@10, 0.02)")
	}
	canon, err := CanonicalMetric(name)
	if err != nil {
		return fail("%s", err)
	}
	if isRunName(canon) && compare.RateDirection(canon) == "" || compare.RateDirection(canon) == "none" {
		return fail("noninferior needs a measure that is paired case by case and has a better direction: an IR metric, pass_rate, error_rate, no_hit_rate or grounded_rate (got %s)", canon)
	}
	m, err := strconv.ParseFloat(margin, 64)
	if err != nil || math.IsNaN(m) || math.IsInf(m, 0) || m < 0 {
		return fail("bad margin %q (want a number >= 0 in the measure's units, e.g. 0.02)", margin)
	}
	e.Kind, e.Metric, e.Bound = NonInferior, canon, m
	e.Op = GT
	return e, nil
}

// casesIn returns the filter of a gate's tag scope over case results: nil
// (every case) without a scope or for a variant scope.
func casesIn(run *assay.Run, sc *Scope) func(*assay.CaseResult) bool {
	if sc == nil {
		return nil
	}
	if _, isVariant := variantScope(run, sc); isVariant {
		return nil
	}
	k, v := sc.Key, sc.Value
	return func(r *assay.CaseResult) bool { return r.Tags[k] == v }
}

// evalNonInferior checks noninferior(METRIC, MARGIN): the candidate is
// shown not to be worse than the baseline by MARGIN or more when the
// one-sided 95 % bound of the paired mean delta (the lower bound for a
// measure where higher is better, the upper one where lower is better)
// clears the margin: lower > -MARGIN, upper < +MARGIN. The bound is the
// matching end of the two-sided 90 % interval of package compare's
// sign-flip test. The gate's value is that bound; with no paired case it
// is undefined and the gate fails.
func evalNonInferior(e Expr, run, baseline *assay.Run, res assay.GateResult) assay.GateResult {
	if e.Scope != nil {
		if _, isVariant := variantScope(run, e.Scope); !isVariant {
			if !carries(run, *e.Scope) {
				res.Detail = NoMatch(run, *e.Scope)
				return res
			}
			if !carries(baseline, *e.Scope) {
				res.Detail = "baseline: " + NoMatch(baseline, *e.Scope)
				return res
			}
		}
	}
	p := compare.PairMeasure(baseline, run, e.Metric, casesIn(run, e.Scope))
	if len(p.Deltas) == 0 {
		res.Detail = fmt.Sprintf("noninferiority is undefined: no case has %s in both the run and the baseline", e.Metric)
		return res
	}
	iv := compare.DeltaInterval(p.Deltas, 2*NonInferiorAlpha, compare.Options{})
	bound, side := iv.Lo, "lower"
	res.Op, res.Bound = string(GT), -e.Bound
	res.Pass = bound > -e.Bound+Epsilon
	if p.Direction == "lower" {
		bound, side = iv.Hi, "upper"
		res.Op, res.Bound = string(LT), e.Bound
		res.Pass = bound < e.Bound-Epsilon
	}
	res.Value = &bound
	res.Detail = fmt.Sprintf("one-sided %.0f%% %s bound of the paired delta; delta %s over %d %s",
		100*(1-NonInferiorAlpha), side, signed(iv.Delta), iv.N, plural(iv.N, "case", "cases"))
	// The smallest one-sided p of n paired cases is 1/2^n: with fewer
	// cases than that needs, the test rejects no margin, and the interval
	// stops at the deltas' range, which would pass on the point alone.
	if math.Ldexp(1, -iv.N) >= NonInferiorAlpha {
		res.Pass = false
		res.Detail += fmt.Sprintf("; %d paired %s cannot show non-inferiority at %.0f%% (the sign-flip test needs %d or more)",
			iv.N, plural(iv.N, "case", "cases"), 100*(1-NonInferiorAlpha), minCases(NonInferiorAlpha))
	}
	return res
}

// deltaInterval is the part of a delta gate's detail that shows the
// interval behind its point: "paired delta -0.0120, 95% CI [-0.0310,
// +0.0050] over 30 cases". It is "" when the runs hold no case that pairs
// the measure (a run read without its cases, or a run-level measure).
func deltaInterval(e Expr, run, baseline *assay.Run) string {
	if !e.PairedMeasure() {
		return ""
	}
	p := compare.PairMeasure(baseline, run, e.Metric, casesIn(run, e.Scope))
	if len(p.Deltas) == 0 {
		return ""
	}
	iv := compare.DeltaInterval(p.Deltas, compare.Defaults.Alpha, compare.Options{})
	return fmt.Sprintf("paired delta %s, %.0f%% CI [%s, %s] over %d %s", signed(iv.Delta), 100*(1-compare.Defaults.Alpha),
		signed(iv.Lo), signed(iv.Hi), iv.N, plural(iv.N, "case", "cases"))
}

func signed(f float64) string {
	s := formatValue(f)
	if f > 0 && s != "0" {
		return "+" + s
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// minCases is the smallest n with 1/2^n < alpha: the fewest paired cases
// whose one-sided sign-flip test can reach alpha.
func minCases(alpha float64) int {
	n := 1
	for math.Ldexp(1, -n) >= alpha {
		n++
	}
	return n
}

// PairedMeasure reports whether e reads a measure that package compare
// pairs case by case (an IR metric or one of its rates), so that a paired
// delta, its interval and its MDE exist for it.
func (e Expr) PairedMeasure() bool {
	return !e.Measure && e.Metric != "" && (!isRunName(e.Metric) || compare.RateDirection(e.Metric) != "")
}

// TagScoped reports whether e is restricted to the cases carrying a tag
// (a scope that does not name the run's variant).
func (e Expr) TagScoped(run *assay.Run) bool {
	if e.Scope == nil {
		return false
	}
	_, isVariant := variantScope(run, e.Scope)
	return !isVariant
}

// nonInferiorP is the one-sided p-value of "the paired mean delta is at
// worst -MARGIN" (+MARGIN where lower is better) for a noninferior gate:
// the sign-flip test of the deltas shifted by the margin, one-sided (half
// the two-sided p, the test's distribution being symmetric). ok is false
// when the gate has no paired case.
func nonInferiorP(e Expr, run, baseline *assay.Run) (p float64, ok bool) {
	if baseline == nil {
		return 0, false
	}
	pm := compare.PairMeasure(baseline, run, e.Metric, casesIn(run, e.Scope))
	if len(pm.Deltas) == 0 {
		return 0, false
	}
	shifted := make([]float64, len(pm.Deltas))
	for i, d := range pm.Deltas {
		if pm.Direction == "lower" {
			d = -d
		}
		shifted[i] = d + e.Bound
	}
	iv := compare.DeltaInterval(shifted, compare.Defaults.Alpha, compare.Options{})
	if iv.Delta > 0 {
		return iv.P / 2, true
	}
	return math.Min(1, 1-iv.P/2), true
}

// segmentFamilies adjusts the noninferior gates of each family by Holm's
// step-down procedure: the gates on one measure and margin scoped to
// segments of one tag ([lang=en], [lang=zh], ...) test the same claim on
// each segment, so their chance of a false pass grows with their number.
// Each such gate then holds only when its Holm-adjusted one-sided p is below
// 0.05 (and it held on its own), and its detail shows the raw and adjusted
// p and the family. A gate alone in its family shows its p only.
func segmentFamilies(exprs []Expr, results []assay.GateResult, run, baseline *assay.Run) {
	type member struct {
		i int
		p float64
	}
	families := map[string][]member{}
	var order []string
	for i, e := range exprs {
		if e.Kind != NonInferior || results[i].Value == nil {
			continue
		}
		p, ok := nonInferiorP(e, run, baseline)
		if !ok {
			continue
		}
		key := fmt.Sprintf("%s %g", e.Metric, e.Bound)
		if e.TagScoped(run) {
			key = "[" + e.Scope.Key + "=*] " + key
		}
		if _, seen := families[key]; !seen {
			order = append(order, key)
		}
		families[key] = append(families[key], member{i, p})
	}
	for _, key := range order {
		f := families[key]
		if len(f) == 1 || !strings.HasPrefix(key, "[") {
			for _, m := range f {
				results[m.i].Detail += fmt.Sprintf("; one-sided p %s", formatP(m.p))
			}
			continue
		}
		ps := make([]float64, len(f))
		for k, m := range f {
			ps[k] = m.p
		}
		adj := compare.Holm(ps)
		scope := key[:strings.IndexByte(key, ']')+1]
		for k, m := range f {
			r := &results[m.i]
			r.Pass = r.Pass && adj[k] < NonInferiorAlpha
			r.Detail += fmt.Sprintf("; one-sided p %s, Holm-adjusted %s over the %d %s segments", formatP(m.p), formatP(adj[k]), len(f), scope)
		}
	}
}
