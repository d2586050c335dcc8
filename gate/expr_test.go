package gate

import (
	"strings"
	"testing"
)

func TestParseAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string // canonical String()
		kind Kind
	}{
		{"pass_rate >= 0.8", "pass_rate >= 0.8", Threshold},
		{"pass_rate>=0.8", "pass_rate >= 0.8", Threshold},
		{"  PASS_RATE > .5 ", "pass_rate > 0.5", Threshold},
		{"p95_latency_ms <= 10000", "p95_latency_ms <= 10000", Threshold},
		{"nDCG@10 >= 0.6", "ndcg@10 >= 0.6", Threshold},
		{"R@10 < 1", "recall@10 < 1", Threshold},
		{"error_rate == 0", "error_rate == 0", Threshold},
		{"[lang=zh] recall@10 >= 0.47", "[lang=zh] recall@10 >= 0.47", Threshold},
		{"[ lang = zh ]recall@10>=0.47", "[lang=zh] recall@10 >= 0.47", Threshold},
		{"delta(ndcg@10) >= -0.02", "delta(ndcg@10) >= -0.02", Delta},
		{"DELTA( nDCG@10 ) >= -2e-2", "delta(ndcg@10) >= -0.02", Delta},
		{"[lang=en] delta(mrr) > 0", "[lang=en] delta(mrr) > 0", Delta},
		{"ratio(p95_latency_ms) <= 1.2", "ratio(p95_latency_ms) <= 1.2", Ratio},
		{"no_new_failures", "no_new_failures", NoNewFailures},
		{"no_new_failures [category=identifier]", "no_new_failures [category=identifier]", NoNewFailures},
		{"[category=identifier] no_new_failures", "no_new_failures [category=identifier]", NoNewFailures},
		{"flaky_cases == 0", "flaky_cases == 0", Threshold},
		{"pass_all_rate >= 0.9", "pass_all_rate >= 0.9", Threshold},
		{"[variant=fast] p95_latency_ms <= 1000", "[variant=fast] p95_latency_ms <= 1000", Threshold},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			e, err := Parse(tt.in, "s.yaml:3")
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := e.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if e.Kind != tt.kind {
				t.Errorf("Kind = %v, want %v", e.Kind, tt.kind)
			}
			if e.Source != "s.yaml:3" || e.Text != strings.TrimSpace(tt.in) {
				t.Errorf("Source/Text = %q/%q", e.Source, e.Text)
			}
			// The canonical form parses to the same expression.
			again, err := Parse(e.String(), "")
			if err != nil || again.String() != e.String() {
				t.Errorf("round trip: %v %q", err, again.String())
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, source, want string
	}{
		{"pass_rat >= 0.8", "suite.yaml:12", `suite.yaml:12: gate "pass_rat >= 0.8": unknown metric "pass_rat" (did you mean pass_rate?) (known: pass_rate, error_rate,`},
		{"ndcg@0 >= 0.8", "--gate", `--gate: gate "ndcg@0 >= 0.8": unknown metric "ndcg@0"`},
		{"", "s:1", `s:1: gate "": empty expression`},
		{"pass_rate", "s:1", `missing operator`},
		{"pass_rate = 0.8", "s:1", `unknown operator`},
		{"pass_rate >> 0.8", "s:1", `unknown operator ">>"`},
		{"pass_rate >= ", "s:1", `missing number after ">="`},
		{"pass_rate >= abc", "s:1", `bad number "abc"`},
		{"pass_rate >= NaN", "s:1", `bad number "NaN"`},
		{">= 0.8", "s:1", `missing metric`},
		{"avg(ndcg@10) >= 1", "s:1", `unknown function "avg" (known: delta, ratio)`},
		{"delta(ndcg@10 >= 1", "s:1", `missing ) after delta(`},
		{"delta() >= 1", "s:1", `delta() needs a metric`},
		{"[lang] ndcg@10 >= 1", "s:1", `bad scope [lang] (want [tag=value])`},
		{"[lang=zh ndcg@10 >= 1", "s:1", `missing ] after the scope`},
		{"no_new_failures please", "s:1", `unexpected "please" after no_new_failures`},
		{"[a=b] no_new_failures [c=d]", "s:1", `one scope`},
		{"pass rate >= 1", "s:1", `malformed metric "pass rate"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := Parse(tt.in, tt.source)
			if err == nil {
				t.Fatalf("Parse(%q) succeeded", tt.in)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q\nwant it to contain %q", err, tt.want)
			}
			if strings.HasSuffix(err.Error(), ".") {
				t.Errorf("error ends with a period: %q", err)
			}
		})
	}
}

func TestOpHolds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		op           Op
		value, bound float64
		want         bool
	}{
		{GE, 0.8, 0.8, true},
		{GE, 24.0 / 30.0, 0.8, true},
		{GE, 0.7999999999999, 0.8, true}, // within Epsilon
		{GE, 0.79, 0.8, false},
		{GT, 0.8, 0.8, false},
		{GT, 0.81, 0.8, true},
		{LE, 1000, 1000, true},
		{LE, 1000.1, 1000, false},
		{LT, 1000, 1000, false},
		{LT, 999, 1000, true},
		{EQ, 0, 0, true},
		{EQ, 0.1 + 0.2, 0.3, true},
		{EQ, 0.31, 0.3, false},
	}
	for _, tt := range tests {
		if got := tt.op.Holds(tt.value, tt.bound); got != tt.want {
			t.Errorf("%v %s %v = %v, want %v", tt.value, tt.op, tt.bound, got, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"pass_rate >= 0.8", "[lang=zh] recall@10 >= 0.47", "delta(ndcg@10) >= -0.02",
		"ratio(p95_latency_ms) <= 1.2", "no_new_failures [tag=x]", "no_new_failures(strict)", "no_new_failures(strict) [tag=x]", "no_new_failures(", "((", "[=]", ">=>=", "delta(", "no_new_failures [",
		"[lang=en] noninferior(ndcg@10, 0.02)", "noninferior(", "noninferior(,)", "noninferior(mrr, 1e-3))"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s, "f:1")
		if err != nil {
			return
		}
		// What parses renders to a form that parses to the same thing.
		again, err := Parse(e.String(), "f:1")
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", e.String(), s, err)
		}
		if again.String() != e.String() {
			t.Fatalf("round trip %q -> %q", e.String(), again.String())
		}
	})
}
