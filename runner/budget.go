package runner

import (
	"context"
	"fmt"
	"sync"

	"github.com/assay-eval/assay"
)

// budget is what the system under test has spent in a run, against its
// bounds (Options.MaxCost, Options.MaxTokens). A case is reserved before it
// is sent, at the dearest case settled so far (the first case goes alone:
// nothing is known of what a case costs until one answered), and settled
// with its usage when it is answered: what is spent and held together
// never passes a bound by the estimate. Once a bound refused a case, every
// later one is refused: the rest of the run is recorded not run. The
// reservation holds at any concurrency: a case that would need what cases
// in flight hold waits for them to settle.
type budget struct {
	maxCost   float64
	maxTokens int64

	mu      sync.Mutex
	cost    float64 // spent
	tokens  int64
	held    int // cases reserved, not yet settled
	hCost   float64
	hTokens int64
	// dearCost and dearTokens are the dearest settled case: the estimate
	// a reservation holds; known once a case settled with usage.
	dearCost   float64
	dearTokens int64
	known      bool
	stopped    string
	changed    chan struct{}
	// turn is the seq of the next case to decide: cases are reserved in
	// suite order (then trial), so the budget stops the run at one place
	// in the suite, whatever order the workers pick their cases in.
	turn int
}

// budgetHold is what one case holds until it is settled.
type budgetHold struct {
	cost   float64
	tokens int64
}

func newBudget(o Options) *budget {
	if o.MaxCost <= 0 && o.MaxTokens <= 0 {
		return nil
	}
	return &budget{maxCost: o.MaxCost, maxTokens: o.MaxTokens}
}

// over says which bound spending h more would pass ("" when none).
// Called with b.mu held.
func (b *budget) over(h budgetHold) string {
	switch {
	case b.maxCost > 0 && b.cost+b.hCost+h.cost > b.maxCost:
		return fmt.Sprintf("max_cost %g reached ($%s spent)", b.maxCost, fmtUSD(b.cost))
	case b.maxTokens > 0 && b.tokens+b.hTokens+h.tokens > b.maxTokens:
		return fmt.Sprintf("max_tokens %d reached (%d spent)", b.maxTokens, b.tokens)
	}
	return ""
}

// reserve books the seq-th case of the run at the estimate, or says why
// it may not be sent (the budget is reached, or stopped). It waits for the
// cases before it to be decided, then while only the holds of cases in
// flight stand in the way, or while no case has settled yet and one is in
// flight. A canceled ctx ends the wait: ok false, no reason.
func (b *budget) reserve(ctx context.Context, seq int) (h budgetHold, why string, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	defer func() {
		if ok && b.turn == seq {
			b.turn++
			b.wake()
		}
	}()
	for {
		if b.turn != seq {
			if !b.wait(ctx) {
				return h, "", false
			}
			continue
		}
		if b.stopped != "" {
			return h, b.stopped, true
		}
		h = budgetHold{cost: b.dearCost, tokens: b.dearTokens}
		why := b.over(h)
		if why == "" && (b.known || b.held == 0) {
			b.held++
			b.hCost += h.cost
			b.hTokens += h.tokens
			return h, "", true
		}
		if b.held == 0 {
			b.stopped = why
			return h, why, true
		}
		if !b.wait(ctx) {
			return h, "", false
		}
	}
}

// wait waits, with b.mu held, for the budget to change; false when ctx
// was done first.
func (b *budget) wait(ctx context.Context) bool {
	if b.changed == nil {
		b.changed = make(chan struct{})
	}
	ch := b.changed
	b.mu.Unlock()
	select {
	case <-ch:
		b.mu.Lock()
		return true
	case <-ctx.Done():
		b.mu.Lock()
		return false
	}
}

// wake tells the waiters the budget changed, with b.mu held.
func (b *budget) wake() {
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
}

// settle ends a hold with what its case spent: its usage (nil: none
// reported). A live answer without usage, or without a price when the
// budget bounds cost, cannot be counted: the budget stops (fail closed).
// An errored observation without usage is counted at what it held. A
// cached answer spent nothing, and tells what a case costs all the same.
func (b *budget) settle(h budgetHold, r *assay.CaseResult) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.unhold(h)
	u := r.Usage
	switch {
	case u == nil && r.Error != nil:
		b.cost += h.cost
		b.tokens += h.tokens
		return
	case u == nil:
		if b.stopped == "" {
			b.stopped = fmt.Sprintf("case %s reported no usage, so what the system spends cannot be counted", r.ID)
		}
		return
	case b.maxCost > 0 && u.CostUSD == nil:
		if b.stopped == "" {
			b.stopped = fmt.Sprintf("case %s has no cost (%s), so what the system spends cannot be counted", r.ID, u.Unpriced)
		}
		return
	}
	var c float64
	if u.CostUSD != nil {
		c = *u.CostUSD
	}
	b.dearCost, b.dearTokens, b.known = max(b.dearCost, c), max(b.dearTokens, u.Tokens()), true
	if !r.Cached {
		b.cost += c
		b.tokens += u.Tokens()
	}
}

// release ends a hold whose case was abandoned (the run was stopped).
func (b *budget) release(h budgetHold) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.unhold(h)
}

// unhold ends a hold, with b.mu held.
func (b *budget) unhold(h budgetHold) {
	b.held--
	b.hCost -= h.cost
	b.hTokens -= h.tokens
	if b.held == 0 {
		b.hCost, b.hTokens = 0, 0
	}
	b.wake()
}

// fmtUSD prints dollars with up to 6 decimals, trailing zeros trimmed.
func fmtUSD(v float64) string {
	s := fmt.Sprintf("%.6f", v)
	for len(s) > 1 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}
