package gate

import (
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

func variantRun(name string, ndcg, p95 float64) *assay.Run {
	return &assay.Run{RunID: "run-" + name, Status: assay.StatusComplete, Group: "g1", Variant: map[string]string{"mode": name},
		Summary: assay.Summary{Metrics: map[string]assay.MetricAgg{"ndcg@10": {Mean: ndcg, N: 5}}, LatencyMs: assay.Latency{P95: p95, Max: p95, N: 5}}}
}

func TestParseOrdering(t *testing.T) {
	t.Parallel()
	ok := map[string]string{
		"ndcg@10: fast <= balanced <= thorough":         "ndcg@10: fast <= balanced <= thorough",
		"nDCG@10:fast<=balanced<thorough":               "ndcg@10: fast <= balanced < thorough",
		"p95_latency_ms: thorough >= fast tolerance 50": "p95_latency_ms: thorough >= fast tolerance 50",
		"R@10: bm25 <= rm3 ± 0.01":                      "recall@10: bm25 <= rm3 tolerance 0.01",
	}
	for in, want := range ok {
		o, err := ParseOrdering(in, "t.yaml:3")
		if err != nil {
			t.Errorf("ParseOrdering(%q): %v", in, err)
			continue
		}
		if o.String() != want {
			t.Errorf("ParseOrdering(%q) = %q, want %q", in, o.String(), want)
		}
	}
	bad := map[string]string{
		"ndcg@10 fast <= thorough":            `t.yaml:3: ordering "ndcg@10 fast <= thorough": missing ":"`,
		"ndcg@1o: fast <= thorough":           `unknown metric "ndcg@1o"`,
		"ndcg@10: fast":                       "want at least two variants",
		"ndcg@10: fast thorough balanced":     `want an operator (<= < >= >) between variants, got "thorough"`,
		"ndcg@10: fast <= <= thorough":        `want a variant name, got "<="`,
		"ndcg@10: fast <= thorough <=":        "ends with an operator",
		"ndcg@10: fast <= fast":               `variant "fast" appears twice`,
		"ndcg@10: fast <= thorough tolerance": "want one number after tolerance",
		"ndcg@10: a <= b tolerance -1":        `bad tolerance "-1"`,
		"ndcg@10: a == b":                     "want an operator",
	}
	for in, want := range bad {
		_, err := ParseOrdering(in, "t.yaml:3")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseOrdering(%q) = %v, want %q", in, err, want)
		}
	}
}

func TestOrderingCheck(t *testing.T) {
	t.Parallel()
	runs := map[string]*assay.Run{
		"fast":     variantRun("fast", 0.50, 300),
		"balanced": variantRun("balanced", 0.58, 800),
		"thorough": variantRun("thorough", 0.57, 2500),
	}
	tests := []struct {
		spec   string
		pass   bool
		detail string
	}{
		{"ndcg@10: fast <= balanced", true, "fast 0.5 <= balanced 0.58"},
		{"ndcg@10: fast <= balanced <= thorough", false, "broken: balanced 0.58 is not <= thorough 0.57 (fast 0.5 <= balanced 0.58 <= thorough 0.57)"},
		{"ndcg@10: fast <= balanced <= thorough tolerance 0.01", true, "tolerance 0.01"},
		{"ndcg@10: fast < balanced < thorough tolerance 0.01", false, "balanced 0.58 is not < thorough 0.57"},
		{"p95_latency_ms: thorough >= balanced >= fast", true, ""},
		{"ndcg@10: fast <= quality", false, "no run for variant quality (have: balanced, fast, thorough)"},
		{"recall@10: fast <= thorough", false, "variant fast: metric recall@10 was not computed"},
	}
	for _, tt := range tests {
		o, err := ParseOrdering(tt.spec, "targets.yaml:4")
		if err != nil {
			t.Fatal(err)
		}
		r := o.Check(runs)
		if r.Pass != tt.pass || !strings.Contains(r.Detail, tt.detail) {
			t.Errorf("%s: pass=%v detail=%q, want %v %q", tt.spec, r.Pass, r.Detail, tt.pass, tt.detail)
		}
		if r.Expr != "ordering "+tt.spec || r.Source != "targets.yaml:4" {
			t.Errorf("expr/source = %q %q", r.Expr, r.Source)
		}
	}
	o, _ := ParseOrdering("ndcg@10: fast <= balanced <= thorough", "")
	r := o.Check(runs)
	if want := "✗ ordering ndcg@10: fast <= balanced <= thorough  broken: balanced 0.58 is not <= thorough 0.57 (fast 0.5 <= balanced 0.58 <= thorough 0.57)"; Line(r) != want {
		t.Errorf("Line = %q\nwant   %q", Line(r), want)
	}
	v := CheckOrderings([]Ordering{o}, runs)
	if v.Pass || len(v.Results) != 1 {
		t.Errorf("CheckOrderings = %+v", v)
	}
}

