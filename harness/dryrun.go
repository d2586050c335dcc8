package harness

import (
	"context"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
)

// charsPerToken is the dry run's rule for the input tokens of a case that
// has no recorded usage: its query's characters (Unicode code points)
// divided by 4, rounded up, the common rule of thumb for English text with
// the tokenizers of OpenAI-style models (Estimate.CharsPerToken).
const charsPerToken = 4

// historyRuns bounds the stored runs a dry run reads for the cases'
// recorded usage: the newest complete runs of the suite, newest first.
const historyRuns = 20

// Estimate is what a run of a plan would ask and, priced, cost (DryRun).
// Token and cost figures are estimates; a nil cost is unknown, and the
// note says why.
type Estimate struct {
	Suite string
	Cases int // cases selected
	// Turns is the cases' turns: a conversation counts each of its turns,
	// a case of one query one.
	Turns  int
	Trials int
	// Requests is the observations the system is asked for: each case's
	// turns (one for a case of one query) × Trials (a target file's steps
	// may make several HTTP requests each).
	Requests int
	// InputTokens is the system's input over the requests: per case its
	// recorded input tokens when a stored run has them, else its query's
	// characters / CharsPerToken, rounded up. OutputTokens is the
	// recorded output tokens of the cases that have them; OutputKnown
	// counts those cases, and the others have no output estimate.
	InputTokens   int64
	InputRecorded int // cases whose input came from a stored run
	OutputTokens  int64
	OutputKnown   int
	// CharsPerToken is the characters of a query taken as one token
	// when its case has no recorded usage (4, the common rule of thumb
	// for English text with the tokenizers of OpenAI-style models).
	CharsPerToken int
	// History is the run the recorded usage came from ("" when none).
	History string
	// CostUSD is the system's expected cost: nil when there is no price
	// table, no price for the model, or a case has no output estimate
	// (CostNote says which).
	CostUSD  *float64
	CostNote string
	// The judge (JudgeModel "" when the run has none): JudgeCalls is the
	// requests it would send (results × repeats × (1 + probes), the
	// cache aside); its tokens and cost are the stored run's per call.
	JudgeModel        string
	JudgeCalls        int
	JudgePromptTokens int64
	JudgeOutputTokens int64
	JudgeCostUSD      *float64
	JudgeNote         string
}

// DryRun reads the plan's suite, selection, judge and store as Run would,
// and opens no target: it sends no request. It returns the number of
// requests the run would make and, from the suite's price table, the
// expected cost of the system and of the judge (docs/cost.md gives the
// rules of the estimate).
func DryRun(ctx context.Context, p Plan) (*Estimate, error) {
	if p.Getenv == nil {
		p.Getenv = func(string) string { return "" }
	}
	if p.Trials == 0 {
		p.Trials = 1
	}
	if p.Concurrency == 0 {
		p.Concurrency = 1
	}
	if p.Names == nil {
		p.Names = func(f string) string { return f }
	}
	if p.Now == nil {
		p.Now = time.Now
	}
	p.Cache = false // nothing is asked, so nothing is cached
	p.registered()
	ss, err := prepareRun(ctx, &p)
	if err != nil {
		return nil, err
	}
	if ss.st != nil {
		defer ss.st.Close()
	}
	defer ss.closeSpills()
	e := &Estimate{Suite: ss.s.Name, Trials: p.Trials, CharsPerToken: charsPerToken}
	hist := ss.recordedUsage(ctx)
	e.History = hist.run
	prices := ss.prices
	cost, costKnown := 0.0, true
	model := hist.model
	requests := 0
	err = ss.src(func(c assay.Case) error {
		e.Cases++
		requests += max(1, len(c.Turns))
		in := estimateInput(c)
		u, recorded := hist.cases[c.ID]
		if recorded {
			in = u.InputTokens
			e.InputRecorded++
			e.OutputKnown++
			e.OutputTokens += u.OutputTokens * int64(p.Trials)
		} else {
			costKnown = false
		}
		e.InputTokens += in * int64(p.Trials)
		if recorded {
			m := u.Model
			if m == "" {
				m = model
			}
			priced := prices.Cost(assay.Usage{Model: m, InputTokens: in, OutputTokens: u.OutputTokens})
			if priced.CostUSD == nil {
				if e.CostNote == "" {
					e.CostNote = priced.Unpriced
				}
				costKnown = false
			} else {
				cost += *priced.CostUSD * float64(p.Trials)
			}
		}
		return nil
	})
	if err != nil {
		return nil, inputError(err)
	}
	e.Turns = requests
	e.Requests = requests * e.Trials
	switch {
	case len(prices) == 0:
		e.CostNote = "no prices: table in the suite or the target file"
	case e.OutputKnown < e.Cases:
		e.CostNote = fmt.Sprintf("%d of %d cases have no recorded output tokens in the store", e.Cases-e.OutputKnown, e.Cases)
	case costKnown && e.Cases > 0:
		e.CostUSD = &cost
		e.CostNote = ""
	}
	if js := ss.judge; js != nil {
		e.JudgeModel = js.cfg.Model
		probes := map[string]bool{}
		for _, pr := range append(slices.Clone(js.cfg.Probes), js.opts.Probes...) {
			probes[pr] = true
		}
		e.JudgeCalls = e.Requests * max(1, js.opts.Repeats) * (1 + len(probes))
		b := js.cfg.Budget
		switch {
		case hist.judgeCalls == 0:
			e.JudgeNote = "no stored run of the suite recorded the judge's usage"
		default:
			perPrompt := float64(hist.judgePrompt) / float64(hist.judgeCalls)
			perOut := float64(hist.judgeOutput) / float64(hist.judgeCalls)
			e.JudgePromptTokens = int64(perPrompt*float64(e.JudgeCalls) + 0.5)
			e.JudgeOutputTokens = int64(perOut*float64(e.JudgeCalls) + 0.5)
			if b.PromptPrice > 0 || b.CompletionPrice > 0 {
				jc := float64(e.JudgePromptTokens)*b.PromptPrice + float64(e.JudgeOutputTokens)*b.CompletionPrice
				e.JudgeCostUSD = &jc
			} else {
				e.JudgeNote = "the judge's definition has no prompt_price and completion_price"
			}
		}
	}
	return e, nil
}

