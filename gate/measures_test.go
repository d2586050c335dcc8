package gate

import (
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

func TestParseMeasureNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		expr    string
		measure bool
		err     string
	}{
		{"index_bytes <= 1e9", true, ""},
		{"ratio(index_bytes) <= 1.10", true, ""},
		{"delta(build_ms) <= 500", true, ""},
		{"pass_rate >= 0.8", false, ""},
		{"ndcg@10 >= 0.5", false, ""},
		// a misspelt metric stays a parse error, it does not become a measure
		{"pass_rat >= 0.8", false, `unknown metric "pass_rat" (did you mean pass_rate?)`},
		{"ndcg@ten >= 1", false, `unknown metric "ndcg@ten"`},
		{"Index_Bytes <= 1", false, `unknown metric "Index_Bytes"`},
	} {
		e, err := Parse(tc.expr, "s:1")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) error = %v, want %q", tc.expr, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.expr, err)
			continue
		}
		if e.Measure != tc.measure {
			t.Errorf("Parse(%q).Measure = %v, want %v", tc.expr, e.Measure, tc.measure)
		}
	}
}

func TestEvaluateMeasures(t *testing.T) {
	t.Parallel()
	run := runOf("cand", result("q1", 0, "pass", nil, nil))
	run.Measures = map[string]float64{"index_bytes": 1_080_000, "build_ms": 900}
	base := runOf("base", result("q1", 0, "pass", nil, nil))
	base.Measures = map[string]float64{"index_bytes": 1_000_000, "build_ms": 0}
	bare := runOf("bare", result("q1", 0, "pass", nil, nil))
	for _, tc := range []struct {
		expr     string
		run      *assay.Run
		baseline *assay.Run
		pass     bool
		value    float64 // checked when pass or detail is empty
		detail   string
	}{
		{"index_bytes <= 1e9", run, nil, true, 1_080_000, ""},
		{"index_bytes <= 1e6", run, nil, false, 1_080_000, ""},
		{"ratio(index_bytes) <= 1.10", run, base, true, 1.08, ""},
		{"ratio(index_bytes) <= 1.05", run, base, false, 1.08, ""},
		{"delta(index_bytes) <= 100000", run, base, true, 80_000, ""},
		{"ratio(index_bytes) <= 1.10", run, nil, false, 0, "ratio needs a baseline run"},
		{"ratio(build_ms) <= 1.10", run, base, false, 0, "build_ms is 0 in the baseline: the ratio is undefined"},
		// not reported: undefined, never 0 and never a pass
		{"index_bytes <= 1e9", bare, nil, false, 0, "measure index_bytes is undefined: the target reported no measures"},
		{"query_ms <= 1e9", run, nil, false, 0, "measure query_ms is undefined: the target did not report it (reported: build_ms, index_bytes)"},
		{"ratio(index_bytes) <= 1.10", run, bare, false, 0, "baseline: measure index_bytes is undefined"},
		{"ratio(index_bytes) <= 1.10", bare, base, false, 0, "measure index_bytes is undefined"},
		{"[lang=en] index_bytes <= 1e9", run, nil, false, 0, "measure index_bytes is run-level: a [lang=en] scope does not apply"},
	} {
		v, err := Evaluate(gates(tc.expr), tc.run, tc.baseline)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		r := v.Results[0]
		if r.Pass != tc.pass || v.Pass != tc.pass {
			t.Errorf("%s on %s: pass = %v, want %v (%s)", tc.expr, tc.run.RunID, r.Pass, tc.pass, Line(r))
		}
		if tc.detail != "" {
			if !strings.Contains(r.Detail, tc.detail) {
				t.Errorf("%s on %s: detail %q, want %q", tc.expr, tc.run.RunID, r.Detail, tc.detail)
			}
			if r.Value != nil {
				t.Errorf("%s on %s: undefined value recorded as %v", tc.expr, tc.run.RunID, *r.Value)
			}
			continue
		}
		if r.Value == nil || abs(*r.Value-tc.value) > 1e-9 {
			t.Errorf("%s: value %v, want %v", tc.expr, r.Value, tc.value)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// A variant scope applies to a measure like to any gate: the run of that
// variant is gated on its own measure.
func TestEvaluateMeasureVariantScope(t *testing.T) {
	t.Parallel()
	run := runOf("v", result("q1", 0, "pass", nil, nil))
	run.Variant = map[string]string{"mode": "fast"}
	run.Measures = map[string]float64{"index_bytes": 10}
	v, err := Evaluate(gates("[variant=fast] index_bytes <= 20", "[variant=slow] index_bytes <= 5"), run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Pass || len(v.Results) != 1 {
		t.Errorf("variant-scoped measure gates: pass %v, %d results, want one passing", v.Pass, len(v.Results))
	}
}
