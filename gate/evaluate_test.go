package gate

import (
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/aggregate"
)

func ptr[T any](v T) *T { return &v }

// result builds one case result: pass is "pass", "fail", "err" or "" (not graded).
func result(id string, trial int, pass string, tags map[string]string, metrics map[string]float64) assay.CaseResult {
	r := assay.CaseResult{ID: id, Trial: trial, Tags: tags, Metrics: metrics, Retrieved: 3, LatencyMs: ptr(10.0 * float64(len(id)+trial))}
	switch pass {
	case "pass":
		r.Pass = ptr(true)
	case "fail":
		r.Pass = ptr(false)
	case "err":
		r.Pass = ptr(false)
		r.Error = &assay.Error{Class: assay.ErrTimeout, Message: "deadline"}
		r.LatencyMs = nil
		r.Retrieved = 0
	}
	return r
}

// runOf builds a complete run from case results, summarised as the runner does.
func runOf(id string, cases ...assay.CaseResult) *assay.Run {
	return &assay.Run{RunID: id, Status: assay.StatusComplete, Summary: aggregate.Summarize(cases, nil), Cases: cases}
}

func gates(exprs ...string) []assay.Gate {
	out := make([]assay.Gate, len(exprs))
	for i, e := range exprs {
		out[i] = assay.Gate{Expr: e, Source: "suite.yaml:" + string(rune('1'+i))}
	}
	return out
}

func TestEvaluateThresholds(t *testing.T) {
	t.Parallel()
	zh := map[string]string{"lang": "zh"}
	en := map[string]string{"lang": "en"}
	run := runOf("r1",
		result("q1", 0, "pass", en, map[string]float64{"ndcg@10": 1}),
		result("q2", 0, "pass", en, map[string]float64{"ndcg@10": 0.5}),
		result("q3", 0, "fail", zh, map[string]float64{"ndcg@10": 0}),
		result("q4", 0, "err", zh, map[string]float64{"ndcg@10": 0}),
		result("q5", 0, "", zh, nil),
	)
	tests := []struct {
		expr   string
		pass   bool
		value  *float64
		detail string
	}{
		{"pass_rate >= 0.5", true, ptr(0.5), ""},
		{"pass_rate > 0.5", false, ptr(0.5), ""},
		{"nDCG@10 >= 0.375", true, ptr(0.375), ""},
		{"ndcg@10 >= 0.4", false, ptr(0.375), ""},
		{"error_rate <= 0.2", true, ptr(0.2), ""},
		{"errors == 1", true, ptr(1.0), ""},
		{"cases == 5", true, ptr(5.0), ""},
		{"max_latency_ms <= 20", true, ptr(20.0), ""},
		{"[lang=en] pass_rate == 1", true, ptr(1.0), ""},
		{"[lang=zh] pass_rate >= 0.1", false, ptr(0.0), ""},
		{"[lang=zh] ndcg@10 <= 0", true, ptr(0.0), ""},
		{"[lang=fr] pass_rate >= 0.1", false, nil, "scope [lang=fr] matches no case (tags: lang=en|zh)"},
		{"recall@5 >= 0.1", false, nil, "metric recall@5 was not computed (no judged cases)"},
		{"delta(ndcg@10) >= 0", false, nil, "delta needs a baseline run"},
		{"no_new_failures", false, nil, "no_new_failures needs a baseline run"},
		{"flaky_cases == 0", true, ptr(0.0), ""},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			v, err := Evaluate(gates(tt.expr), run, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := v.Results[0]
			if r.Pass != tt.pass || v.Pass != tt.pass {
				t.Errorf("pass = %v (verdict %v), want %v: %s", r.Pass, v.Pass, tt.pass, Line(r))
			}
			if (r.Value == nil) != (tt.value == nil) || (r.Value != nil && !EQ.Holds(*r.Value, *tt.value)) {
				t.Errorf("value = %v, want %v", deref(r.Value), deref(tt.value))
			}
			if tt.detail != "" && !strings.Contains(r.Detail, tt.detail) {
				t.Errorf("detail = %q, want %q", r.Detail, tt.detail)
			}
			if r.Expr != tt.expr || r.Source != "suite.yaml:1" {
				t.Errorf("expr/source = %q %q", r.Expr, r.Source)
			}
		})
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestEvaluateAgainstBaseline(t *testing.T) {
	t.Parallel()
	id := map[string]string{"category": "identifier"}
	base := runOf("base",
		result("q1", 0, "pass", id, map[string]float64{"ndcg@10": 0.8}),
		result("q2", 0, "pass", nil, map[string]float64{"ndcg@10": 0.6}),
		result("q3", 0, "fail", nil, map[string]float64{"ndcg@10": 0.4}),
	)
	base.Summary.LatencyMs = assay.Latency{P95: 100, Max: 100, N: 3}
	cand := runOf("cand",
		result("q1", 0, "pass", id, map[string]float64{"ndcg@10": 0.8}),
		result("q2", 0, "fail", nil, map[string]float64{"ndcg@10": 0.3}),
		result("q3", 0, "pass", nil, map[string]float64{"ndcg@10": 0.4}),
		result("q9", 0, "fail", nil, nil), // new case: not a new failure
	)
	cand.Summary.LatencyMs = assay.Latency{P95: 130, Max: 130, N: 3}
	// the built-in engine is deterministic: every flip is a new failure
	base.Target.Kind, cand.Target.Kind = "builtin", "builtin"
	tests := []struct {
		expr   string
		pass   bool
		value  float64
		detail string
	}{
		{"delta(ndcg@10) >= -0.02", false, -0.1, "baseline 0.6, run 0.5"},
		{"delta(ndcg@10) >= -0.2", true, -0.1, ""},
		{"[category=identifier] delta(ndcg@10) >= 0", true, 0, ""},
		{"ratio(p95_latency_ms) <= 1.2", false, 1.3, ""},
		{"ratio(p95_latency_ms) <= 1.5", true, 1.3, ""},
		{"no_new_failures", false, 1, "pass -> fail: q2"},
		{"no_new_failures [category=identifier]", true, 0, "no case went from pass to fail (1 paired)"},
		{"delta(pass_rate) >= -0.5", true, 0.5 - 2.0/3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			v, err := Evaluate(gates(tt.expr), cand, base)
			if err != nil {
				t.Fatal(err)
			}
			r := v.Results[0]
			if r.Pass != tt.pass {
				t.Errorf("pass = %v, want %v: %s", r.Pass, tt.pass, Line(r))
			}
			if r.Value == nil || !EQ.Holds(*r.Value, tt.value) {
				t.Errorf("value = %v, want %v", deref(r.Value), tt.value)
			}
			if !strings.Contains(r.Detail, tt.detail) {
				t.Errorf("detail = %q, want %q", r.Detail, tt.detail)
			}
		})
	}
}

