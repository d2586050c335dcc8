package report

import (
	"bytes"
	"testing"

	"github.com/assay-eval/assay"
)

// judgedRun is sampleRun with a judge's metrics, totals and one case
// failing a judge bound.
func judgedRun() *assay.Run {
	r := sampleRun()
	r.Options.Metrics = append(r.Options.Metrics, "judge.relevance", "judge.groundedness")
	r.Summary.Metrics["judge.relevance"] = assay.MetricAgg{Mean: 0.85, N: 3}
	r.Summary.Metrics["judge.groundedness"] = assay.MetricAgg{Mean: 0.6, N: 3}
	cost := 0.00123
	r.Summary.Judge = &assay.JudgeSummary{
		Model: "grader-1", Prompt: "assay-judge/v1", Judged: 3, NotJudged: 2, Errors: 1, Cached: 1,
		Budget: "max_calls 3 reached", Breaker: "5 requests in a row failed (the last: POST http://127.0.0.1:9/v1/chat/completions: 502 Bad Gateway)", Calls: 3, PromptTokens: 812, CompletionTokens: 96, Cost: &cost,
		Repeats: 2, Spread: map[string]float64{"relevance": 0.1, "groundedness": 0.3},
		Agreement: map[string]float64{"relevance": 0.9, "groundedness": 0.7},
		Unstable:  []string{"q002"}, UnstableCases: 1,
		PartlyJudged: 1,
		Probes: []assay.JudgeProbe{
			{Probe: "position", Criterion: "groundedness", N: 3, Effect: -0.02, Lo: -0.05, Hi: 0.01, Threshold: 0.1},
			{Probe: "verbosity", Criterion: "relevance", N: 3, Effect: 0.15, Lo: 0.1, Hi: 0.2, Threshold: 0.1, Flagged: true},
		},
	}
	for i := range r.Cases {
		c := &r.Cases[i]
		if c.Pass != nil && !*c.Pass {
			c.Checks = append(c.Checks, assay.Check{Kind: "judge.groundedness", Detail: "score 0.4 < 0.8: the answer cites nothing"})
			break
		}
	}
	return r
}

// TestJudgeRenderersGolden: the text, markdown and JSON reports show the
// judge's totals (model, judged / not judged / errors / cached, budget,
// usage and cost, agreement, unstable cases, results judged without the
// passage criteria, the probes' effects, one flagged), its metrics with n,
// and a failed judge bound as a case's fact.
func TestJudgeRenderersGolden(t *testing.T) {
	t.Parallel()
	r := judgedRun()
	var text, md, js bytes.Buffer
	if err := Text(&text, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestJudgeText.golden.txt", text.Bytes())
	if err := Markdown(&md, r, nil); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestJudgeMarkdown.golden.md", md.Bytes())
	if err := JSON(&js, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestJudgeJSON.golden.json", js.Bytes())
}
