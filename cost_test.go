package assay_test

import (
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// TestUsageOf: the usage names of assay, OpenAI, Anthropic and
// OpenTelemetry are read; usage without both counts, or with a count
// that is not a whole number >= 0, is an error (unknown, never 0).
func TestUsageOf(t *testing.T) {
	for _, c := range []struct {
		name  string
		usage map[string]any
		vers  map[string]string
		want  assay.Usage
		err   string
	}{
		{"assay", map[string]any{"input_tokens": 10.0, "output_tokens": 2.0, "cached_tokens": 4.0, "model": "m"}, nil, assay.Usage{Model: "m", InputTokens: 10, OutputTokens: 2, CachedTokens: 4}, ""},
		{"openai", map[string]any{"prompt_tokens": 10.0, "completion_tokens": 2.0, "prompt_tokens_details": map[string]any{"cached_tokens": 3.0}}, map[string]string{"model": "v"}, assay.Usage{Model: "v", InputTokens: 10, OutputTokens: 2, CachedTokens: 3}, ""},
		{"anthropic", map[string]any{"input_tokens": 10.0, "output_tokens": 2.0, "cache_read_input_tokens": 5.0}, nil, assay.Usage{InputTokens: 10, OutputTokens: 2, CachedTokens: 5}, ""},
		{"otel", map[string]any{"gen_ai.usage.input_tokens": 7.0, "gen_ai.usage.output_tokens": 1.0, "gen_ai.response.model": "g"}, nil, assay.Usage{Model: "g", InputTokens: 7, OutputTokens: 1}, ""},
		{"no output", map[string]any{"input_tokens": 10.0}, nil, assay.Usage{}, "usage has no output count"},
		{"negative", map[string]any{"input_tokens": -1.0, "output_tokens": 2.0}, nil, assay.Usage{}, "want a whole number of tokens >= 0"},
		{"fraction", map[string]any{"input_tokens": 1.5, "output_tokens": 2.0}, nil, assay.Usage{}, "want a whole number of tokens >= 0"},
		{"string", map[string]any{"input_tokens": "ten", "output_tokens": 2.0}, nil, assay.Usage{}, "want a number of tokens"},
		{"cached over input", map[string]any{"input_tokens": 1.0, "output_tokens": 2.0, "cached_tokens": 3.0}, nil, assay.Usage{}, "more than its 1 input tokens"},
	} {
		t.Run(c.name, func(t *testing.T) {
			u, ok, err := assay.UsageOf(&assay.Observation{Usage: c.usage, Versions: c.vers})
			if !ok {
				t.Fatal("usage not seen")
			}
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || u.Model != c.want.Model || u.InputTokens != c.want.InputTokens || u.OutputTokens != c.want.OutputTokens || u.CachedTokens != c.want.CachedTokens {
				t.Fatalf("usage %+v, %v; want %+v", u, err, c.want)
			}
		})
	}
	if _, ok, _ := assay.UsageOf(&assay.Observation{}); ok {
		t.Error("an observation without usage reported some")
	}
}

// TestPriceTableCost: per million tokens, cached input at its own price
// (else the input price), "*" for a model not listed, and the reason when
// there is no price.
func TestPriceTableCost(t *testing.T) {
	half := 0.5
	pt := assay.PriceTable{"m": {Input: 2, Output: 8, CachedInput: &half}, "*": {Input: 1, Output: 1}}
	u := pt.Cost(assay.Usage{Model: "m", InputTokens: 1000, CachedTokens: 400, OutputTokens: 100})
	// 600 × 2 + 400 × 0.5 + 100 × 8 = 2200 per million.
	if u.CostUSD == nil || *u.CostUSD != 0.0022 {
		t.Fatalf("cost %v, want 0.0022", u.CostUSD)
	}
	if u := pt.Cost(assay.Usage{Model: "other", InputTokens: 1e6, OutputTokens: 1e6}); u.CostUSD == nil || *u.CostUSD != 2 {
		t.Fatalf("'*' price: %v, want 2", u.CostUSD)
	}
	if u := (assay.PriceTable{"m": {}}).Cost(assay.Usage{Model: "x"}); u.CostUSD != nil || !strings.Contains(u.Unpriced, `model "x" is not in the price table (priced: m)`) {
		t.Fatalf("unpriced: %+v", u)
	}
	if u := assay.PriceTable(nil).Cost(assay.Usage{Model: "x"}); u.CostUSD != nil || u.Unpriced != "no price table" {
		t.Fatalf("no table: %+v", u)
	}
}