func TestEvaluateRatioZeroBaseline(t *testing.T) {
	t.Parallel()
	base := runOf("b", result("q1", 0, "pass", nil, nil))
	cand := runOf("c", result("q1", 0, "pass", nil, nil))
	v, _ := Evaluate(gates("ratio(error_rate) <= 1.2"), cand, base)
	if !v.Pass || *v.Results[0].Value != 1 {
		t.Errorf("0/0 should be ratio 1: %s", Line(v.Results[0]))
	}
	cand = runOf("c", result("q1", 0, "err", nil, nil))
	v, _ = Evaluate(gates("ratio(error_rate) <= 1.2"), cand, base)
	if v.Pass || v.Results[0].Value != nil || !strings.Contains(v.Results[0].Detail, "undefined") {
		t.Errorf("x/0 should fail as undefined: %s", Line(v.Results[0]))
	}
}

func TestEvaluateParseErrorStops(t *testing.T) {
	t.Parallel()
	_, err := Evaluate([]assay.Gate{{Expr: "pass_rate >= 0.5", Source: "a:1"}, {Expr: "pass_rat >= 1", Source: "a:2"}}, runOf("r"), nil)
	if err == nil || !strings.HasPrefix(err.Error(), `a:2: gate "pass_rat >= 1": unknown metric`) {
		t.Fatalf("err = %v", err)
	}
}

func TestEvaluateNoGatesPasses(t *testing.T) {
	t.Parallel()
	v, err := Evaluate(nil, runOf("r"), nil)
	if err != nil || !v.Pass || len(v.Results) != 0 {
		t.Fatalf("v = %+v, err = %v", v, err)
	}
}

func TestEvaluateWarnsOnIncompleteBaseline(t *testing.T) {
	t.Parallel()
	base := runOf("0190aaaabbbb", result("q1", 0, "pass", nil, nil))
	base.Status = assay.StatusIncomplete
	v, _ := Evaluate(gates("no_new_failures"), runOf("c", result("q1", 0, "pass", nil, nil)), base)
	if len(v.Warnings) != 1 || !strings.Contains(v.Warnings[0], "0190aaaa is incomplete") {
		t.Fatalf("warnings = %q", v.Warnings)
	}
}

func TestLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		r    assay.GateResult
		want string
	}{
		{assay.GateResult{Expr: "pass_rate >= 0.8", Pass: true, Value: ptr(5.0 / 6), Bound: 0.8, Source: "s.yaml:3"}, "✓ pass_rate >= 0.8  value 0.8333, bound 0.8  [s.yaml:3]"},
		{assay.GateResult{Expr: "recall@5 >= 0.1", Bound: 0.1, Detail: "metric recall@5 was not computed (no judged cases)", Source: "--gate"}, "✗ recall@5 >= 0.1  metric recall@5 was not computed (no judged cases)"},
		{assay.GateResult{Expr: "delta(mrr) >= 0", Value: ptr(-0.25), Detail: "baseline 0.75, run 0.5"}, "✗ delta(mrr) >= 0  value -0.25, bound 0 (baseline 0.75, run 0.5)"},
	}
	for _, tt := range tests {
		if got := Line(tt.r); got != tt.want {
			t.Errorf("Line = %q\nwant   %q", got, tt.want)
		}
	}
}

// A rate over no answered case, or latency when nothing was answered, is
// undefined: its gate fails with the reason, whether the run was
// summarised now (nil rates) or recorded with 0s before they were null.
func TestUndefinedRatesFail(t *testing.T) {
	t.Parallel()
	down := runOf("r", result("a", 0, "err", nil, nil), result("b", 0, "err", nil, nil))
	down.Cases[0].LatencyMs = ptr(1.0) // the time a refused connection took
	down.Summary = aggregate.Summarize(down.Cases, nil)
	old := runOf("r", down.Cases...)
	zero := 0.0
	old.Summary.Rates = assay.Rates{NoHit: &zero, Refusal: &zero, Grounded: &zero, Error: ptr(1.0)}
	old.Summary.LatencyMs = assay.Latency{P50: 1, P95: 1, P99: 1, Max: 1, N: 1}
	exprs := []string{"no_hit_rate <= 0.1", "refusal_rate <= 0.05", "grounded_rate >= 0", "p95_latency_ms <= 2000", "max_latency_ms <= 2000"}
	for name, run := range map[string]*assay.Run{"summarised": down, "recorded with zeros": old} {
		t.Run(name, func(t *testing.T) {
			v, err := Evaluate(gates(exprs...), run, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range v.Results {
				if r.Pass || r.Value != nil || !strings.Contains(r.Detail, "is undefined: no case was answered (2 of 2 errored)") {
					t.Errorf("%s: pass=%v value=%v detail=%q, want an undefined failure", r.Expr, r.Pass, r.Value, r.Detail)
				}
			}
		})
	}
	empty := runOf("e")
	v, _ := Evaluate(gates("error_rate <= 0.1", "no_hit_rate <= 0.1"), empty, nil)
	for _, r := range v.Results {
		if r.Pass || !strings.Contains(r.Detail, "undefined: the run has no case") {
			t.Errorf("empty run: %s: pass=%v detail=%q", r.Expr, r.Pass, r.Detail)
		}
	}
}

// A scope no case carries fails every gate form, suggests the nearest tag
// and is reported in Verdict.Errors (an input error, not a measured fail).
func TestScopeNoMatchIsAnError(t *testing.T) {
	t.Parallel()
	tags := map[string]string{"category": "security", "lang": "en"}
	base := runOf("b", result("q1", 0, "pass", tags, nil), result("q2", 0, "pass", map[string]string{"category": "billing"}, nil))
	run := runOf("r", result("q1", 0, "pass", tags, nil), result("q2", 0, "fail", map[string]string{"category": "billing"}, nil))
	base.Target.Kind, run.Target.Kind = "builtin", "builtin"
	for _, expr := range []string{
		"no_new_failures [categroy=security]",
		"[categroy=security] pass_rate >= 0",
		"[categroy=security] delta(pass_rate) >= -1",
		"[categroy=security] ratio(pass_rate) >= 0",
	} {
		v, err := Evaluate(gates(expr), run, base)
		if err != nil {
			t.Fatal(err)
		}
		want := "scope [categroy=security] matches no case (did you mean [category=security]?)"
		if v.Pass || len(v.Results) != 1 || v.Results[0].Pass || v.Results[0].Detail != want {
			t.Errorf("%s: %+v, want a failure %q", expr, v.Results, want)
		}
		if len(v.Errors) != 1 || v.Errors[0] != `suite.yaml:1: gate "`+expr+`": `+want {
			t.Errorf("%s: errors %q", expr, v.Errors)
		}
	}
	f := &Floors{Floors: map[string]float64{"[lang=e] pass_rate": 0.5}}
	if v := f.Check(run, "floors.json"); v.Pass || len(v.Errors) != 1 || !strings.Contains(v.Errors[0], "did you mean [lang=en]?") {
		t.Errorf("floor: %+v", v)
	}
	// A scope some case carries is no error.
	if v, _ := Evaluate(gates("no_new_failures [category=billing]"), run, base); v.Pass || len(v.Errors) != 0 {
		t.Errorf("carried scope: %+v", v)
	}
}
