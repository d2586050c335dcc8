package assay

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Price is what one model's tokens cost, in US dollars per million tokens
// (docs/cost.md). CachedInput prices the input tokens the system's model
// read from its own prompt cache; nil prices them as Input.
type Price struct {
	Input       float64  `json:"input"`
	Output      float64  `json:"output"`
	CachedInput *float64 `json:"cached_input,omitempty"`
}

// PriceTable maps a model name to its price. The key AnyModel prices the
// answers of every model the table does not name, and an answer that
// names no model. assay has no built-in price list: prices change, and a
// table that went stale would misreport every run.
type PriceTable map[string]Price

// AnyModel is the price table key of every model not listed.
const AnyModel = "*"

// Usage is the tokens one result's answer used and, priced, its cost
// (docs/cost.md). InputTokens counts every input token, the CachedTokens
// among them too.
type Usage struct {
	Model        string `json:"model,omitempty"`
	InputTokens  int64  `json:"input_tokens"`
	OutputTokens int64  `json:"output_tokens"`
	CachedTokens int64  `json:"cached_tokens,omitempty"`
	// CostUSD is the price of the tokens; nil when the run has no price
	// for the model (Unpriced says why).
	CostUSD  *float64 `json:"cost_usd"`
	Unpriced string   `json:"unpriced,omitempty"`
}

// Tokens is input + output tokens (cached tokens are part of the input).
func (u Usage) Tokens() int64 { return u.InputTokens + u.OutputTokens }

// usageKeys are the names each figure is read under in an observation's
// usage object, first found wins: assay's own, OpenAI's, Anthropic's and
// OpenTelemetry's gen_ai semantic conventions (a trace's span attributes
// copied as they are).
var usageKeys = struct{ input, output, cached, model []string }{
	input:  []string{"input_tokens", "prompt_tokens", "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"},
	output: []string{"output_tokens", "completion_tokens", "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"},
	cached: []string{"cached_tokens", "cache_read_input_tokens", "prompt_tokens_details.cached_tokens", "gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cached_tokens"},
	model:  []string{"model", "gen_ai.response.model", "gen_ai.request.model"},
}

// UsageOf reads the token counts of an observation's usage object
// (Observation.Usage): input and output tokens are required, cached tokens
// and the model optional (the model falls back to the observation's
// versions["model"]). ok is false when the observation reports no usage;
// a usage object that holds no token count, or a count that is not a whole
// number >= 0, is an error, which the caller records as unknown usage.
func UsageOf(o *Observation) (u Usage, ok bool, err error) {
	if o == nil || len(o.Usage) == 0 {
		return Usage{}, false, nil
	}
	in, inOK, err := usageCount(o.Usage, usageKeys.input)
	if err != nil {
		return Usage{}, true, err
	}
	out, outOK, err := usageCount(o.Usage, usageKeys.output)
	if err != nil {
		return Usage{}, true, err
	}
	if !inOK || !outOK {
		return Usage{}, true, fmt.Errorf("usage has no %s count (want %s and %s)", map[bool]string{true: "output", false: "input"}[inOK], usageKeys.input[0], usageKeys.output[0])
	}
	cached, _, err := usageCount(o.Usage, usageKeys.cached)
	if err != nil {
		return Usage{}, true, err
	}
	if cached > in {
		return Usage{}, true, fmt.Errorf("usage has %d cached tokens, more than its %d input tokens", cached, in)
	}
	u = Usage{InputTokens: in, OutputTokens: out, CachedTokens: cached}
	for _, k := range usageKeys.model {
		if s, isStr := lookupUsage(o.Usage, k).(string); isStr && s != "" {
			u.Model = s
			break
		}
	}
	if u.Model == "" {
		u.Model = o.Versions["model"]
	}
	return u, true, nil
}

// lookupUsage reads key from m, a dotted key also as nested objects
// (prompt_tokens_details.cached_tokens).
func lookupUsage(m map[string]any, key string) any {
	if v, ok := m[key]; ok {
		return v
	}
	head, rest, dotted := strings.Cut(key, ".")
	if !dotted {
		return nil
	}
	if sub, ok := m[head].(map[string]any); ok {
		return lookupUsage(sub, rest)
	}
	return nil
}

// usageCount reads the first of keys present as a whole number >= 0.
func usageCount(m map[string]any, keys []string) (int64, bool, error) {
	for _, k := range keys {
		v := lookupUsage(m, k)
		if v == nil {
			continue
		}
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case json.Number:
			var err error
			if f, err = x.Float64(); err != nil {
				return 0, true, fmt.Errorf("usage %s: %v", k, err)
			}
		case int:
			f = float64(x)
		case int64:
			f = float64(x)
		default:
			return 0, true, fmt.Errorf("usage %s: want a number of tokens, got %v", k, v)
		}
		if f < 0 || f != math.Trunc(f) || f > 1e15 {
			return 0, true, fmt.Errorf("usage %s: want a whole number of tokens >= 0, got %v", k, v)
		}
		return int64(f), true, nil
	}
	return 0, false, nil
}

