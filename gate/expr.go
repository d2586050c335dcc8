package gate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/diag"
	"github.com/assay-eval/assay/metric"
)

// Kind is the form of a gate expression.
type Kind int

// The gate forms (see the package doc for the grammar).
const (
	Threshold     Kind = iota // METRIC OP NUMBER
	Delta                     // delta(METRIC) OP NUMBER: candidate - baseline
	Ratio                     // ratio(METRIC) OP NUMBER: candidate / baseline
	NoNewFailures             // no_new_failures: no case flipped pass -> fail
	NonInferior               // noninferior(METRIC, MARGIN): the paired delta's one-sided bound clears -MARGIN
)

// String names the form as it is written.
func (k Kind) String() string {
	switch k {
	case Threshold:
		return "threshold"
	case Delta:
		return "delta"
	case Ratio:
		return "ratio"
	case NoNewFailures:
		return "no_new_failures"
	case NonInferior:
		return "noninferior"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// NeedsBaseline reports whether the form compares against a baseline run.
func (k Kind) NeedsBaseline() bool {
	return k == Delta || k == Ratio || k == NoNewFailures || k == NonInferior
}

// Op is a comparison operator.
type Op string

// The operators.
const (
	GE Op = ">="
	GT Op = ">"
	LE Op = "<="
	LT Op = "<"
	EQ Op = "=="
)

// Ops lists the operators in the order they are tried by the parser.
var Ops = []Op{GE, LE, EQ, GT, LT}

// Epsilon is the tolerance of every comparison: a value within Epsilon of
// the bound counts as equal to it, so 24/30 >= 0.8 holds whatever the
// rounding of the mean that produced it.
const Epsilon = 1e-9

// Holds reports whether "value op bound" holds, within Epsilon.
func (o Op) Holds(value, bound float64) bool {
	if math.IsNaN(value) {
		return false
	}
	switch o {
	case GE:
		return value >= bound-Epsilon
	case GT:
		return value > bound+Epsilon
	case LE:
		return value <= bound+Epsilon
	case LT:
		return value < bound-Epsilon
	case EQ:
		return math.Abs(value-bound) <= Epsilon
	}
	return false
}

// Scope restricts a gate to the cases carrying one tag value (the run's
// segment "key=value").
type Scope struct {
	Key   string
	Value string
}

// String is the segment key, "key=value".
func (s Scope) String() string { return s.Key + "=" + s.Value }

// Expr is one parsed gate expression.
type Expr struct {
	// Text is the expression as written (trimmed).
	Text string
	// Source is where it was written: "file:line" or "--gate".
	Source string
	Kind   Kind
	// Scope is nil for the whole run.
	Scope *Scope
	// Metric is the canonical metric name ("ndcg@10", "pass_rate"); empty
	// for no_new_failures.
	Metric string
	// Measure is set when Metric names a run-level measure the target
	// reports (Run.Measures, e.g. index_bytes), not a metric of the cases.
	Measure bool
	Op      Op
	Bound   float64
	// Strict is set for no_new_failures(strict): every pass -> fail flip
	// fails the gate, whatever is known of the case's noise.
	Strict bool
}

// String renders the expression in canonical form, e.g.
// "[lang=zh] delta(ndcg@10) >= -0.02".
func (e Expr) String() string {
	var b strings.Builder
	if e.Scope != nil && e.Kind != NoNewFailures {
		fmt.Fprintf(&b, "[%s] ", e.Scope)
	}
	switch e.Kind {
	case Threshold:
		b.WriteString(e.Metric)
	case Delta, Ratio:
		fmt.Fprintf(&b, "%s(%s)", e.Kind, e.Metric)
	case NoNewFailures:
		b.WriteString("no_new_failures")
		if e.Strict {
			b.WriteString("(strict)")
		}
		if e.Scope != nil {
			fmt.Fprintf(&b, " [%s]", e.Scope)
		}
		return b.String()
	case NonInferior:
		fmt.Fprintf(&b, "noninferior(%s, %s)", e.Metric, formatNumber(e.Bound))
		return b.String()
	}
	fmt.Fprintf(&b, " %s %s", e.Op, formatNumber(e.Bound))
	return b.String()
}

func formatNumber(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Names that are not per-case IR metrics: suite-level rates, latency
// percentiles, counts and trial statistics.
var runNames = []string{
	"pass_rate", "error_rate", "no_hit_rate", "refusal_rate", "grounded_rate",
	"p50_latency_ms", "p95_latency_ms", "p99_latency_ms", "max_latency_ms",
	"flaky_cases", "pass_any_rate", "pass_all_rate",
	"cases", "graded", "passed", "failed", "errors",
	"cost_usd", "cost_per_case_usd", "cost", "tokens", "tokens_per_case",
}

// metricFamilies are the per-case IR metric forms package metric accepts.
var metricFamilies = []string{"ndcg@K", "ndcg", "recall@K", "precision@K", "mrr", "map", "hit@K", "rprec", "judge.CRITERION",
	assay.MetricNuggetStrictVital, assay.MetricNuggetStrictAll, assay.MetricNuggetVital, assay.MetricNuggetAll, "support_rate", "citation_precision", "citation_recall"}

// KnownMetrics lists every name a gate may use, for messages ("@K" stands for
// any cutoff).
func KnownMetrics() []string {
	return append(append([]string(nil), runNames...), metricFamilies...)
}

func knownList() string { return strings.Join(KnownMetrics(), ", ") }

// higherIsBetter reports whether a larger value of the named metric is an
// improvement: the IR metrics and the pass and grounded rates. Floors hold
// only such metrics.
func higherIsBetter(name string) bool {
	switch name {
	case "pass_rate", "grounded_rate", "pass_any_rate", "pass_all_rate", "passed":
		return true
	}
	return !isRunName(name)
}

func isRunName(name string) bool {
	for _, n := range runNames {
		if n == name {
			return true
		}
	}
	return false
}

// CanonicalMetric returns the canonical spelling of a gate metric name:
// lowercased run names ("pass_rate") or package metric's canonical name
// ("nDCG@10" -> "ndcg@10"). An unknown name is an error that lists the known
// ones.
func CanonicalMetric(name string) (string, error) {
	lower := strings.ToLower(strings.TrimSpace(name))
	if isRunName(lower) {
		return lower, nil
	}
	if isJudgeMetric(lower) || assay.IsNuggetMetric(lower) || assay.IsAttributionMetric(lower) {
		return lower, nil
	}
	if spec, err := metric.Parse(name); err == nil {
		return spec.Name, nil
	}
	msg := fmt.Sprintf("unknown metric %q", name)
	if s := suggest(lower); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", s)
	}
	return "", fmt.Errorf("%s (known: %s)", msg, knownList())
}

// isJudgeMetric reports whether name is a judge metric: judge.CRITERION,
// the criterion a lowercase word (package judge's rubric names).
func isJudgeMetric(name string) bool {
	c, ok := strings.CutPrefix(name, assay.JudgeMetricPrefix)
	if !ok || c == "" || len(c) > 64 || c[0] < 'a' || c[0] > 'z' || c == "reasoning" {
		return false
	}
	for i := 0; i < len(c); i++ {
		if b := c[i]; !(b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '_') {
			return false
		}
	}
	return true
}

// suggest returns the known run name closest to name, when it is close.
func suggest(name string) string {
	cands := append(append([]string(nil), runNames...), "ndcg@10", "recall@10", "precision@10", "mrr", "map", "hit@10", "rprec", "no_new_failures", "noninferior",
		assay.MetricNuggetStrictVital, assay.MetricNuggetStrictAll, assay.MetricNuggetVital, assay.MetricNuggetAll)
	return diag.Nearest(name, cands)
}

// ParseError is a gate that could not be parsed. Its message is
// `SOURCE: gate "EXPR": REASON`.
type ParseError struct {
	Source string
	Expr   string
	Reason string
}

func (e *ParseError) Error() string {
	if e.Source == "" {
		return fmt.Sprintf("gate %q: %s", e.Expr, e.Reason)
	}
	return fmt.Sprintf("%s: gate %q: %s", e.Source, e.Expr, e.Reason)
}

// Parse parses one gate expression. source is "file:line" or "--gate"; it is
// kept in the Expr and names the place in a parse error:
//
//	suite.yaml:12: gate "pass_rat >= 0.8": unknown metric "pass_rat" (did you mean pass_rate?) (known: ...)
func Parse(expr, source string) (Expr, error) {
	text := strings.TrimSpace(expr)
	e := Expr{Text: text, Source: source}
	fail := func(format string, args ...any) (Expr, error) {
		return Expr{}, &ParseError{Source: source, Expr: text, Reason: fmt.Sprintf(format, args...)}
	}
	if text == "" {
		return fail("empty expression (want METRIC OP NUMBER, e.g. pass_rate >= 0.8)")
	}
	rest := text
	// Leading scope.
	if strings.HasPrefix(rest, "[") {
		sc, after, err := parseScope(rest)
		if err != nil {
			return fail("%s", err)
		}
		e.Scope = &sc
		rest = strings.TrimSpace(after)
	}
	// no_new_failures [scope]
	word, after := leadingWord(rest)
	if len(rest) > len("no_new_failures(") && strings.EqualFold(rest[:len("no_new_failures(")], "no_new_failures(") {
		word, after = rest[:len("no_new_failures")], rest[len("no_new_failures"):]
	}
	if strings.EqualFold(word, "no_new_failures") {
		e.Kind = NoNewFailures
		after = strings.TrimSpace(after)
		if strings.HasPrefix(after, "(") {
			arg, tail, ok := strings.Cut(after[1:], ")")
			if !ok || !strings.EqualFold(strings.TrimSpace(arg), "strict") {
				return fail("unexpected %q after no_new_failures (want no_new_failures or no_new_failures(strict))", after)
			}
			e.Strict = true
			after = strings.TrimSpace(tail)
		}
		if after != "" {
			if !strings.HasPrefix(after, "[") {
				return fail("unexpected %q after no_new_failures (want no_new_failures, no_new_failures(strict) or no_new_failures [tag=value])", after)
			}
			if e.Scope != nil {
				return fail("no_new_failures takes one scope, got two")
			}
			sc, tail, err := parseScope(after)
			if err != nil {
				return fail("%s", err)
			}
			if t := strings.TrimSpace(tail); t != "" {
				return fail("unexpected %q after the scope", t)
			}
			e.Scope = &sc
		}
		e.Op, e.Bound = LE, 0
		return e, nil
	}
	if word, _ := leadingFunc(rest); strings.EqualFold(word, "noninferior") {
		return parseNonInferior(e, rest, fail)
	}
	// delta(METRIC) / ratio(METRIC) / METRIC
	opAt := findOp(rest)
	if opAt < 0 {
		return fail("missing operator (want METRIC OP NUMBER with OP one of >= > <= < ==)")
	}
	lhs := strings.TrimSpace(rest[:opAt])
	opText := rest[opAt:]
	for _, op := range Ops {
		if strings.HasPrefix(opText, string(op)) {
			e.Op = op
			break
		}
	}
	if e.Op == "" {
		return fail("unknown operator in %q (want one of >= > <= < ==)", opText)
	}
	num := strings.TrimSpace(opText[len(e.Op):])
	if num != "" && strings.ContainsAny(num[:1], "<>=!") {
		return fail("unknown operator %q (want one of >= > <= < ==)", string(e.Op)+num[:1])
	}
	if lhs == "" {
		return fail("missing metric before %q", e.Op)
	}
	name := lhs
	e.Kind = Threshold
	if open := strings.IndexByte(lhs, '('); open >= 0 {
		fn := strings.ToLower(strings.TrimSpace(lhs[:open]))
		switch fn {
		case "delta":
			e.Kind = Delta
		case "ratio":
			e.Kind = Ratio
		default:
			return fail("unknown function %q (known: delta, ratio)", strings.TrimSpace(lhs[:open]))
		}
		if !strings.HasSuffix(lhs, ")") {
			return fail("missing ) after %s(", fn)
		}
		name = strings.TrimSpace(lhs[open+1 : len(lhs)-1])
		if name == "" {
			return fail("%s() needs a metric, e.g. %s(ndcg@10)", fn, fn)
		}
	}
	if strings.ContainsAny(name, " \t()[]") {
		return fail("malformed metric %q (want METRIC OP NUMBER)", name)
	}
	canon, err := CanonicalMetric(name)
	if err != nil {
		// a name no metric has, far from every known one, is a run-level
		// measure (assay.IsMeasureName); a near miss stays an error
		if !assay.IsMeasureName(name) || suggest(strings.ToLower(name)) != "" {
			return fail("%s", err)
		}
		canon, e.Measure = name, true
	}
	e.Metric = canon
	if num == "" {
		return fail("missing number after %q", e.Op)
	}
	bound, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(bound) || math.IsInf(bound, 0) {
		return fail("bad number %q", num)
	}
	e.Bound = bound
	return e, nil
}

// ParseAll parses the gates of a suite or the command line, stopping at the
// first error.
func ParseAll(gates []assay.Gate) ([]Expr, error) {
	out := make([]Expr, 0, len(gates))
	for _, g := range gates {
		e, err := Parse(g.Expr, g.Source)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// parseScope reads "[key=value]" at the start of s.
func parseScope(s string) (Scope, string, error) {
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return Scope{}, "", fmt.Errorf("missing ] after the scope")
	}
	inner := strings.TrimSpace(s[1:end])
	k, v, ok := strings.Cut(inner, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if !ok || k == "" || v == "" || strings.ContainsAny(inner, "[,") {
		return Scope{}, "", fmt.Errorf("bad scope [%s] (want [tag=value])", inner)
	}
	return Scope{Key: k, Value: v}, s[end+1:], nil
}

func leadingWord(s string) (string, string) {
	i := strings.IndexAny(s, " \t[")
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i:]
}

// findOp returns the index of the first comparison operator in s, or -1.
func findOp(s string) int {
	return strings.IndexAny(s, "<>=")
}

// NeedsCases reports whether evaluating e reads the run's case results
// one by one (the trial statistics flaky_cases, pass_any_rate and
// pass_all_rate, or the flips of no_new_failures), not only its summary
// and segments: a harness keeps the cases of such a run at hand.
func (e Expr) NeedsCases() bool {
	return e.Kind == NoNewFailures || e.Kind == NonInferior || trialMetric(e.Metric)
}

// NeedsCases reports whether checking o reads the runs' case results one
// by one (an ordering of a trial statistic).
func (o Ordering) NeedsCases() bool { return trialMetric(o.Metric) }

func trialMetric(m string) bool {
	switch m {
	case "flaky_cases", "pass_any_rate", "pass_all_rate":
		return true
	}
	return false
}
