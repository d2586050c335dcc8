package grade

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/assay-eval/assay"
)

// Conversation grades the observations of a conversation case, one per
// turn in order (package doc, "Conversations"). Each turn is graded as a
// case of its own (Case on c.TurnCase) into the result's Turns; the
// conversation's own expectations are checked against the conversation's
// observation (ConversationObservation); the conversation fails at its
// first failing turn (FailedTurn), and its metrics are the means over the
// turns that have judgments. It is pure, like Case.
func Conversation(c assay.Case, turns []assay.Observation, o Options) assay.CaseResult {
	results := make([]assay.CaseResult, len(turns))
	var history []assay.Message
	for i, obs := range turns {
		tc := c.TurnCase(i, history)
		obs.Turn = i + 1
		results[i] = Case(tc, obs, o)
		results[i].Turn = i + 1
		results[i].Tags = nil
		results[i].Hash = ""
		history = History(history, tc.Query, obs)
	}
	conv := c
	conv.Turns = nil
	obs := ConversationObservation(turns)
	r := Case(conv, obs, o)
	r.Hash = CaseHash(c, o)
	if c.Expect.MaxTurns > 0 {
		r.Checks = maxTurnsChecks(conv, turns, o)
		pass := obs.Error == nil
		for _, ch := range r.Checks {
			pass = pass && ch.Pass
		}
		r.Pass = &pass
	}
	r.Turns = results

	// Pass, first failing turn, error.
	graded := r.Pass != nil
	ok := r.Pass == nil || *r.Pass
	r.Error = nil
	for _, t := range results {
		if t.Error != nil && r.Error == nil {
			r.Error = &assay.Error{Class: t.Error.Class, Message: "turn " + strconv.Itoa(t.Turn) + ": " + t.Error.Message, Status: t.Error.Status}
		}
		failed := t.Error != nil || (t.Pass != nil && !*t.Pass)
		if t.Pass != nil || t.Error != nil {
			graded = true
		}
		if failed && r.FailedTurn == 0 {
			r.FailedTurn = t.Turn
		}
		if failed {
			ok = false
		}
	}
	if graded {
		r.Pass = &ok
	} else {
		r.Pass = nil
	}

	// Latency, attempts, cache, stages over the turns.
	r.LatencyMs = obs.LatencyMs
	r.Attempts = obs.Attempts
	r.Cached = obs.Cached
	r.Stages = nil
	for _, t := range results {
		for k, v := range t.Stages {
			if r.Stages == nil {
				r.Stages = map[string]float64{}
			}
			r.Stages[k] += v
		}
	}
	meanTurnMetrics(&r, results)
	return r
}

// History is the conversation after a turn: history, then the turn's user
// message, then the system's answer when it gave one (an errored turn, or
// an empty answer, adds the user message alone).
func History(history []assay.Message, query string, obs assay.Observation) []assay.Message {
	out := make([]assay.Message, 0, len(history)+2)
	out = append(out, history...)
	out = append(out, assay.Message{Role: assay.RoleUser, Content: query})
	if obs.Error == nil && obs.Answer != "" {
		out = append(out, assay.Message{Role: assay.RoleAssistant, Content: obs.Answer})
	}
	return out
}

// ConversationObservation is what a conversation's own expectations are
// checked against: the last turn's observation (its answer, ranking,
// citations, refusal, outcome, error) with the tool calls of every turn
// in order, the latency the sum of the turns' latencies (nil when a turn
// has none), the attempts the most of a turn's (> 1: a turn was retried),
// and cached only when every turn was.
// Turn is 0. Nil turns give an empty observation.
func ConversationObservation(turns []assay.Observation) assay.Observation {
	if len(turns) == 0 {
		return assay.Observation{}
	}
	obs := turns[len(turns)-1]
	obs.Turn = 0
	obs.Tools = nil
	obs.Spans = nil
	var latency float64
	hasLatency := true
	obs.Attempts = 0
	obs.Cached = true
	for _, t := range turns {
		obs.Tools = append(obs.Tools, t.Tools...)
		if t.LatencyMs == nil {
			hasLatency = false
		} else {
			latency += *t.LatencyMs
		}
		obs.Attempts = max(obs.Attempts, t.Attempts)
		obs.Cached = obs.Cached && t.Cached
	}
	obs.LatencyMs = nil
	if hasLatency {
		obs.LatencyMs = &latency
	}
	return obs
}