// Price returns the price of a model's tokens: its own entry, else the
// AnyModel entry. ok is false when the table prices neither.
func (t PriceTable) Price(model string) (Price, bool) {
	if p, ok := t[model]; ok && model != "" {
		return p, true
	}
	p, ok := t[AnyModel]
	return p, ok
}

// Cost prices u: (input − cached) × Input + cached × CachedInput +
// output × Output, per million tokens. It sets u.CostUSD, or u.Unpriced
// when the table has no price for its model.
func (t PriceTable) Cost(u Usage) Usage {
	u.CostUSD, u.Unpriced = nil, ""
	p, ok := t.Price(u.Model)
	if !ok {
		switch {
		case len(t) == 0:
			u.Unpriced = "no price table"
		case u.Model == "":
			u.Unpriced = fmt.Sprintf("the answer names no model, and the price table has no %q entry", AnyModel)
		default:
			u.Unpriced = fmt.Sprintf("model %q is not in the price table (priced: %s)", u.Model, strings.Join(slices.Sorted(mapKeys(t)), ", "))
		}
		return u
	}
	cachedPrice := p.Input
	if p.CachedInput != nil {
		cachedPrice = *p.CachedInput
	}
	c := (float64(u.InputTokens-u.CachedTokens)*p.Input + float64(u.CachedTokens)*cachedPrice + float64(u.OutputTokens)*p.Output) / 1e6
	u.CostUSD = &c
	return u
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// CostSummary totals the system's usage over a run's results
// (docs/cost.md). The judge's usage is apart, in Summary.Judge.
//
// Answered counts the results the system answered (no error); of them
// WithUsage reported usage and Priced had a price. A result that errored
// is left out (its usage, when it has some, is still counted in the
// tokens and the cost). CostUSD, CostPerCaseUSD and TokensPerCase are
// defined (non-nil) only when every answered result was priced (for the
// tokens: reported usage): a run whose costs are partly unknown has no
// cost, never the cost of the part that is known.
type CostSummary struct {
	Answered     int   `json:"answered"`
	WithUsage    int   `json:"with_usage"`
	Priced       int   `json:"priced"`
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	CachedTokens int64 `json:"cached_tokens"`
	// CostUSD is the total over the priced results; CostPerCaseUSD is it
	// over Priced; TokensPerCase is (input + output) over WithUsage.
	CostUSD        *float64 `json:"cost_usd"`
	CostPerCaseUSD *float64 `json:"cost_per_case_usd"`
	TokensPerCase  *float64 `json:"tokens_per_case"`
	// Unpriced is why the first answered result without a cost has none
	// ("" when every one has).
	Unpriced string `json:"unpriced,omitempty"`
}

// CostAcc adds results up into a CostSummary.
type CostAcc struct {
	s    CostSummary
	cost float64
	any  bool
}

// Add counts one result.
func (a *CostAcc) Add(r *CaseResult) {
	if r.Error == nil {
		a.s.Answered++
	}
	if r.Usage == nil {
		if r.Error == nil && a.s.Unpriced == "" {
			a.s.Unpriced = fmt.Sprintf("case %s reported no usage", r.ID)
		}
		return
	}
	a.any = true
	u := r.Usage
	a.s.InputTokens += u.InputTokens
	a.s.OutputTokens += u.OutputTokens
	a.s.CachedTokens += u.CachedTokens
	if u.CostUSD != nil {
		a.cost += *u.CostUSD
	}
	if r.Error != nil {
		return
	}
	a.s.WithUsage++
	if u.CostUSD != nil {
		a.s.Priced++
	} else if a.s.Unpriced == "" {
		why := u.Unpriced
		if why == "" {
			why = "no price"
		}
		a.s.Unpriced = fmt.Sprintf("case %s: %s", r.ID, why)
	}
}

// Summary is the CostSummary of the results added; nil when none of them
// reported usage.
func (a *CostAcc) Summary() *CostSummary {
	if !a.any {
		return nil
	}
	s := a.s
	if s.Answered > 0 && s.WithUsage == s.Answered {
		t := float64(s.InputTokens+s.OutputTokens) / float64(s.WithUsage)
		s.TokensPerCase = &t
	}
	if s.Answered > 0 && s.Priced == s.Answered {
		total, per := a.cost, a.cost/float64(s.Priced)
		s.CostUSD, s.CostPerCaseUSD = &total, &per
		s.Unpriced = ""
	}
	return &s
}
