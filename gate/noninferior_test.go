package gate

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

func TestParseNonInferior(t *testing.T) {
	t.Parallel()
	e, err := Parse("[lang=en] noninferior( nDCG@10 , 0.02 )", "--gate")
	if err != nil {
		t.Fatal(err)
	}
	if e.Kind != NonInferior || e.Metric != "ndcg@10" || e.Bound != 0.02 || e.Scope == nil || !e.Kind.NeedsBaseline() {
		t.Fatalf("parsed %+v", e)
	}
	if got := e.String(); got != "[lang=en] noninferior(ndcg@10, 0.02)" {
		t.Errorf("String() = %q", got)
	}
	for expr, reason := range map[string]string{
		"noninferior(ndcg@10)":             "want noninferior(METRIC, MARGIN)",
		"noninferior(ndcg@10, -0.02)":      `bad margin "-0.02"`,
		"noninferior(ndcg@10, x)":          `bad margin "x"`,
		"noninferior(ndcg@10, 0.02) >= 0":  "it takes no operator",
		"noninferior(ndcg@10, 0.02":        "missing )",
		"noninferior(refusal_rate, 0.02)":  "has a better direction",
		"noninferior(p95_latency_ms, 10)":  "paired case by case",
		"noninferior(ndgc@10, 0.02)":       "unknown metric",
		"noninferior(ndcg@10, 0.02, 0.01)": "want noninferior(METRIC, MARGIN)",
	} {
		_, err := Parse(expr, "suite.yaml:3")
		if err == nil || !strings.Contains(err.Error(), reason) {
			t.Errorf("Parse(%q) = %v; want an error containing %q", expr, err, reason)
		}
	}
}

// pairRuns builds a baseline and a run of n cases whose ndcg@10 moves by
// shift(i) from a baseline value, and whose error flag follows errs.
func pairRuns(n int, shift func(i int) float64) (run, base *assay.Run) {
	rng := rand.New(rand.NewPCG(3, 4))
	var bc, cc []assay.CaseResult
	for i := range n {
		v := 0.3 + 0.4*rng.Float64()
		id := fmt.Sprintf("q%03d", i)
		bc = append(bc, result(id, 0, "pass", map[string]string{"lang": "en"}, map[string]float64{"ndcg@10": v}))
		cc = append(cc, result(id, 0, "pass", map[string]string{"lang": "en"}, map[string]float64{"ndcg@10": v + shift(i)}))
	}
	return runOf("cand", cc...), runOf("base", bc...)
}

func TestNonInferior(t *testing.T) {
	t.Parallel()
	alternate := func(a float64) func(int) float64 {
		return func(i int) float64 {
			if i%2 == 0 {
				return a
			}
			return -a
		}
	}
	tests := []struct {
		name   string
		n      int
		shift  func(int) float64
		margin float64
		pass   bool
		detail string
	}{
		{"a small noise around no change is shown within the margin", 40, func(i int) float64 { return 0.005 * float64(i%3-1) }, 0.02, true, "over 40 cases"},
		{"a drop larger than the margin fails", 40, func(int) float64 { return -0.03 }, 0.02, false, "delta -0.03"},
		// the point estimate (0) is inside the margin, but the noise is
		// too large to show it: a delta gate would pass, this one does not
		{"a noisy pair whose point is fine is not shown", 40, alternate(0.3), 0.02, false, "delta 0 over 40 cases"},
		{"four cases can never show it", 4, func(int) float64 { return 0 }, 0.02, false, "4 paired cases cannot show non-inferiority at 95% (the sign-flip test needs 5 or more)"},
		{"five unchanged cases can", 5, func(int) float64 { return 0 }, 0.02, true, "delta 0 over 5 cases"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, base := pairRuns(tt.n, tt.shift)
			v, err := Evaluate([]assay.Gate{{Expr: fmt.Sprintf("noninferior(ndcg@10, %g)", tt.margin)}}, run, base)
			if err != nil {
				t.Fatal(err)
			}
			r := v.Results[0]
			if r.Pass != tt.pass || r.Value == nil || !strings.Contains(r.Detail, tt.detail) {
				t.Fatalf("pass %v value %v detail %q; want pass %v, detail with %q", r.Pass, deref(r.Value), r.Detail, tt.pass, tt.detail)
			}
			if r.Op != ">" || r.Bound != -tt.margin {
				t.Errorf("op %s bound %v; want > %v", r.Op, r.Bound, -tt.margin)
			}
		})
	}
}

