package judge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/judge"
	"github.com/assay-eval/assay/llm"
	"github.com/assay-eval/assay/llm/llmtest"
)

// idsOnly is a graded case whose observation names its passages by id and
// title only, as the built-in target's do.
func idsOnly(id string) (assay.Case, *assay.Observation, *assay.CaseResult) {
	c := assay.Case{ID: id, Query: "Can I bring my dog?", Expect: assay.Expect{Judge: map[string]float64{"groundedness": 0.5, "relevance": 0.5}}}
	obs := &assay.Observation{Case: id, Answer: "Dogs travel in the cabin. [judge:0.9]",
		Retrieved: []assay.Hit{{ID: "en/pets.md", Title: "Travelling with pets"}, {ID: "en/bags.md", Title: "Bags"}}}
	return c, obs, &assay.CaseResult{ID: id, Checks: []assay.Check{}}
}

// TestPassagesComeFromTheCorpus: a passage the observation has no text
// for is sent with the corpus's text, cut to MaxPassage characters with
// the cut marked, and groundedness is judged on it.
func TestPassagesComeFromTheCorpus(t *testing.T) {
	srv := standIn(t)
	long := "Bags up to 8 kg ride in the cabin. " + strings.Repeat("More rules about bags. ", 100)
	corpus := []assay.Document{
		{ID: "en/pets.md", Title: "Travelling with pets", Text: "Small dogs travel in the cabin in a carrier."},
		{ID: "en/bags.md", Title: "Bags", Text: long},
	}
	j := newJudge(t, config(srv.URL), judge.Options{Corpus: corpus})
	c, obs, r := idsOnly("q1")
	j.Grade(context.Background(), c, obs, nil, r)
	if !r.Judge.Judged() || len(r.Judge.Scores) != 3 || r.Judge.CriteriaNotJudged != nil || !r.Passed() {
		t.Fatalf("judge %+v pass %v", r.Judge, r.Passed())
	}
	body := prompt(t, srv.Requests()[0])
	cut := []rune(strings.TrimSpace(long))[:judge.MaxPassage-1]
	for _, want := range []string{"[1] en/pets.md (Travelling with pets)\nSmall dogs travel in the cabin in a carrier.\n", "[2] en/bags.md (Bags)\n" + string(cut) + "…\n", `"groundedness": <0 to 1>`} {
		if !strings.Contains(body, want) {
			t.Errorf("prompt lacks %q:\n%s", want, body)
		}
	}
	if obs.Retrieved[0].Text != "" {
		t.Errorf("the observation was changed: %+v", obs.Retrieved[0])
	}
}

// TestNoPassageTextIsNeverJudgedOnTitles: with no text in the observation
// or the corpus, groundedness is not asked (its bound fails, saying why)
// while the other criteria are scored; a rubric of passage criteria only
// is not judged at all, and sends nothing.
func TestNoPassageTextIsNeverJudgedOnTitles(t *testing.T) {
	srv := standIn(t)
	j := newJudge(t, config(srv.URL), judge.Options{Corpus: []assay.Document{{ID: "en/pets.md", Text: "Small dogs travel in the cabin."}}})
	c, obs, r := idsOnly("q1")
	j.Grade(context.Background(), c, obs, nil, r)
	why := r.Judge.CriteriaNotJudged["groundedness"]
	if !strings.HasPrefix(why, "no passage text: 1 of 2 passages") || !strings.Contains(why, "[2] en/bags.md") {
		t.Fatalf("criteria not judged %v", r.Judge.CriteriaNotJudged)
	}
	if _, ok := r.Metrics["judge.groundedness"]; ok || r.Metrics["judge.relevance"] != 0.9 || len(r.Judge.Scores) != 2 {
		t.Errorf("metrics %v scores %+v", r.Metrics, r.Judge.Scores)
	}
	if r.Passed() || r.Checks[0].Kind != "judge.groundedness" || r.Checks[0].Detail != "not judged: "+why || !r.Checks[1].Pass {
		t.Errorf("checks %+v", r.Checks)
	}
	if p := prompt(t, srv.Requests()[0]); strings.Contains(p, "groundedness") {
		t.Errorf("groundedness was asked on titles:\n%s", p)
	}
	tally := j.NewTally(false)
	tally.Add(r)
	if s := tally.Summary(); s.PartlyJudged != 1 || s.Judged != 1 {
		t.Errorf("summary %+v", s)
	}

	cfg := config(srv.URL)
	cfg.Rubric = []assay.JudgeCriterion{{Name: "faithfulness", Min: 1, Max: 5, Passages: true}}
	j = newJudge(t, cfg, judge.Options{})
	c, obs, r = idsOnly("q2")
	j.Grade(context.Background(), c, obs, map[string]float64{"faithfulness": 3}, r)
	if !strings.HasPrefix(r.Judge.NotJudged, "no passage text: 2 of 2 passages") || r.Passed() || srv.Count("") != 1 {
		t.Errorf("judge %+v pass %v, %d requests", r.Judge, r.Passed(), srv.Count(""))
	}
}

