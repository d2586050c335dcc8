package judge

import (
	"context"
	"fmt"
	"sync"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/llm"
)

// DefaultAnswerTokens is the completion limit (max_tokens) sent with each
// request when the budget bounds tokens or cost and the definition sets
// none: a request's worst case must be known before it is sent. An answer
// is a few scores and a line of reasoning.
const DefaultAnswerTokens = 512

// messageTokens is what the worst case of a request adds per message to
// its bytes: the chat template's own tokens.
const messageTokens = 16

// budget is what a run has spent on the judge, against its bounds. Every
// request is reserved before it is sent, at its worst case (one call; the
// prompt's bytes as tokens, since a token is at least one byte, plus the
// answer's max_tokens; their price), and settled with its usage when it
// is answered: what is spent and held together never passes a bound.
type budget struct {
	b assay.JudgeBudget
	// answer is the completion limit of one request (0: none).
	answer  int
	mu      sync.Mutex
	calls   int     // requests sent or reserved
	tokens  int     // tokens spent
	cost    float64 // cost spent
	held    int     // requests reserved and not yet settled
	hTokens int     // tokens they hold
	hCost   float64 // cost they hold
	stopped string  // the first bound that refused a request
	passed  string  // a bound an answer's usage passed (an endpoint over max_tokens)
	refused int     // cases not judged for it
	// changed is closed (and replaced) whenever a hold is settled.
	changed chan struct{}
}

// hold is what one request holds of the budget until it is settled.
type hold struct {
	calls  int
	tokens int
	cost   float64
}

// worst is the hold of one request whose prompt is promptBytes long.
func (b *budget) worst(promptBytes int) hold {
	h := hold{calls: 1}
	pt := addInt(promptBytes, 2*messageTokens)
	if b.b.MaxTokens > 0 {
		h.tokens = addInt(pt, b.answer)
	}
	if b.b.MaxCost > 0 {
		h.cost = float64(pt)*b.b.PromptPrice + float64(b.answer)*b.b.CompletionPrice
	}
	return h
}

// bound says which bound taking h n times would pass ("" when none);
// held is whether it is only the holds of requests in flight that make it
// pass (their answers may cost less than held: worth waiting for). Called
// with b.mu held.
func (b *budget) bound(h hold, n int) (why string, held bool) {
	switch {
	case b.b.MaxCalls > 0 && b.calls+n*h.calls > b.b.MaxCalls:
		return fmt.Sprintf("max_calls %d reached", b.b.MaxCalls), false
	case b.b.MaxTokens > 0 && float64(b.tokens)+float64(b.hTokens)+float64(n)*float64(h.tokens) > float64(b.b.MaxTokens):
		return fmt.Sprintf("max_tokens %d reached", b.b.MaxTokens), b.held > 0 && float64(b.tokens)+float64(n)*float64(h.tokens) <= float64(b.b.MaxTokens)
	case b.b.MaxCost > 0 && b.cost+b.hCost+float64(n)*h.cost > b.b.MaxCost:
		return fmt.Sprintf("max_cost %g reached", b.b.MaxCost), b.held > 0 && b.cost+float64(n)*h.cost <= b.b.MaxCost
	}
	return "", false
}

// take books h n times, with b.mu held.
func (b *budget) take(h hold, n int) {
	b.calls += n * h.calls
	b.held += n
	b.hTokens = addInt(b.hTokens, n*h.tokens)
	b.hCost += float64(n) * h.cost
}

// reserve books n requests of a prompt promptBytes long (the cache misses
// of one case, all or none) at their worst case, and says why not (a
// result's not_judged) when that could pass a bound. When only the holds
// of requests in flight stand in the way, it waits for them to settle
// (until ctx is done: the run was stopped). Once a bound has refused a
// case, every later one is refused: judging stopped. No request (n = 0:
// every answer cached) is always allowed.
func (b *budget) reserve(ctx context.Context, n, promptBytes int) (hold, string) {
	h := b.worst(promptBytes)
	if n == 0 {
		return h, ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for {
		why, held := b.bound(h, n)
		if b.stopped != "" {
			why, held = b.stopped, false
		}
		if why == "" {
			b.take(h, n)
			return h, ""
		}
		if held {
			if b.changed == nil {
				b.changed = make(chan struct{})
			}
			ch := b.changed
			b.mu.Unlock()
			select {
			case <-ch:
				b.mu.Lock()
				continue
			case <-ctx.Done():
				b.mu.Lock()
				return h, "the run was stopped while the judge's budget waited for requests in flight"
			}
		}
		if b.stopped == "" {
			b.stopped = why
		}
		b.refused++
		return h, "budget: " + why
	}
}

// retry books one more request (a retry of a request under way) and says
// why not when it could pass a bound.
func (b *budget) retry(h hold) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if why, _ := b.bound(h, 1); why != "" {
		return why
	}
	b.take(h, 1)
	return ""
}

// settle ends held holds of one request, of which sent were sent (the
// others are released: their calls given back), and adds the usage of its
// answer. cost is its price, ok false when the definition has no prices.
// The tokens counted are the larger of the reported total and the sum of
// its parts (a total below its parts cannot make max_tokens pass unseen),
// and the sums saturate rather than wrap. Usage over the hold (an endpoint
// that answers past max_tokens) is counted all the same: when it passes a
// bound, the budget says so.
func (b *budget) settle(h hold, held, sent int, u llm.Usage) (cost float64, ok bool) {
	tokens := max(u.TotalTokens, addInt(u.PromptTokens, u.CompletionTokens))
	cost = float64(max(u.PromptTokens, 0))*b.b.PromptPrice + float64(max(u.CompletionTokens, 0))*b.b.CompletionPrice
	b.mu.Lock()
	defer b.mu.Unlock()
	if unsent := held - sent; unsent > 0 {
		b.calls -= unsent * h.calls
	}
	b.held -= held
	b.hTokens -= held * h.tokens
	b.hCost -= float64(held) * h.cost
	if b.held == 0 {
		b.hTokens, b.hCost = 0, 0 // no rounding left over
	}
	b.tokens = addInt(b.tokens, tokens)
	b.cost += cost
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
	if b.passed == "" {
		switch {
		case b.b.MaxTokens > 0 && b.tokens > b.b.MaxTokens:
			b.passed = fmt.Sprintf("max_tokens %d passed: the endpoint reported more tokens than the request's worst case", b.b.MaxTokens)
		case b.b.MaxCost > 0 && b.cost > b.b.MaxCost:
			b.passed = fmt.Sprintf("max_cost %g passed: the endpoint reported more tokens than the request's worst case", b.b.MaxCost)
		}
	}
	return cost, b.b.PromptPrice > 0 || b.b.CompletionPrice > 0
}

// Stopped says which bound stopped the judging ("" when none did): the
// first that refused a request, else one an answer's usage passed.
func (j *Judge) Stopped() string {
	j.budget.mu.Lock()
	defer j.budget.mu.Unlock()
	if j.budget.stopped != "" {
		return j.budget.stopped
	}
	return j.budget.passed
}

// priced reports whether the definition has prices.
func (j *Judge) priced() bool {
	return j.cfg.Budget.PromptPrice > 0 || j.cfg.Budget.CompletionPrice > 0
}
