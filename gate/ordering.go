package gate

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
)

// Ordering is an expected order of a metric across the variants of a
// matrix, e.g. "ndcg@10: fast <= balanced <= thorough" (a thorough mode
// must actually beat the fast one). Grammar:
//
//	ordering  = METRIC ":" VARIANT { OP VARIANT } [ "tolerance" NUMBER ]
//	OP        = "<=" | "<" | ">=" | ">"
//
// With a tolerance t, "a <= b" holds when a <= b + t, "a < b" when
// a < b + t, and likewise the other way round; the default is 0.
type Ordering struct {
	Text   string
	Source string
	// Metric is canonical (package metric's name or a run-level name).
	Metric string
	// Variants are the variant names in the written order; Ops[i] sits
	// between Variants[i] and Variants[i+1].
	Variants  []string
	Ops       []Op
	Tolerance float64
}

// String renders the ordering in canonical form.
func (o Ordering) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", o.Metric, o.Variants[0])
	for i, op := range o.Ops {
		fmt.Fprintf(&b, " %s %s", op, o.Variants[i+1])
	}
	if o.Tolerance != 0 {
		fmt.Fprintf(&b, " tolerance %s", formatNumber(o.Tolerance))
	}
	return b.String()
}

// ParseOrdering parses an ordering; source is "file:line". Errors read
// `targets.yaml:9: ordering "ndcg@10 fast <= x": missing ":" after the metric`.
func ParseOrdering(spec, source string) (Ordering, error) {
	text := strings.TrimSpace(spec)
	fail := func(format string, args ...any) (Ordering, error) {
		reason := fmt.Sprintf(format, args...)
		if source == "" {
			return Ordering{}, fmt.Errorf("ordering %q: %s", text, reason)
		}
		return Ordering{}, fmt.Errorf("%s: ordering %q: %s", source, text, reason)
	}
	name, rest, ok := strings.Cut(text, ":")
	if !ok {
		return fail(`missing ":" after the metric (want METRIC: A <= B <= C)`)
	}
	canon, err := CanonicalMetric(strings.TrimSpace(name))
	if err != nil {
		return fail("%s", err)
	}
	o := Ordering{Text: text, Source: source, Metric: canon}
	fields := strings.Fields(rest)
	for i := 0; i < len(fields); i++ {
		if strings.EqualFold(fields[i], "tolerance") || fields[i] == "±" || fields[i] == "+-" {
			if i+2 != len(fields) {
				return fail("want one number after %s, at the end", fields[i])
			}
			t, err := strconv.ParseFloat(fields[i+1], 64)
			if err != nil || t < 0 || math.IsNaN(t) || math.IsInf(t, 0) {
				return fail("bad tolerance %q (want a number >= 0)", fields[i+1])
			}
			o.Tolerance = t
			fields = fields[:i]
			break
		}
	}
	// Operators may be written without spaces: "fast<=balanced".
	var tokens []string
	for _, f := range fields {
		tokens = append(tokens, splitOps(f)...)
	}
	if len(tokens) < 3 {
		return fail("want at least two variants, e.g. %s: fast <= thorough", canon)
	}
	for i, tok := range tokens {
		if i%2 == 0 {
			if isOrderingOp(tok) {
				return fail("want a variant name, got %q", tok)
			}
			o.Variants = append(o.Variants, tok)
			continue
		}
		if !isOrderingOp(tok) {
			return fail("want an operator (<= < >= >) between variants, got %q", tok)
		}
		o.Ops = append(o.Ops, Op(tok))
	}
	if len(o.Ops) != len(o.Variants)-1 {
		return fail("ends with an operator")
	}
	seen := map[string]bool{}
	for _, v := range o.Variants {
		if seen[v] {
			return fail("variant %q appears twice", v)
		}
		seen[v] = true
	}
	return o, nil
}

func isOrderingOp(s string) bool { return s == "<=" || s == "<" || s == ">=" || s == ">" }

