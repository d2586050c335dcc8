package grade

import (
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/metric"
)

func conversation() assay.Case {
	return assay.Case{ID: "conv", Tags: map[string]string{"lang": "en"}, Turns: []assay.Turn{
		{Query: "price of pro?", Judgments: map[string]int{"pro": 1}, Expect: assay.Expect{AnswerIncludes: []string{"20"}}},
		{Query: "and team?", Judgments: map[string]int{"team": 1}, Expect: assay.Expect{AnswerIncludes: []string{"50"}}},
		{Query: "thanks"},
	}, Expect: assay.Expect{AnswerIncludes: []string{"welcome"}, CallsTool: []string{"search"}}}
}

func answer(text string, ids ...string) assay.Observation {
	o := assay.Observation{Answer: text, LatencyMs: ptr(10.0)}
	for _, id := range ids {
		o.Retrieved = append(o.Retrieved, assay.Hit{ID: id, Score: 1})
	}
	return o
}

func recallOptions(t *testing.T) Options {
	spec, err := metric.Parse("recall@5")
	if err != nil {
		t.Fatal(err)
	}
	return Options{Metrics: []metric.Spec{spec}, K: 10}
}

func TestConversationPassesWhenEveryTurnAndItsOwnChecksPass(t *testing.T) {
	first := answer("it is 20", "pro")
	first.Tools = []assay.ToolCall{{Name: "search"}}
	r := Conversation(conversation(), []assay.Observation{first, answer("50 it is", "x"), answer("you are welcome")}, recallOptions(t))
	if !r.Passed() || r.FailedTurn != 0 || r.Error != nil {
		t.Fatalf("pass=%v failed_turn=%d error=%v checks=%+v", r.Pass, r.FailedTurn, r.Error, r.Checks)
	}
	if len(r.Turns) != 3 || r.Turns[2].Turn != 3 || r.Turns[2].Pass != nil {
		t.Fatalf("turns: %+v", r.Turns)
	}
	// recall@5 is 1 on turn 1 and 0 on turn 2; turn 3 has no judgments.
	if got := r.Metrics["recall@5"]; got != 0.5 {
		t.Fatalf("recall@5 = %v, want the mean over the two judged turns, 0.5", got)
	}
	if r.LatencyMs == nil || *r.LatencyMs != 30 {
		t.Fatalf("latency = %v, want the sum of the turns', 30", r.LatencyMs)
	}
	if r.Hash == "" || r.Hash == CaseHash(assay.Case{ID: "conv", Expect: conversation().Expect}, recallOptions(t)) {
		t.Fatal("the hash does not cover the turns")
	}
}

func TestConversationFailsAtItsFirstFailingTurnAndGoesOn(t *testing.T) {
	failed := answer("", "pro")
	failed.Error = assay.Errorf(assay.ErrHTTPStatus, "500")
	r := Conversation(conversation(), []assay.Observation{answer("it is 20", "pro"), failed, answer("welcome")}, recallOptions(t))
	if r.Passed() || r.FailedTurn != 2 {
		t.Fatalf("pass=%v failed_turn=%d", r.Pass, r.FailedTurn)
	}
	if r.Error == nil || r.Error.Message != "turn 2: 500" {
		t.Fatalf("error = %v", r.Error)
	}
	if len(r.Turns) != 3 || r.Turns[2].Observation == nil || r.Turns[2].Observation.Answer != "welcome" {
		t.Fatal("the turn after the failing one was not recorded")
	}
	// calls_tool over every turn: none called search.
	var callsTool *assay.Check
	for i := range r.Checks {
		if r.Checks[i].Kind == KindCallsTool {
			callsTool = &r.Checks[i]
		}
	}
	if callsTool == nil || callsTool.Pass {
		t.Fatalf("calls_tool: %+v", r.Checks)
	}
}

func TestConversationToolsOverEveryTurn(t *testing.T) {
	c := conversation()
	c.Expect = assay.Expect{Tools: &assay.ToolTrajectory{Args: assay.ArgsIgnore, Calls: []assay.ExpectedCall{{Name: "search"}, {Name: "get_doc"}}}}
	one, two := answer("20"), answer("50")
	one.Tools = []assay.ToolCall{{Name: "search"}}
	two.Tools = []assay.ToolCall{{Name: "get_doc"}}
	if r := Conversation(c, []assay.Observation{one, two, answer("")}, Options{}); !r.Passed() {
		t.Fatalf("trajectory over the turns: %+v", r.Checks)
	}
	if r := Conversation(c, []assay.Observation{two, one, answer("")}, Options{}); r.Passed() {
		t.Fatal("a trajectory in the wrong order over the turns passed")
	}
}

func TestConversationMaxTurns(t *testing.T) {
	c := conversation()
	c.Turns = []assay.Turn{{Query: "a"}, {Query: "b"}, {Query: "c"}}
	c.Expect = assay.Expect{AnswerIncludes: []string{"done"}, MaxTurns: 2}
	r := Conversation(c, []assay.Observation{answer("no"), answer("done"), answer("no")}, Options{})
	if !r.Passed() || r.Checks[len(r.Checks)-1].Detail != "met at turn 2" {
		t.Fatalf("met at turn 2: %+v", r.Checks)
	}
	r = Conversation(c, []assay.Observation{answer("no"), answer("no"), answer("done")}, Options{})
	if r.Passed() || r.Checks[len(r.Checks)-1].Detail != "met at turn 3, after max_turns 2" {
		t.Fatalf("met at turn 3: %+v", r.Checks)
	}
	r = Conversation(c, []assay.Observation{answer("no"), answer("no"), answer("no")}, Options{})
	if r.Passed() || r.Checks[len(r.Checks)-1].Detail != "not met in 3 turns" {
		t.Fatalf("never met: %+v", r.Checks)
	}
}

func TestHistory(t *testing.T) {
	h := History(nil, "q1", answer("a1"))
	errored := answer("")
	errored.Error = assay.Errorf(assay.ErrTimeout, "x")
	h = History(h, "q2", errored)
	h = History(h, "q3", answer("a3"))
	want := []assay.Message{{Role: "user", Content: "q1"}, {Role: "assistant", Content: "a1"}, {Role: "user", Content: "q2"}, {Role: "user", Content: "q3"}, {Role: "assistant", Content: "a3"}}
	if len(h) != len(want) {
		t.Fatalf("history %+v", h)
	}
	for i := range want {
		if h[i] != want[i] {
			t.Fatalf("message %d: %+v, want %+v", i, h[i], want[i])
		}
	}
}