func TestNonInferiorLowerIsBetter(t *testing.T) {
	t.Parallel()
	// error_rate: 12 of 40 cases newly errored; the upper bound is far above 0.05
	var bc, cc []assay.CaseResult
	for i := range 40 {
		id := fmt.Sprintf("q%03d", i)
		bc = append(bc, result(id, 0, "pass", nil, nil))
		if i%10 < 3 {
			cc = append(cc, result(id, 0, "err", nil, nil))
		} else {
			cc = append(cc, result(id, 0, "pass", nil, nil))
		}
	}
	v, _ := Evaluate([]assay.Gate{{Expr: "noninferior(error_rate, 0.05)"}}, runOf("c", cc...), runOf("b", bc...))
	r := v.Results[0]
	if r.Pass || r.Op != "<" || r.Bound != 0.05 || !strings.Contains(r.Detail, "upper bound") {
		t.Fatalf("%+v detail %q; want a failing upper bound < 0.05", r, r.Detail)
	}
}

func TestNonInferiorUndefinedFails(t *testing.T) {
	t.Parallel()
	run, base := pairRuns(10, func(int) float64 { return 0 })
	v, _ := Evaluate([]assay.Gate{{Expr: "noninferior(mrr, 0.02)"}, {Expr: "noninferior(ndcg@10, 0.02)"}}, run, nil)
	if v.Pass || !strings.Contains(v.Results[1].Detail, "needs a baseline run") {
		t.Fatalf("without a baseline: %+v", v.Results)
	}
	v, _ = Evaluate([]assay.Gate{{Expr: "noninferior(mrr, 0.02)"}}, run, base)
	if r := v.Results[0]; r.Pass || r.Value != nil || !strings.Contains(r.Detail, "undefined") {
		t.Fatalf("a metric no case has: %+v", r)
	}
	v, _ = Evaluate([]assay.Gate{{Expr: "[lang=zh] noninferior(ndcg@10, 0.02)"}}, run, base)
	if r := v.Results[0]; r.Pass || len(v.Errors) != 1 {
		t.Fatalf("a scope no case carries: %+v errors %v", r, v.Errors)
	}
}

func TestDeltaGatePrintsItsInterval(t *testing.T) {
	t.Parallel()
	run, base := pairRuns(30, func(i int) float64 { return -0.01 - 0.001*float64(i%4) })
	v, _ := Evaluate([]assay.Gate{{Expr: "delta(ndcg@10) >= -0.02"}}, run, base)
	r := v.Results[0]
	if !r.Pass || !strings.Contains(r.Detail, "paired delta -0.0114, 95% CI [-0.0119, -0.011]") || !strings.Contains(r.Detail, "over 30 cases") {
		t.Fatalf("detail %q; want the paired interval", r.Detail)
	}
	// a run-level count has no per-case value: no interval
	v, _ = Evaluate([]assay.Gate{{Expr: "delta(passed) >= 0"}}, run, base)
	if strings.Contains(v.Results[0].Detail, "CI") {
		t.Fatalf("detail %q: a count has no paired interval", v.Results[0].Detail)
	}
}

func TestNonInferiorSegmentsAreAFamily(t *testing.T) {
	t.Parallel()
	// 5 unchanged cases per language: alone, each segment shows
	// non-inferiority (one-sided p = 1/2^5 = 0.031); as a family of two,
	// Holm doubles the smaller p to 0.0625, and neither holds.
	var bc, cc []assay.CaseResult
	for i := range 10 {
		lang := map[string]string{"lang": []string{"en", "zh"}[i%2]}
		id := fmt.Sprintf("q%02d", i)
		bc = append(bc, result(id, 0, "pass", lang, map[string]float64{"ndcg@10": 0.5}))
		cc = append(cc, result(id, 0, "pass", lang, map[string]float64{"ndcg@10": 0.5}))
	}
	run, base := runOf("c", cc...), runOf("b", bc...)
	alone, _ := Evaluate([]assay.Gate{{Expr: "[lang=en] noninferior(ndcg@10, 0.02)"}}, run, base)
	if r := alone.Results[0]; !r.Pass || !strings.HasSuffix(r.Detail, "; one-sided p 0.031") {
		t.Fatalf("one segment alone: pass %v, detail %q", r.Pass, r.Detail)
	}
	fam, _ := Evaluate([]assay.Gate{{Expr: "[lang=en] noninferior(ndcg@10, 0.02)"}, {Expr: "[lang=zh] noninferior(ndcg@10, 0.02)"}}, run, base)
	if fam.Pass {
		t.Fatalf("a family of two segments passed: %+v", fam.Results)
	}
	for _, r := range fam.Results {
		if r.Pass || !strings.Contains(r.Detail, "one-sided p 0.031, Holm-adjusted 0.062 over the 2 [lang=*] segments") {
			t.Errorf("%s: pass %v, detail %q", r.Expr, r.Pass, r.Detail)
		}
	}
}
