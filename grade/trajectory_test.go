package grade

import (
	"testing"

	"github.com/assay-eval/assay"
)

func calls(cs ...assay.ToolCall) assay.Observation { return assay.Observation{Tools: cs} }

func call(name, args string) assay.ToolCall {
	return assay.ToolCall{Name: name, Args: assay.RawJSON(args)}
}

func TestTrajectoryModes(t *testing.T) {
	searchRefund := assay.ExpectedCall{Name: "search", ArgsMatch: assay.ArgsSuperset, ArgsRegex: map[string]string{"q": "(?i)refund"}}
	getDoc := assay.ExpectedCall{Name: "get_doc", Args: map[string]any{"id": "refunds"}}
	made := calls(call("search", `{"q":"Refund policy","k":3}`), call("get_doc", `{"id":"refunds"}`))
	swapped := calls(call("get_doc", `{"id":"refunds"}`), call("search", `{"q":"refund"}`))
	extra := calls(call("search", `{"q":"refund"}`), call("get_doc", `{"id":"refunds"}`), call("get_doc", `{"id":"d7"}`))
	tests := []struct {
		name   string
		obs    assay.Observation
		want   assay.ToolTrajectory
		detail string // "" passes
	}{
		{"strict passes on the same calls in order", made, assay.ToolTrajectory{Calls: []assay.ExpectedCall{searchRefund, getDoc}}, ""},
		{"strict fails on another order", swapped, assay.ToolTrajectory{Mode: "strict", Calls: []assay.ExpectedCall{searchRefund, getDoc}},
			"call 1: expected search(q≈'(?i)refund'), got get_doc(id='refunds')"},
		{"strict fails on a missing call", calls(call("search", `{"q":"refund"}`)), assay.ToolTrajectory{Calls: []assay.ExpectedCall{searchRefund, getDoc}},
			"call 2: expected get_doc(id='refunds'), got no call (1 call made)"},
		{"strict fails on an extra call", extra, assay.ToolTrajectory{Calls: []assay.ExpectedCall{searchRefund, getDoc}},
			"call 3: unexpected get_doc(id='d7') (2 calls expected)"},
		{"strict with no call expected fails on a call", made, assay.ToolTrajectory{Calls: []assay.ExpectedCall{}},
			"call 1: unexpected search(k=3, q='Refund policy') (0 calls expected)"},
		{"unordered passes on another order", swapped, assay.ToolTrajectory{Mode: "unordered", Calls: []assay.ExpectedCall{searchRefund, getDoc}}, ""},
		{"unordered fails on an extra call", extra, assay.ToolTrajectory{Mode: "unordered", Calls: []assay.ExpectedCall{searchRefund, getDoc}},
			"call 3: unexpected get_doc(id='d7') (not among the expected calls)"},
		{"unordered fails on other arguments", calls(call("get_doc", `{"id":"x"}`), call("search", `{"q":"refund"}`)),
			assay.ToolTrajectory{Mode: "unordered", Calls: []assay.ExpectedCall{searchRefund, getDoc}},
			"call 1: expected get_doc(id='refunds'), got get_doc(id='x')"},
		{"subset passes when fewer calls are made", calls(call("get_doc", `{"id":"refunds"}`)),
			assay.ToolTrajectory{Mode: "subset", Calls: []assay.ExpectedCall{searchRefund, getDoc}}, ""},
		{"subset fails on a call not expected", extra, assay.ToolTrajectory{Mode: "subset", Calls: []assay.ExpectedCall{searchRefund, getDoc}},
			"call 3: unexpected get_doc(id='d7') (not among the expected calls)"},
		{"superset passes with more calls", extra, assay.ToolTrajectory{Mode: "superset", Calls: []assay.ExpectedCall{getDoc}}, ""},
		{"superset fails on a call not made", calls(call("search", `{"q":"refund"}`)),
			assay.ToolTrajectory{Mode: "superset", Calls: []assay.ExpectedCall{getDoc}},
			"expected get_doc(id='refunds'), not called (calls: search)"},
		{"superset fails on no call", calls(), assay.ToolTrajectory{Mode: "superset", Calls: []assay.ExpectedCall{getDoc}},
			"expected get_doc(id='refunds'), got no call"},
		{"a matching spends each call once", calls(call("get_doc", `{"id":"refunds"}`)),
			assay.ToolTrajectory{Mode: "superset", Calls: []assay.ExpectedCall{getDoc, getDoc}},
			"expected get_doc(id='refunds') once more, not called (calls: get_doc)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := Trajectory(tt.obs, tt.want)
			if ch.Kind != KindTools {
				t.Fatalf("kind %q", ch.Kind)
			}
			if tt.detail == "" {
				if !ch.Pass {
					t.Fatalf("failed: %s", ch.Detail)
				}
				return
			}
			if ch.Pass || ch.Detail != tt.detail {
				t.Fatalf("got pass=%v %q\nwant fail %q", ch.Pass, ch.Detail, tt.detail)
			}
		})
	}
}

