package judge

import (
	"fmt"
	"sync"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/llm"
)

// budget is what a run has spent on the judge, against its bounds.
type budget struct {
	b       assay.JudgeBudget
	mu      sync.Mutex
	calls   int
	tokens  int
	cost    float64
	stopped string // the first bound reached
	refused int    // cases not judged for it
}

// reserve books n calls (the cache misses of one case, all or none) and
// says why not when a bound is reached: max_calls would be passed, or the
// tokens or cost spent so far have reached max_tokens or max_cost. No call
// (n = 0: every answer cached) is always allowed.
func (b *budget) reserve(n int) string {
	if n == 0 {
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	why := ""
	switch {
	case b.b.MaxCalls > 0 && b.calls+n > b.b.MaxCalls:
		why = fmt.Sprintf("max_calls %d reached", b.b.MaxCalls)
	case b.b.MaxTokens > 0 && b.tokens >= b.b.MaxTokens:
		why = fmt.Sprintf("max_tokens %d reached", b.b.MaxTokens)
	case b.b.MaxCost > 0 && b.cost >= b.b.MaxCost:
		why = fmt.Sprintf("max_cost %g reached", b.b.MaxCost)
	}
	if why != "" {
		if b.stopped == "" {
			b.stopped = why
		}
		b.refused++
		return why
	}
	b.calls += n
	return ""
}

// retry books one more request (a retry of a request under way) and says
// why not when max_calls would be passed.
func (b *budget) retry() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b.MaxCalls > 0 && b.calls+1 > b.b.MaxCalls {
		return fmt.Sprintf("max_calls %d reached", b.b.MaxCalls)
	}
	b.calls++
	return ""
}

// spend adds one call's usage; cost is its price, ok false when the
// definition has no prices. The tokens counted are the larger of the
// reported total and the sum of its parts (a total below its parts cannot
// make max_tokens pass unseen), and the sums saturate rather than wrap.
func (b *budget) spend(u llm.Usage) (cost float64, ok bool) {
	tokens := max(u.TotalTokens, addInt(u.PromptTokens, u.CompletionTokens))
	cost = float64(max(u.PromptTokens, 0))*b.b.PromptPrice + float64(max(u.CompletionTokens, 0))*b.b.CompletionPrice
	b.mu.Lock()
	b.tokens = addInt(b.tokens, tokens)
	b.cost += cost
	b.mu.Unlock()
	return cost, b.b.PromptPrice > 0 || b.b.CompletionPrice > 0
}

// Stopped says which bound stopped the judging ("" when none did).
func (j *Judge) Stopped() string {
	j.budget.mu.Lock()
	defer j.budget.mu.Unlock()
	return j.budget.stopped
}

// priced reports whether the definition has prices.
func (j *Judge) priced() bool {
	return j.cfg.Budget.PromptPrice > 0 || j.cfg.Budget.CompletionPrice > 0
}
