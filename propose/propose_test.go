package propose_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/propose"
	"github.com/assay-eval/assay/redact"
)

func obs(id, service, query string, mod func(*assay.Observation)) assay.Observation {
	ms := 100.0
	o := assay.Observation{Case: id, Retrieved: []assay.Hit{{ID: "a.md"}}, Answer: "an answer", LatencyMs: &ms,
		Provenance: &assay.Provenance{Service: service, Query: query, TraceID: id}}
	if mod != nil {
		mod(&o)
	}
	return o
}

func ids(cs []assay.Case) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func f(v float64) *float64 { return &v }

func TestReasons(t *testing.T) {
	t.Parallel()
	in := []assay.Observation{
		obs("fb", "s", "q fb", func(o *assay.Observation) { o.Provenance.Feedback = &assay.Feedback{Score: f(0.2)} }),
		obs("fbok", "s", "q fbok", func(o *assay.Observation) { o.Provenance.Feedback = &assay.Feedback{Score: f(0.9)} }),
		obs("eval", "s", "q eval", func(o *assay.Observation) { o.Provenance.Evaluations = []assay.Evaluation{{Name: "x", Score: f(0.1)}} }),
		obs("ref", "s", "q ref", func(o *assay.Observation) { o.Answer = "I don't know." }),
		obs("empty", "s", "q empty", func(o *assay.Observation) { o.Retrieved = nil }),
		obs("tool", "s", "q tool", func(o *assay.Observation) { o.Tools = []assay.ToolCall{{Name: "t", Error: "boom"}} }),
		obs("err", "s", "q err", func(o *assay.Observation) { o.Provenance.Status = "error" }),
		obs("slow", "s", "q slow", func(o *assay.Observation) { o.LatencyMs = f(20000) }),
		obs("runfail", "s", "q runfail", nil),
		obs("judge", "s", "q judge", nil),
		obs("fine", "s", "q fine", nil),
	}
	no, yes := false, true
	run := &assay.Run{Cases: []assay.CaseResult{
		{ID: "runfail", Pass: &no},
		{ID: "judge", Pass: &yes, Judge: &assay.JudgeResult{Scores: []assay.JudgeScore{{Criterion: "c", Score: 0.3}}}},
		{ID: "fine", Pass: &yes},
	}}
	res, err := propose.Propose(in, propose.Options{Run: run})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"fb": "negative_feedback", "eval": "low_judge_score", "ref": "refusal", "empty": "empty_ranking",
		"tool": "tool_error", "err": "error", "slow": "slow", "runfail": "failed", "judge": "low_judge_score"}
	got := map[string]string{}
	for _, c := range res.Cases {
		got[c.ID] = c.Tags["reason"]
		if c.Review != assay.ReviewPending || c.Provenance["trace_id"] != c.ID || c.Provenance["reason"] != c.Tags["reason"] {
			t.Errorf("case %s: review %q provenance %v", c.ID, c.Review, c.Provenance)
		}
	}
	for id, r := range want {
		if got[id] != r {
			t.Errorf("%s: reason %q, want %q", id, got[id], r)
		}
	}
	if len(got) != len(want) {
		t.Errorf("picked %v, want only %v", got, want)
	}
	// A tighter threshold makes the 0.9 score negative too; SlowMs a slower bound.
	res, _ = propose.Propose(in, propose.Options{FeedbackBelow: 0.95, SlowMs: 30000, Only: []string{"negative_feedback", "slow"}})
	if got := ids(res.Cases); !slices.Equal(got, []string{"fb", "fbok"}) {
		t.Errorf("with --feedback-below 0.95 --slow-ms 30000: %v, want [fb fbok]", got)
	}
}

func TestDuplicatesAndExisting(t *testing.T) {
	t.Parallel()
	neg := func(o *assay.Observation) { o.Provenance.Feedback = &assay.Feedback{Label: "thumbs_down"} }
	in := []assay.Observation{
		obs("t1", "s", "Mail me at a@example.com: why?", neg),
		obs("t2", "s", "mail me at b@example.org -- WHY", func(o *assay.Observation) { neg(o); o.Retrieved = nil }),
		obs("t3", "s", "How do I reset my password?", neg),
		obs("t4", "s", "Different question", neg),
	}
	res, err := propose.Propose(in, propose.Options{Existing: []assay.Case{{ID: "g", Query: "how do I reset my password"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(res.Cases); !slices.Equal(got, []string{"t1", "t4"}) {
		t.Fatalf("cases %v, want [t1 t4]", got)
	}
	if res.Duplicates != 1 || res.Existing != 1 {
		t.Errorf("duplicates %d existing %d, want 1 and 1", res.Duplicates, res.Existing)
	}
	c := res.Cases[0]
	if c.Query != "Mail me at [email]: why?" || c.Provenance["duplicates"] != "1" || c.Tags["reason"] != "negative_feedback,empty_ranking" {
		t.Errorf("kept case %+v: want the PII out, one duplicate and both reasons", c)
	}
	// Keeping e-mail addresses makes the two questions differ.
	res, _ = propose.Propose(in, propose.Options{PII: redact.PII{Keep: []string{"email"}}})
	if res.Duplicates != 0 || !strings.Contains(res.Cases[0].Query, "a@example.com") {
		t.Errorf("with e-mail kept: %d duplicates, query %q", res.Duplicates, res.Cases[0].Query)
	}
}

func TestSampleIsStratifiedAndFixed(t *testing.T) {
	t.Parallel()
	var in []assay.Observation
	for _, s := range []string{"a", "a", "a", "a", "b", "c"} {
		id := s + string(rune('0'+len(in)))
		in = append(in, obs(id, s, "q "+id, nil))
	}
	res, err := propose.Propose(in, propose.Options{Sample: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var strata []string
	for _, c := range res.Cases {
		strata = append(strata, c.Tags["service"])
		if c.Tags["reason"] != "sample" {
			t.Errorf("%s: reason %q, want sample", c.ID, c.Tags["reason"])
		}
	}
	slices.Sort(strata)
	if !slices.Equal(strata, []string{"a", "b", "c"}) {
		t.Errorf("strata %v, want one of each service", strata)
	}
	again, _ := propose.Propose(in, propose.Options{Sample: 3, Seed: 1})
	if !slices.Equal(ids(res.Cases), ids(again.Cases)) {
		t.Errorf("the same seed gave %v then %v", ids(res.Cases), ids(again.Cases))
	}
	many, _ := propose.Propose(in, propose.Options{Sample: 100})
	if len(many.Cases) != len(in) {
		t.Errorf("sample 100 of %d gave %d", len(in), len(many.Cases))
	}
}

func TestOptionErrors(t *testing.T) {
	t.Parallel()
	for _, o := range []propose.Options{{Only: []string{"sample"}}, {Only: []string{"x"}}, {Sample: -1}, {PII: redact.PII{Keep: []string{"x"}}}} {
		if _, err := propose.Propose(nil, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	if got := propose.Normalize("  How ARE tokens—hashed??  "); got != "how are tokens hashed" {
		t.Errorf("Normalize = %q", got)
	}
}
