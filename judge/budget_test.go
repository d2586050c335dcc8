package judge

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/llm"
)

// TestBudgetWaitsForHoldsThenSettles: a reservation that only the hold of
// a request in flight stands in the way of waits for it to settle, and
// then fits (the answer cost less than its worst case); one that would
// not fit even with nothing in flight is refused at once, and stops the
// judging; a wait ends when the run is stopped.
func TestBudgetWaitsForHoldsThenSettles(t *testing.T) {
	b := &budget{b: assay.JudgeBudget{MaxCost: 1, PromptPrice: 0.001}}
	ctx := context.Background()
	h, why := b.reserve(ctx, 1, 568) // worst 0.6
	if why != "" || b.held != 1 {
		t.Fatalf("first reservation refused: %q", why)
	}
	got := make(chan string)
	go func() {
		_, why := b.reserve(ctx, 1, 568)
		got <- why
	}()
	select {
	case why := <-got:
		t.Fatalf("the second reservation did not wait for the first to settle: %q", why)
	case <-time.After(50 * time.Millisecond):
	}
	b.settle(h, 1, 1, llm.Usage{PromptTokens: 100}) // spent 0.1
	if why := <-got; why != "" {
		t.Fatalf("after the first settled, the second was refused: %q", why)
	}
	// 0.1 spent and 0.6 held: a third request (0.6) waits, since it fits
	// once the hold settles; a stopped run ends the wait, and does not
	// stop the judging.
	stop, cancel := context.WithCancel(ctx)
	go func() {
		_, why := b.reserve(stop, 1, 568)
		got <- why
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	if why := <-got; !strings.HasPrefix(why, "the run was stopped") || b.stopped != "" {
		t.Fatalf("canceled wait: %q, stopped %q", why, b.stopped)
	}
	// A request whose worst case does not fit with nothing held is refused
	// at once, and every later one after it.
	if _, why := b.reserve(ctx, 2, 568); why != "budget: max_cost 1 reached" {
		t.Fatalf("two requests of 0.6 with 0.1 spent: %q", why)
	}
	b.settle(h, 1, 1, llm.Usage{PromptTokens: 100})
	if _, why := b.reserve(ctx, 1, 10); why != "budget: max_cost 1 reached" || b.held != 0 || b.hCost != 0 {
		t.Fatalf("after the judging stopped: %q (held %d, %v)", why, b.held, b.hCost)
	}
}