// estimateInput is a case's input tokens by the CharsPerToken rule: its
// query's characters, or for a conversation, the user messages each turn
// sends (its own and the earlier turns' — the answers in the history are
// not known before the run and are not counted).
func estimateInput(c assay.Case) int64 {
	tokens := func(chars int) int64 { return int64((chars + charsPerToken - 1) / charsPerToken) }
	if len(c.Turns) == 0 {
		return tokens(utf8.RuneCountInString(c.Query))
	}
	var in int64
	sent := 0
	for _, t := range c.Turns {
		sent += utf8.RuneCountInString(t.Query)
		in += tokens(sent)
	}
	return in
}

// usageHistory is the usage the store recorded for a suite's cases.
type usageHistory struct {
	run   string
	model string
	cases map[string]assay.Usage
	// The judge's requests and tokens over the run's judged cases.
	judgeCalls, judgePrompt, judgeOutput int64
}

// recordedUsage reads, from the newest complete runs of the suite in the
// store, each case's usage (of trial 0; the newest run that has it) and
// the judge's tokens of the newest run that has them.
func (ss *session) recordedUsage(ctx context.Context) usageHistory {
	h := usageHistory{cases: map[string]assay.Usage{}}
	if ss.st == nil {
		return h
	}
	entries, err := ss.st.List(ctx, store.Filter{Suite: ss.s.Name, Status: assay.StatusComplete, Limit: historyRuns, NoShards: true})
	if err != nil {
		return h
	}
	judged := false
	for _, e := range entries {
		run, err := ss.st.Load(ctx, e.RunID)
		if err != nil {
			continue
		}
		if run.Summary.Cost == nil && (run.Summary.Judge == nil || judged) {
			continue
		}
		var calls, prompt, out int64
		_ = run.EachCase(func(r assay.CaseResult) error {
			if r.Usage != nil && r.Trial == 0 {
				if _, seen := h.cases[r.ID]; !seen {
					h.cases[r.ID] = *r.Usage
					if h.run == "" {
						h.run = run.RunID
					}
					if h.model == "" {
						h.model = r.Usage.Model
					}
				}
			}
			if r.Judge != nil && r.Judge.Calls > 0 {
				calls += int64(r.Judge.Calls)
				prompt += int64(r.Judge.PromptTokens)
				out += int64(r.Judge.CompletionTokens)
			}
			return nil
		})
		if !judged && calls > 0 {
			judged = true
			h.judgeCalls, h.judgePrompt, h.judgeOutput = calls, prompt, out
		}
	}
	return h
}
