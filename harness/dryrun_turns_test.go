package harness

import (
	"testing"

	"github.com/assay-eval/assay"
)

// TestEstimateInputCountsEveryTurn checks the dry run's input estimate of a
// conversation: each turn sends its own message and the earlier turns'
// user messages, so a conversation is not estimated at its empty query.
func TestEstimateInputCountsEveryTurn(t *testing.T) {
	t.Parallel()
	one := assay.Case{Query: "12345678"} // 8 characters: 2 tokens
	if got := estimateInput(one); got != 2 {
		t.Errorf("one query: %d tokens, want 2", got)
	}
	conv := assay.Case{Turns: []assay.Turn{{Query: "1234"}, {Query: "12345"}}}
	// turn 1 sends 4 characters (1 token), turn 2 sends 4+5 = 9 (3 tokens).
	if got := estimateInput(conv); got != 4 {
		t.Errorf("conversation: %d tokens, want 4", got)
	}
}
