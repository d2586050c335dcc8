package grade

import (
	"math"
	"testing"

	"github.com/assay-eval/assay"
)

func ptr[T any](v T) *T { return &v }

func TestRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		obs     assay.Observation
		markers []string
		want    bool
	}{
		{"reported true wins over answer", assay.Observation{Refused: ptr(true), Answer: "Here it is"}, nil, true},
		{"reported false wins over marker", assay.Observation{Refused: ptr(false), Answer: "I cannot answer"}, nil, false},
		{"default marker, other case", assay.Observation{Answer: "The documents Do Not Contain that."}, nil, true},
		{"no marker", assay.Observation{Answer: "SHA-256."}, nil, false},
		{"custom markers replace defaults", assay.Observation{Answer: "I cannot answer"}, []string{"unknown"}, false},
		{"custom marker hit", assay.Observation{Answer: "That is UNKNOWN to me"}, []string{"unknown"}, true},
		{"empty list means no markers", assay.Observation{Answer: "no information"}, []string{}, false},
		{"empty marker ignored", assay.Observation{Answer: "fine"}, []string{""}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Refused(tt.obs, tt.markers); got != tt.want {
				t.Errorf("Refused = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRefusal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		obs    assay.Observation
		want   bool
		pass   bool
		detail string
	}{
		{"must refuse and did (marker)", assay.Observation{Answer: "I cannot answer that"}, true, true, ""},
		{"must refuse and did (field)", assay.Observation{Refused: ptr(true)}, true, true, ""},
		{"must refuse, answered", assay.Observation{Answer: "It is 42"}, true, false, "not refused"},
		{"must answer, refused", assay.Observation{Answer: "I don't know about it"}, false, false, "refused"},
		{"must answer and did", assay.Observation{Answer: "It is 42"}, false, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkEq(t, Refusal(tt.obs, tt.want, nil), "refusal", tt.pass, tt.detail)
		})
	}
}

func tools(calls ...assay.ToolCall) assay.Observation { return assay.Observation{Tools: calls} }

func TestCallsTool(t *testing.T) {
	t.Parallel()
	ok := func(n string) assay.ToolCall { return assay.ToolCall{Name: n} }
	bad := func(n, e string) assay.ToolCall { return assay.ToolCall{Name: n, Error: e} }
	tests := []struct {
		name   string
		obs    assay.Observation
		want   []string
		pass   bool
		detail string
	}{
		{"called", tools(ok("search"), ok("get")), []string{"search", "get"}, true, ""},
		{"errored then fine", tools(bad("search", "429"), ok("search")), []string{"search"}, true, ""},
		{"only errored", tools(bad("get", "404 not found"), bad("get", "500")), []string{"get"}, false, "get errored: 404 not found"},
		{"never called", tools(ok("get")), []string{"search"}, false, "not called search"},
		{"both facts", tools(bad("get", "boom")), []string{"search", "get"}, false, "not called search; get errored: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkEq(t, CallsTool(tt.obs, tt.want), "calls_tool", tt.pass, tt.detail)
		})
	}
}

func TestCallsAnyTool(t *testing.T) {
	t.Parallel()
	checkEq(t, CallsAnyTool(tools(assay.ToolCall{Name: "x", Error: "e"}, assay.ToolCall{Name: "y"})), "calls_any_tool", true, "")
	checkEq(t, CallsAnyTool(tools()), "calls_any_tool", false, "no tool called")
	checkEq(t, CallsAnyTool(tools(assay.ToolCall{Name: "x", Error: "e"})), "calls_any_tool", false, "every call errored (1 call)")
	checkEq(t, CallsAnyTool(tools(assay.ToolCall{Name: "x", Error: "e"}, assay.ToolCall{Name: "x", Error: "f"})), "calls_any_tool", false, "every call errored (2 calls)")
}

func TestNeverCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		obs    assay.Observation
		banned []string
		pass   bool
		detail string
	}{
		{"not called", tools(assay.ToolCall{Name: "search"}), []string{"delete_doc"}, true, ""},
		{"called", tools(assay.ToolCall{Name: "delete_doc"}), []string{"delete_doc"}, false, "called delete_doc"},
		{"errored call counts", tools(assay.ToolCall{Name: "delete_doc", Error: "denied"}), []string{"delete_doc"}, false, "called delete_doc"},
		{"two called once each named once", tools(assay.ToolCall{Name: "b"}, assay.ToolCall{Name: "a"}, assay.ToolCall{Name: "a"}), []string{"a", "b", "c"}, false, "called a, b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkEq(t, NeverCalls(tt.obs, tt.banned), "never_calls", tt.pass, tt.detail)
		})
	}
}

func TestStopsAtApproval(t *testing.T) {
	t.Parallel()
	checkEq(t, StopsAtApproval(assay.Observation{ApprovalPending: true}), "stops_at_approval", true, "")
	checkEq(t, StopsAtApproval(assay.Observation{}), "stops_at_approval", false, "no approval pending")
}

func TestOutcome(t *testing.T) {
	t.Parallel()
	checkEq(t, Outcome(assay.Observation{Outcome: "completed"}, "completed"), "outcome", true, "")
	checkEq(t, Outcome(assay.Observation{Outcome: "failed"}, "completed"), "outcome", false, `outcome "failed", want "completed"`)
	checkEq(t, Outcome(assay.Observation{Outcome: "Completed"}, "completed"), "outcome", false, `outcome "Completed", want "completed"`)
	checkEq(t, Outcome(assay.Observation{}, "completed"), "outcome", false, `no outcome, want "completed"`)
}

func TestMaxLatency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		latency *float64
		bound   float64
		pass    bool
		detail  string
	}{
		{"under", ptr(12.5), 2000, true, ""},
		{"equal passes", ptr(2000.0), 2000, true, ""},
		{"over", ptr(2500.0), 2000, false, "latency 2500 ms > 2000 ms"},
		{"fractional", ptr(100.25), 100, false, "latency 100.25 ms > 100 ms"},
		{"missing", nil, 2000, false, "no latency reported"},
		{"nan fails", ptr(math.NaN()), 2000, false, "latency NaN ms > 2000 ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkEq(t, MaxLatency(assay.Observation{LatencyMs: tt.latency}, tt.bound), "max_latency_ms", tt.pass, tt.detail)
		})
	}
	t.Run("cached fails on no latency, not the original one", func(t *testing.T) {
		obs := assay.Observation{Cached: true, OriginalLatencyMs: ptr(12.5)}
		checkEq(t, MaxLatency(obs, 2000), "max_latency_ms", false, "no latency measured: the observation came from the cache (run without --cache to measure it)")
	})
}
