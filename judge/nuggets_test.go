package judge_test

import (
	"context"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/cache"
	grading "github.com/assay-eval/assay/grade"
	"github.com/assay-eval/assay/judge"
	"github.com/assay-eval/assay/llm"
	"github.com/assay-eval/assay/llm/llmtest"
)

// nuggetCase is a case with a nugget a rule finds, one the judge is to
// assign, and one left to the rules.
func nuggetCase(answer string) (assay.Case, *assay.Observation, *assay.CaseResult) {
	c := assay.Case{ID: "n1", Query: "How long are results cached?", Expect: assay.Expect{Nuggets: []assay.Nugget{
		{Text: "one day", Importance: assay.NuggetVital, Assign: assay.NuggetAssignJudge},
		{Text: "cached for a day", Importance: assay.NuggetVital, Assign: assay.NuggetAssignJudge},
		{Text: "in memory", Importance: assay.NuggetOkay},
	}}}
	obs := &assay.Observation{Case: "n1", Answer: answer}
	o, _ := grading.NewOptions(&assay.Suite{})
	r := grading.Case(c, *obs, o)
	return c, obs, &r
}

func TestAssignNuggets(t *testing.T) {
	srv := standIn(t)
	c, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"asked", "cached"} {
		j := newJudge(t, config(srv.URL), judge.Options{Cache: c})
		cs, obs, r := nuggetCase("Kept for one day, until tomorrow. [nuggets:partial_support]")
		if !j.AssignNuggets(context.Background(), cs, obs, r) {
			t.Fatalf("%s: nothing assigned", run)
		}
		grading.ScoreNuggets(r, false)
		want := []struct{ a, by string }{{"support", "rule"}, {"partial_support", "judge"}, {"not_support", "rule"}}
		for i, w := range want {
			if n := r.Nuggets[i]; n.Assignment != w.a || n.By != w.by {
				t.Errorf("%s: nugget %d = %s by %s, want %s by %s", run, i, n.Assignment, n.By, w.a, w.by)
			}
		}
		if !strings.Contains(r.Nuggets[1].Reason, "[nuggets:partial_support]") {
			t.Errorf("%s: reason %q", run, r.Nuggets[1].Reason)
		}
		if v := r.Metrics[assay.MetricNuggetVital]; v != 0.75 {
			t.Errorf("%s: nugget_vital = %v, want 0.75", run, v)
		}
		if n := srv.Count(llmtest.ChatPath); n != 1 {
			t.Errorf("%s: %d requests, want 1 (the second run reads the cache)", run, n)
		}
	}
}

// A reply that is not one assignment per nugget, each a known value, is
// a judge error on the case and changes nothing.
func TestAssignNuggetsBadReply(t *testing.T) {
	for _, reply := range []string{
		`{"assignments": ["maybe"], "reasoning": "x"}`,
		`{"assignments": ["support", "support", "support"], "reasoning": "x"}`,
		`I think it is supported.`,
	} {
		srv := llmtest.New(t, llmtest.Handlers{Chat: func(llmtest.ChatRequest) (string, llm.Usage) { return reply, llm.Usage{} }})
		j := newJudge(t, config(srv.URL), judge.Options{})
		c, obs, r := nuggetCase("Kept until tomorrow.")
		if j.AssignNuggets(context.Background(), c, obs, r) {
			t.Errorf("%s: assigned", reply)
		}
		if r.Judge == nil || r.Judge.Error == nil || r.Judge.Error.Class != assay.ErrJudge {
			t.Errorf("%s: judge error %+v, want class judge", reply, r.Judge)
		}
		for _, n := range r.Nuggets {
			if n.By != assay.NuggetByRule {
				t.Errorf("%s: nugget %q by %s", reply, n.Text, n.By)
			}
		}
	}
}

// Nothing is asked when no nugget asks for the judge, or the rules found
// them all, or the target failed.
func TestAssignNuggetsNothingToAsk(t *testing.T) {
	srv := standIn(t)
	j := newJudge(t, config(srv.URL), judge.Options{})
	c, obs, r := nuggetCase("Kept for one day: results are cached for a day.")
	if j.AssignNuggets(context.Background(), c, obs, r) {
		t.Error("assigned nuggets the rules found")
	}
	c, obs, r = nuggetCase("x")
	r.Error = &assay.Error{Class: assay.ErrTimeout, Message: "slow"}
	if j.AssignNuggets(context.Background(), c, obs, r) {
		t.Error("assigned the nuggets of a failed observation")
	}
	if n := srv.Count(llmtest.ChatPath); n != 0 {
		t.Errorf("%d requests, want none", n)
	}
}
