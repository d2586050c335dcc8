package runner

import (
	"math"
	"testing"

	"github.com/assay-eval/assay"
)

// TestConversationUsageSumsTurns checks that a conversation's usage is the
// sum of its turns', each priced by its own model, and that a turn without
// usage makes the whole unknown rather than the sum of the others.
func TestConversationUsageSumsTurns(t *testing.T) {
	t.Parallel()
	prices := assay.PriceTable{"small": {Input: 1, Output: 2}, "big": {Input: 10, Output: 20}}
	turn := func(model string, in, out int) assay.Observation {
		return assay.Observation{Usage: map[string]any{"model": model, "input_tokens": float64(in), "output_tokens": float64(out)}}
	}
	u := conversationUsage([]assay.Observation{turn("small", 100, 10), turn("big", 200, 20)}, prices)
	if u == nil || u.InputTokens != 300 || u.OutputTokens != 30 || u.CostUSD == nil {
		t.Fatalf("usage = %+v, want 300 in, 30 out, priced", u)
	}
	// (100×1 + 10×2 + 200×10 + 20×20) per million tokens.
	if want := (100.0 + 20 + 2000 + 400) / 1e6; math.Abs(*u.CostUSD-want) > 1e-15 {
		t.Errorf("cost = %g, want %g", *u.CostUSD, want)
	}
	if u.Model != "" {
		t.Errorf("model = %q, want empty for turns of two models", u.Model)
	}
	if u := conversationUsage([]assay.Observation{turn("small", 100, 10), {}}, prices); u != nil {
		t.Errorf("a turn without usage: usage = %+v, want nil (unknown)", u)
	}
	u = conversationUsage([]assay.Observation{turn("small", 100, 10), turn("other", 1, 1)}, assay.PriceTable{"small": {Input: 1, Output: 2}})
	if u == nil || u.CostUSD != nil || u.Unpriced == "" {
		t.Errorf("a turn without a price: usage = %+v, want tokens with no cost and the reason", u)
	}
}