func TestVariantScopedGates(t *testing.T) {
	t.Parallel()
	exprs := gates("[variant=fast] p95_latency_ms <= 1000", "[mode=thorough] p95_latency_ms <= 2000", "ndcg@10 >= 0.5", "[lang=en] ndcg@10 >= 0")
	fast := variantRun("fast", 0.5, 300)
	thorough := variantRun("thorough", 0.57, 2500)

	v, err := Evaluate(exprs, fast, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The thorough gate does not apply to the fast run; the tag scope still does.
	var got []string
	for _, r := range v.Results {
		got = append(got, Line(r))
	}
	want := []string{
		"✓ [variant=fast] p95_latency_ms <= 1000  value 300, bound 1000  [suite.yaml:1]",
		"✓ ndcg@10 >= 0.5  value 0.5, bound 0.5  [suite.yaml:3]",
		"✗ [lang=en] ndcg@10 >= 0  scope [lang=en] matches no case (the run's cases carry no tags)  [suite.yaml:4]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("fast run:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	v, _ = Evaluate(exprs[:3], thorough, nil)
	if v.Pass || len(v.Results) != 2 || v.Results[0].Expr != "[mode=thorough] p95_latency_ms <= 2000" {
		t.Errorf("thorough run: %+v", v.Results)
	}
	// A run without variants: [variant=...] is an ordinary tag scope.
	plain := runOf("plain", result("q1", 0, "pass", nil, nil))
	v, _ = Evaluate(exprs[:1], plain, nil)
	if v.Pass || !strings.Contains(v.Results[0].Detail, "scope [variant=fast] matches no case") {
		t.Errorf("plain run: %+v", v.Results)
	}
	// Baseline of another variant: the delta says so.
	v, _ = Evaluate(gates("[variant=fast] delta(ndcg@10) >= 0"), fast, thorough)
	if v.Pass || !strings.Contains(v.Results[0].Detail, "baseline: the run is variant thorough, not fast") {
		t.Errorf("cross-variant baseline: %+v", v.Results)
	}
	if VariantName(map[string]string{"preset": "slim", "mode": "fast"}) != "fast/slim" {
		t.Errorf("VariantName of two keys")
	}
}

func FuzzParseOrdering(f *testing.F) {
	for _, s := range []string{"ndcg@10: fast <= balanced <= thorough", "R@10:bm25<rm3 tolerance 0.01", "p95_latency_ms: a >= b ± 5", ":", "x: <", "ndcg@10: a <= b tolerance"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseOrdering(s, "f:1")
		if err != nil {
			return
		}
		again, err := ParseOrdering(o.String(), "f:1")
		if err != nil || again.String() != o.String() {
			t.Fatalf("canonical form %q of %q: %v %q", o.String(), s, err, again.String())
		}
		runs := map[string]*assay.Run{}
		for _, v := range o.Variants {
			runs[v] = &assay.Run{}
		}
		o.Check(runs) // never panics
	})
}

// TestOrderingFinal: over runs without their cases, a paired measure whose
// means are out of order is not final (the paired test over the cases
// decides); a result that holds, a run-level measure out of order, and a
// missing variant are.
func TestOrderingFinal(t *testing.T) {
	t.Parallel()
	runs := map[string]*assay.Run{
		"fast":     variantRun("fast", 0.50, 300),
		"balanced": variantRun("balanced", 0.58, 800),
		"thorough": variantRun("thorough", 0.57, 2500),
	}
	tests := []struct {
		spec  string
		pass  bool
		final bool
	}{
		{"ndcg@10: fast <= balanced", true, true},
		{"ndcg@10: balanced <= thorough", false, false},
		{"p95_latency_ms: thorough <= fast", false, true},
		{"ndcg@10: fast <= missing", false, true},
	}
	for _, tt := range tests {
		o, err := ParseOrdering(tt.spec, "")
		if err != nil {
			t.Fatal(err)
		}
		r := o.Check(runs)
		if r.Pass != tt.pass || o.Final(r) != tt.final {
			t.Errorf("%s: pass %v final %v (%s), want pass %v final %v", tt.spec, r.Pass, o.Final(r), r.Detail, tt.pass, tt.final)
		}
	}
}