// splitOps splits "fast<=balanced" into "fast", "<=", "balanced".
func splitOps(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexAny(s, "<>=")
		if i < 0 {
			out = append(out, s)
			break
		}
		if i > 0 {
			out = append(out, s[:i])
		}
		j := i + 1
		if j < len(s) && s[j] == '=' {
			j++
		}
		out = append(out, s[i:j])
		s = s[j:]
	}
	return out
}

// Check evaluates the ordering over the runs of a matrix, keyed by variant
// name (VariantName). The result fails, with the reason in Detail, when a
// pair is out of order beyond the tolerance, a variant has no run, or a run
// lacks the metric. The result has no Value (the detail lists each
// variant's value); Bound is the tolerance.
func (o Ordering) Check(runs map[string]*assay.Run) assay.GateResult {
	res := assay.GateResult{Expr: "ordering " + o.Text, Source: o.Source, Bound: o.Tolerance}
	if o.Text == "" {
		res.Expr = "ordering " + o.String()
	}
	vals := make([]float64, len(o.Variants))
	for i, name := range o.Variants {
		run := runs[name]
		if run == nil {
			res.Detail = fmt.Sprintf("no run for variant %s (have: %s)", name, strings.Join(slices.Sorted(maps.Keys(runs)), ", "))
			return res
		}
		v, detail := lookup(&view{sum: run.Summary, cases: run.Cases, judge: run.Summary.Judge}, o.Metric)
		if detail != "" {
			res.Detail = fmt.Sprintf("variant %s: %s", name, detail)
			return res
		}
		vals[i] = v
	}
	var parts, broken []string
	for i, op := range o.Ops {
		a, b := vals[i], vals[i+1]
		var s float64
		switch op {
		case LE, LT:
			s = b + o.Tolerance - a
		default:
			s = a + o.Tolerance - b
		}
		holds := s >= -Epsilon
		if op == LT || op == GT {
			holds = s > Epsilon
		}
		if !holds {
			broken = append(broken, fmt.Sprintf("%s %s is not %s %s %s", o.Variants[i], formatValue(a), op, o.Variants[i+1], formatValue(b)))
		}
		if i == 0 {
			parts = append(parts, fmt.Sprintf("%s %s", o.Variants[0], formatValue(a)))
		}
		parts = append(parts, fmt.Sprintf("%s %s %s", op, o.Variants[i+1], formatValue(b)))
	}
	res.Pass = len(broken) == 0
	res.Detail = strings.Join(parts, " ")
	if len(broken) > 0 {
		res.Detail = "broken: " + strings.Join(broken, "; ") + " (" + res.Detail + ")"
	}
	if o.Tolerance != 0 {
		res.Detail += fmt.Sprintf(" tolerance %s", formatNumber(o.Tolerance))
	}
	if steps, ok := o.evidence(runs); ok {
		applyEvidence(&res, steps)
	}
	return res
}

// CheckOrderings checks every ordering over the runs of a matrix.
func CheckOrderings(orderings []Ordering, runs map[string]*assay.Run) Verdict {
	v := Verdict{Pass: true}
	for _, o := range orderings {
		r := o.Check(runs)
		v.Pass = v.Pass && r.Pass
		v.Results = append(v.Results, r)
	}
	return v
}

// Final reports whether r, the result of o.Check over runs that carry no
// cases (run headers, as a list of runs reads them), is the result Check
// would give with the runs' cases. It is not when the metric is a paired
// measure and the means are out of order: with the cases the paired test
// decides, and a reversal it does not find significant does not fail the
// ordering. A result that holds, or fails for a missing variant or an
// undefined metric, is final.
func (o Ordering) Final(r assay.GateResult) bool {
	return r.Pass || !(Expr{Metric: o.Metric}).PairedMeasure() || !strings.HasPrefix(r.Detail, "broken: ")
}
