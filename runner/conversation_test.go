package runner

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/assay-eval/assay"
)

// TestRunConversationSendsTheHistoryAndGoesOnAfterAFailedTurn runs a
// conversation whose second turn errors: each turn gets the history so
// far (the errored turn's message without an answer), every turn is sent,
// and the conversation fails at turn 2 with the turns after it graded.
func TestRunConversationSendsTheHistoryAndGoesOnAfterAFailedTurn(t *testing.T) {
	var mu sync.Mutex
	var got []string
	tgt := assay.TargetFunc(func(ctx context.Context, c assay.Case) (assay.Observation, error) {
		var h []string
		for _, m := range c.History {
			h = append(h, m.Role+":"+m.Content)
		}
		mu.Lock()
		got = append(got, c.ID+" turn "+string(rune('0'+c.Turn))+" ["+strings.Join(h, " | ")+"] "+c.Query)
		mu.Unlock()
		if c.Query == "boom" {
			return assay.Observation{}, assay.Errorf(assay.ErrHTTPStatus, "500")
		}
		return assay.Observation{Answer: "re " + c.Query, Tools: []assay.ToolCall{{Name: "t" + c.Query}}}, nil
	})
	conv := assay.Case{ID: "c", Turns: []assay.Turn{
		{Query: "a", Expect: assay.Expect{AnswerIncludes: []string{"re a"}}},
		{Query: "boom"},
		{Query: "b", Expect: assay.Expect{AnswerIncludes: []string{"re b"}}},
	}, Expect: assay.Expect{CallsTool: []string{"ta", "tb"}}}
	var recorded []assay.CaseResult
	res, err := Run(context.Background(), tgt, []assay.Case{conv}, Options{Concurrency: 2, OnResult: func(c assay.Case, r assay.CaseResult) error {
		recorded = append(recorded, r)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"c turn 1 [] a",
		"c turn 2 [user:a | assistant:re a] boom",
		"c turn 3 [user:a | assistant:re a | user:boom] b",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the target saw\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	r := res.Results[0]
	if r.Passed() || r.FailedTurn != 2 || r.Error == nil || len(r.Turns) != 3 {
		t.Fatalf("pass=%v failed_turn=%d error=%v turns=%d", r.Pass, r.FailedTurn, r.Error, len(r.Turns))
	}
	if !r.Turns[2].Passed() || !r.Turns[0].Passed() {
		t.Fatalf("turns 1 and 3 should pass: %+v", r.Turns)
	}
	if len(r.Checks) != 1 || !r.Checks[0].Pass {
		t.Fatalf("calls_tool over every turn: %+v", r.Checks)
	}
	// Results keep no observation; OnResult sees each turn's, with its turn.
	if r.Observation != nil || r.Turns[0].Observation != nil {
		t.Fatal("Run kept an observation")
	}
	o := recorded[0].Turns[2].Observation
	if o == nil || o.Turn != 3 || o.Case != "c" || o.Answer != "re b" {
		t.Fatalf("turn 3's observation: %+v", o)
	}
}
