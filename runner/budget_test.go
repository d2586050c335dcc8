package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assay-eval/assay"
)

// usageTarget answers "ok" with a usage of in input and out output tokens
// of model m1, after a random short wait (so cases finish out of order),
// and counts the requests it was sent.
func usageTarget(in, out int, sent *atomic.Int64) assay.TargetFunc {
	return func(ctx context.Context, c assay.Case) (assay.Observation, error) {
		sent.Add(1)
		time.Sleep(time.Duration(rand.IntN(3)) * time.Millisecond)
		return assay.Observation{Answer: "ok", Usage: map[string]any{"model": "m1", "input_tokens": float64(in), "output_tokens": float64(out)}}, nil
	}
}

// prices: m1 costs $1 per million input tokens and $2 per million output.
var prices = assay.PriceTable{"m1": {Input: 1, Output: 2}}

// TestMaxCostStopsAtTheBudgetConcurrently: each case costs 1000 × $1 +
// 500 × $2 per million = $0.002; a budget of $0.021 holds ten cases and
// not an eleventh, under 8 cases in flight. The run spends at most the
// budget, records the rest not run, never as a pass, and is incomplete
// saying where it stopped. Run it with -race.
func TestMaxCostStopsAtTheBudgetConcurrently(t *testing.T) {
	for range 20 {
		var sent atomic.Int64
		res, err := Run(context.Background(), usageTarget(1000, 500, &sent), cases(40), Options{
			Concurrency: 8, Prices: prices, MaxCost: 0.021,
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) != 40 {
			t.Fatalf("%d results, want every case recorded (40)", len(res.Results))
		}
		var spent float64
		ran, notRun := 0, 0
		for _, r := range res.Results {
			if r.Error != nil && r.Error.Class == assay.ErrNotRun {
				notRun++
				if r.Passed() {
					t.Fatalf("case %s was not run and is recorded as a pass", r.ID)
				}
				if r.Pass == nil || !strings.HasPrefix(r.Error.Message, "budget: max_cost 0.021 reached") {
					t.Fatalf("case %s: pass %v error %+v, want graded, failed, 'budget: max_cost 0.021 reached'", r.ID, r.Pass, r.Error)
				}
				continue
			}
			ran++
			if r.Usage == nil || r.Usage.CostUSD == nil {
				t.Fatalf("case %s has no cost: %+v", r.ID, r.Usage)
			}
			spent += *r.Usage.CostUSD
		}
		if spent > 0.021+1e-12 {
			t.Fatalf("spent $%g, over the budget of $0.021", spent)
		}
		if ran != 10 || notRun != 30 || sent.Load() != 10 {
			t.Fatalf("ran %d, not run %d, sent %d: want 10 cases run (10 × $0.002 <= $0.021 < 11 × $0.002), 30 not run, 10 requests", ran, notRun, sent.Load())
		}
		if res.Complete || !strings.Contains(res.Stopped, "max_cost 0.021 reached") || !strings.Contains(res.Budget, "at case") {
			t.Fatalf("complete %v, stopped %q, budget %q: want an incomplete run saying where the budget stopped it", res.Complete, res.Stopped, res.Budget)
		}
	}
}

// TestMaxTokensStops: 1500 tokens a case, a budget of 4000 runs two.
func TestMaxTokensStops(t *testing.T) {
	var sent atomic.Int64
	res, err := Run(context.Background(), usageTarget(1000, 500, &sent), cases(6), Options{Concurrency: 4, MaxTokens: 4000})
	if err != nil {
		t.Fatal(err)
	}
	if sent.Load() != 2 || res.Complete || res.Results[2].Error == nil || res.Results[2].Error.Class != assay.ErrNotRun {
		t.Fatalf("sent %d, complete %v, third %+v: want 2 sent and the rest not run", sent.Load(), res.Complete, res.Results[2].Error)
	}
}

// TestBudgetFailsClosedWithoutUsage: a system that reports no usage cannot
// be held to --max-cost: the run stops after its first answer.
func TestBudgetFailsClosedWithoutUsage(t *testing.T) {
	res, err := Run(context.Background(), answer("ok"), cases(5), Options{Concurrency: 4, MaxCost: 1, Prices: prices})
	if err != nil {
		t.Fatal(err)
	}
	if res.Complete || !strings.Contains(res.Stopped, "reported no usage") {
		t.Fatalf("complete %v, stopped %q: want a stop naming the missing usage", res.Complete, res.Stopped)
	}
	for _, r := range res.Results[1:] {
		if r.Error == nil || r.Error.Class != assay.ErrNotRun {
			t.Fatalf("case %s: %+v, want not run", r.ID, r.Error)
		}
	}
}

// TestUsagePricedPerCase: the result carries the tokens and the cost the
// price table gives, cached input tokens at their own price.
func TestUsagePricedPerCase(t *testing.T) {
	half := 0.5
	tgt := assay.TargetFunc(func(ctx context.Context, c assay.Case) (assay.Observation, error) {
		return assay.Observation{Answer: "ok", Usage: map[string]any{"model": "m1", "prompt_tokens": float64(2000), "completion_tokens": float64(100), "prompt_tokens_details": map[string]any{"cached_tokens": float64(1000)}}}, nil
	})
	res, err := Run(context.Background(), tgt, cases(1), Options{Prices: assay.PriceTable{"m1": {Input: 1, Output: 2, CachedInput: &half}}})
	if err != nil {
		t.Fatal(err)
	}
	u := res.Results[0].Usage
	// (2000 − 1000) × 1 + 1000 × 0.5 + 100 × 2 = 1700 per million.
	if u == nil || u.InputTokens != 2000 || u.OutputTokens != 100 || u.CachedTokens != 1000 || u.CostUSD == nil || fmt.Sprintf("%.7f", *u.CostUSD) != "0.0017000" {
		t.Fatalf("usage %+v, want 2000 in (1000 cached), 100 out, $0.0017", u)
	}
}
