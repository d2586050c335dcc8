package grade

import (
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
)

// Refused applies the refusal rule (docs/expectations.md#refusal): the observation's Refused when the target
// reports it (non-nil); otherwise whether the answer contains one of markers,
// case-insensitively (by Fold key). nil markers means assay.DefaultRefusalMarkers; an empty
// (non-nil) list means no marker. Empty markers are ignored.
func Refused(obs assay.Observation, markers []string) bool {
	if obs.Refused != nil {
		return *obs.Refused
	}
	if markers == nil {
		markers = assay.DefaultRefusalMarkers
	}
	answer := Fold(obs.Answer)
	for _, m := range markers {
		if m != "" && strings.Contains(answer, Fold(m)) {
			return true
		}
	}
	return false
}

// Refusal passes when Refused(obs, markers) equals want: `refusal: true`
// passes iff the system refused, `refusal: false` iff it answered. A failing
// check says `not refused` (wanted a refusal) or `refused` (wanted an answer).
func Refusal(obs assay.Observation, want bool, markers []string) assay.Check {
	got := Refused(obs, markers)
	switch {
	case got == want:
		return pass(KindRefusal)
	case got:
		return fail(KindRefusal, "refused")
	default:
		return fail(KindRefusal, "not refused")
	}
}

// CallsTool passes when each name occurs in obs.Tools in a call with an
// empty error. A failing check names what was never called and what was
// called only with errors (the first error shown):
// `not called search; get errored: 404 not found`.
func CallsTool(obs assay.Observation, names []string) assay.Check {
	var facts []string
	for _, n := range names {
		called, ok := false, false
		firstErr := ""
		for _, t := range obs.Tools {
			if t.Name != n {
				continue
			}
			if t.Error == "" {
				ok = true
				break
			}
			if !called {
				firstErr = t.Error
			}
			called = true
		}
		switch {
		case ok:
		case called:
			facts = append(facts, name(n)+" errored: "+firstErr)
		default:
			facts = append(facts, "not called "+name(n))
		}
	}
	if len(facts) > 0 {
		return fail(KindCallsTool, strings.Join(facts, "; "))
	}
	return pass(KindCallsTool)
}

// CallsAnyTool passes when some call in obs.Tools has an empty error. A
// failing check says `no tool called` or `every call errored (2 calls)`.
func CallsAnyTool(obs assay.Observation) assay.Check {
	if len(obs.Tools) == 0 {
		return fail(KindCallsAnyTool, "no tool called")
	}
	for _, t := range obs.Tools {
		if t.Error == "" {
			return pass(KindCallsAnyTool)
		}
	}
	return fail(KindCallsAnyTool, "every call errored ("+plural(len(obs.Tools), "call")+")")
}

// NeverCalls passes when no call in obs.Tools has one of names, errored or
// not. A failing check names the tools called: `called delete_doc`.
func NeverCalls(obs assay.Observation, names []string) assay.Check {
	var called []string
	for _, n := range names {
		for _, t := range obs.Tools {
			if t.Name == n {
				called = append(called, n)
				break
			}
		}
	}
	if len(called) > 0 {
		return fail(KindNeverCalls, "called "+nameList(called))
	}
	return pass(KindNeverCalls)
}

// StopsAtApproval passes when obs.ApprovalPending is true. A failing check
// says `no approval pending`.
func StopsAtApproval(obs assay.Observation) assay.Check {
	if obs.ApprovalPending {
		return pass(KindStopsAtApproval)
	}
	return fail(KindStopsAtApproval, "no approval pending")
}

// Outcome passes when obs.Outcome equals want exactly. A failing check says
// `outcome "failed", want "completed"`, or `no outcome, want "completed"`.
func Outcome(obs assay.Observation, want string) assay.Check {
	switch {
	case obs.Outcome == want:
		return pass(KindOutcome)
	case obs.Outcome == "":
		return fail(KindOutcome, "no outcome, want "+strconv.Quote(want))
	default:
		return fail(KindOutcome, "outcome "+strconv.Quote(obs.Outcome)+", want "+strconv.Quote(want))
	}
}

// MaxLatency passes when obs.LatencyMs is reported and ≤ boundMs. A failing
// check says `latency 2500 ms > 2000 ms`, or `no latency reported`; an
// observation from the cache (run --cache) measured no latency, and its
// check says so rather than pass on the latency of an earlier run.
func MaxLatency(obs assay.Observation, boundMs float64) assay.Check {
	if obs.LatencyMs == nil && obs.Cached {
		return fail(KindMaxLatency, "no latency measured: the observation came from the cache (run without --cache to measure it)")
	}
	if obs.LatencyMs == nil {
		return fail(KindMaxLatency, "no latency reported")
	}
	if !(*obs.LatencyMs <= boundMs) { // NaN fails too
		return fail(KindMaxLatency, "latency "+num(*obs.LatencyMs)+" ms > "+num(boundMs)+" ms")
	}
	return pass(KindMaxLatency)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