// maxTurnsChecks grades a conversation stating max_turns: its own
// expectations are checked, turn by turn, against the conversation so
// far (ConversationObservation of the first k turns); the checks are
// those of the first k at which they all pass (the last turn's when none
// does), followed by the max_turns check, which passes when that k is at
// most max_turns.
func maxTurnsChecks(conv assay.Case, turns []assay.Observation, o Options) []assay.Check {
	limit := conv.Expect.MaxTurns
	var checks []assay.Check
	met := 0
	for k := 1; k <= len(turns); k++ {
		checks = Checks(conv, ConversationObservation(turns[:k]), o)
		all := true
		for _, ch := range checks {
			all = all && ch.Pass
		}
		if all {
			met = k
			break
		}
	}
	var ch assay.Check
	switch {
	case met > 0 && met <= limit:
		ch = assay.Check{Kind: KindMaxTurns, Pass: true, Detail: "met at turn " + strconv.Itoa(met)}
	case met > 0:
		ch = fail(KindMaxTurns, fmt.Sprintf("met at turn %d, after max_turns %d", met, limit))
	default:
		ch = fail(KindMaxTurns, fmt.Sprintf("not met in %s", plural(len(turns), "turn")))
	}
	if checks == nil {
		checks = []assay.Check{}
	}
	return append(checks, ch)
}

// meanTurnMetrics sets the conversation's metrics to the means, per
// metric, over the turns that have it (the turns with judgments), and its
// judged coverage and upper values likewise; nil when no turn has one.
func meanTurnMetrics(r *assay.CaseResult, turns []assay.CaseResult) {
	mean := func(get func(t assay.CaseResult) map[string]float64) map[string]float64 {
		sum := map[string]float64{}
		n := map[string]int{}
		for _, t := range turns {
			for k, v := range get(t) {
				sum[k] += v
				n[k]++
			}
		}
		if len(sum) == 0 {
			return nil
		}
		keys := make([]string, 0, len(sum))
		for k := range sum {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make(map[string]float64, len(sum))
		for _, k := range keys {
			out[k] = sum[k] / float64(n[k])
		}
		return out
	}
	own := r.Metrics // the conversation's own (attribution, nuggets)
	r.Metrics = mean(func(t assay.CaseResult) map[string]float64 { return retrievalMetrics(t) })
	for k, v := range own {
		if _, dup := r.Metrics[k]; !dup {
			if r.Metrics == nil {
				r.Metrics = map[string]float64{}
			}
			r.Metrics[k] = v
		}
	}
	r.Unjudged = mean(func(t assay.CaseResult) map[string]float64 { return t.Unjudged })
	upper := mean(func(t assay.CaseResult) map[string]float64 {
		if t.Unjudged == nil {
			return nil
		}
		out := map[string]float64{}
		for k, v := range retrievalMetrics(t) {
			if u, ok := t.Upper[k]; ok {
				v = u
			}
			out[k] = v
		}
		return out
	})
	r.Upper = nil
	for k, u := range upper {
		if u != r.Metrics[k] {
			if r.Upper == nil {
				r.Upper = map[string]float64{}
			}
			r.Upper[k] = u
		}
	}
}

// retrievalMetrics are the metrics of a turn: those of a turn with
// judgments, and any its answer scored (attribution, nuggets).
func retrievalMetrics(t assay.CaseResult) map[string]float64 { return t.Metrics }