// TestProbesMeasureBias: a judge that likes longer answers and its first
// passage is flagged by the verbosity and position probes; asked again it
// agrees with itself (consistency effect 0). Each probe is a request of
// its own, counted with the case's.
func TestProbesMeasureBias(t *testing.T) {
	srv := llmtest.New(t, llmtest.Handlers{Chat: func(req llmtest.ChatRequest) (string, llm.Usage) {
		p := req.Prompt()
		score := 0.5
		if strings.Contains(p, judge.VerbosityPad) {
			score += 0.3
		}
		if i, k := strings.Index(p, "[1] b"), strings.Index(p, "[1] a"); i >= 0 && k < 0 {
			score -= 0.2
		}
		return fmt.Sprintf(`{"relevance": %g, "groundedness": %g, "completeness": %g, "reasoning": "r"}`, score, score, score), llm.Usage{}
	}})
	cfg := config(srv.URL)
	cfg.Probes = []string{"consistency"}
	j := newJudge(t, cfg, judge.Options{Probes: []string{"verbosity", "position"}})
	tally := j.NewTally(false)
	for i := range 12 {
		c := assay.Case{ID: fmt.Sprint("q", i), Query: "q?"}
		obs := &assay.Observation{Answer: fmt.Sprint("answer ", i), Retrieved: []assay.Hit{{ID: "a", Text: "A."}, {ID: "b", Text: "B."}}}
		r := &assay.CaseResult{ID: c.ID}
		j.Grade(context.Background(), c, obs, nil, r)
		if r.Judge.Calls != 4 || len(r.Judge.Probes) != 3 || r.Metrics["judge.relevance"] != 0.5 {
			t.Fatalf("case %d: %+v", i, r.Judge)
		}
		tally.Add(r)
	}
	got := map[string]assay.JudgeProbe{}
	for _, p := range tally.Summary().Probes {
		got[p.Probe+"/"+p.Criterion] = p
	}
	for key, want := range map[string]float64{"position/groundedness": -0.2, "verbosity/relevance": 0.3, "consistency/completeness": 0} {
		p := got[key]
		if p.N != 12 || !near(p.Effect, want) || !near(p.Lo, want) || !near(p.Hi, want) || p.Flagged != (want != 0) || p.Threshold != 0.1 {
			t.Errorf("%s: %+v, want effect %v", key, p, want)
		}
	}
	if len(got) != 9 {
		t.Errorf("%d probe effects, want 3 probes x 3 criteria", len(got))
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// prompt is the messages of a request the stand-in received.
func prompt(t *testing.T, r llmtest.Request) string {
	t.Helper()
	var req llmtest.ChatRequest
	if err := json.Unmarshal(r.Body, &req); err != nil {
		t.Fatal(err)
	}
	return req.Prompt()
}
