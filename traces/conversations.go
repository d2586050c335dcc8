package traces

import (
	"cmp"
	"slices"
	"time"
)

// GroupConversations makes the observations that share a session (their
// provenance's Session: session.id, gen_ai.conversation.id or Langfuse's
// session) the turns of one conversation case: each gets the session id
// as its case and its 1-based turn number, in the order of the root spans'
// start times (then the order read). A replay file so grouped answers a
// suite whose case, named by the session id, states `turns:`. Observations
// without a session keep their case (the trace id). The report's Found
// lines follow.
func GroupConversations(res *Result) {
	type at struct {
		i int
		t time.Time
	}
	sessions := map[string][]at{}
	var order []string
	for i, o := range res.Observations {
		s := ""
		if o.Provenance != nil {
			s = o.Provenance.Session
		}
		if s == "" {
			continue
		}
		if _, ok := sessions[s]; !ok {
			order = append(order, s)
		}
		t, _ := time.Parse(time.RFC3339Nano, o.Provenance.Time)
		sessions[s] = append(sessions[s], at{i, t})
	}
	for _, s := range order {
		turns := sessions[s]
		slices.SortStableFunc(turns, func(a, b at) int { return cmp.Compare(a.t.UnixNano(), b.t.UnixNano()) })
		for n, a := range turns {
			res.Observations[a.i].Case = s
			res.Observations[a.i].Turn = n + 1
			if a.i < len(res.Found) {
				res.Found[a.i].Case = s
				res.Found[a.i].Turn = n + 1
			}
		}
	}
}