func TestTrajectoryArgsModes(t *testing.T) {
	got := call("search", `{"q":"refund","k":3}`)
	tests := []struct {
		name string
		e    assay.ExpectedCall
		mode string
		want bool
	}{
		{"exact passes on the same arguments", assay.ExpectedCall{Name: "search", Args: map[string]any{"q": "refund", "k": 3.0}}, "", true},
		{"exact fails on a missing argument", assay.ExpectedCall{Name: "search", Args: map[string]any{"q": "refund"}}, assay.ArgsExact, false},
		{"exact fails on another value", assay.ExpectedCall{Name: "search", Args: map[string]any{"q": "refunds", "k": 3.0}}, assay.ArgsExact, false},
		{"exact fails on a call stating none", assay.ExpectedCall{Name: "search"}, assay.ArgsExact, false},
		{"ignore passes on any arguments", assay.ExpectedCall{Name: "search", Args: map[string]any{"z": 1.0}}, assay.ArgsIgnore, true},
		{"ignore fails on another tool", assay.ExpectedCall{Name: "get_doc"}, assay.ArgsIgnore, false},
		{"superset passes when the call has more", assay.ExpectedCall{Name: "search", Args: map[string]any{"q": "refund"}}, assay.ArgsSuperset, true},
		{"superset fails when an expected one is missing", assay.ExpectedCall{Name: "search", Args: map[string]any{"lang": "en"}}, assay.ArgsSuperset, false},
		{"subset passes when the call has fewer", assay.ExpectedCall{Name: "search", Args: map[string]any{"q": "refund", "k": 3.0, "lang": "en"}}, assay.ArgsSubset, true},
		{"subset fails when the call has more", assay.ExpectedCall{Name: "search", Args: map[string]any{"q": "refund"}}, assay.ArgsSubset, false},
		{"the call's mode wins", assay.ExpectedCall{Name: "search", ArgsMatch: assay.ArgsIgnore}, assay.ArgsExact, true},
		{"regex passes on a match, exact on the rest", assay.ExpectedCall{Name: "search", Args: map[string]any{"k": 3.0}, ArgsRegex: map[string]string{"q": "^ref"}}, assay.ArgsExact, true},
		{"regex fails on no match", assay.ExpectedCall{Name: "search", ArgsRegex: map[string]string{"q": "^x"}}, assay.ArgsIgnore, false},
		{"regex fails on a missing argument", assay.ExpectedCall{Name: "search", ArgsRegex: map[string]string{"lang": "."}}, assay.ArgsIgnore, false},
		{"regex reads a number as its JSON text", assay.ExpectedCall{Name: "search", ArgsRegex: map[string]string{"k": "^[0-9]$"}}, assay.ArgsIgnore, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if g := callMatches(tt.e, got, tt.mode); g != tt.want {
				t.Fatalf("callMatches = %v, want %v", g, tt.want)
			}
		})
	}
	t.Run("arguments as an OpenAI JSON string", func(t *testing.T) {
		c := call("search", `"{\"q\":\"refund\"}"`)
		if !callMatches(assay.ExpectedCall{Name: "search", Args: map[string]any{"q": "refund"}}, c, "") {
			t.Fatal("a JSON string holding the arguments did not match")
		}
	})
	t.Run("arguments that are not an object match only ignore", func(t *testing.T) {
		c := call("search", `[1,2]`)
		if callMatches(assay.ExpectedCall{Name: "search"}, c, "") || !callMatches(assay.ExpectedCall{Name: "search"}, c, assay.ArgsIgnore) {
			t.Fatal("non-object arguments")
		}
	})
}

func TestTrajectoryInChecks(t *testing.T) {
	c := assay.Case{ID: "a", Query: "q", Expect: assay.Expect{Tools: &assay.ToolTrajectory{Calls: []assay.ExpectedCall{{Name: "search", ArgsMatch: assay.ArgsIgnore}}}}}
	r := Case(c, calls(call("search", `{}`)), Options{})
	if !r.Passed() || len(r.Checks) != 1 || r.Checks[0].Kind != KindTools {
		t.Fatalf("passing trajectory: %+v", r.Checks)
	}
	r = Case(c, calls(), Options{})
	if r.Passed() {
		t.Fatal("a trajectory not followed passed")
	}
	if err := CheckTrajectory(&assay.ToolTrajectory{Mode: "loose"}); err == nil {
		t.Fatal("unknown mode accepted")
	}
	if err := CheckTrajectory(&assay.ToolTrajectory{Calls: []assay.ExpectedCall{{Name: "s", ArgsRegex: map[string]string{"q": "("}}}}); err == nil {
		t.Fatal("bad regexp accepted")
	}
}
