package report

import (
	"bytes"
	"testing"

	"github.com/assay-eval/assay"
)

// TestCaseDetail pins the whole-case view of runs show --case: ranking
// with judgment grades, citations marked surfaced or not, tool calls,
// checks, spans.
func TestCaseDetail(t *testing.T) {
	t.Parallel()
	v := CaseView{
		Query:     "How are invitation tokens hashed?",
		Judgments: map[string]int{"security.md": 3, "adr-12.md": 1, "old.md": 0},
		Result: assay.CaseResult{
			ID: "q001", Pass: ptr(false), LatencyMs: ptr(123.4),
			Tags:     map[string]string{"lang": "en", "category": "factual"},
			Refused:  false,
			Checks:   []assay.Check{{Kind: "answer_includes", Pass: true}, {Kind: "cites_only_surfaced", Pass: false, Detail: "unsurfaced docs/x.md"}},
			Metrics:  map[string]float64{"ndcg@10": 0.71, "recall@5": 0.5},
			TopScore: ptr(12.3),
			Observation: &assay.Observation{
				Case:      "q001",
				Retrieved: []assay.Hit{{ID: "security.md", Score: 12.3, Title: "Security"}, {ID: "faq.md", Score: 4}},
				Answer:    "Tokens are hashed with SHA-256.\nSee [security.md] and [x].",
				Citations: []assay.Citation{{ID: "security.md"}, {Path: "docs/x.md"}},
				Tools:     []assay.ToolCall{{Name: "search", Args: assay.RawJSON(`{"q":"tokens"}`)}, {Name: "get", Error: "not found"}},
				Spans:     []assay.Span{{Name: "retrieve", StartMs: 0, EndMs: 40}, {Name: "generate", StartMs: 40, EndMs: 120.5}},
			},
		},
	}
	var buf bytes.Buffer
	if err := CaseDetail(&buf, v); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestCaseDetail.golden.txt", buf.Bytes())
}

// TestCaseDetailUnjudged pins the judged coverage of one case in runs show
// --case: each unj@k when the top k holds an unjudged document, and each
// metric's value with the unjudged documents counted relevant beside it.
func TestCaseDetailUnjudged(t *testing.T) {
	t.Parallel()
	v := CaseView{
		Query:     "d2 and d4 are not judged",
		Judgments: map[string]int{"d1": 3, "d3": 0, "d5": 1},
		Result: assay.CaseResult{
			ID: "q1", Pass: ptr(true),
			Metrics:  map[string]float64{"ndcg@5": 0.8601, "precision@5": 0.4, "mrr": 1},
			Upper:    map[string]float64{"ndcg@5": 0.93, "precision@5": 0.8},
			Unjudged: map[string]float64{"unj@5": 0.4, "unj@10": 0.2},
			Observation: &assay.Observation{
				Case:      "q1",
				Retrieved: []assay.Hit{{ID: "d1"}, {ID: "d2"}, {ID: "d3"}, {ID: "d4"}, {ID: "d5"}},
			},
		},
	}
	var buf bytes.Buffer
	if err := CaseDetail(&buf, v); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestCaseDetailUnjudged.golden.txt", buf.Bytes())

	// A fully judged top k shows no coverage block.
	v.Result.Unjudged = map[string]float64{"unj@5": 0, "unj@10": 0}
	v.Result.Upper = nil
	buf.Reset()
	if err := CaseDetail(&buf, v); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("unjudged")) {
		t.Errorf("fully judged case shows coverage:\n%s", buf.Bytes())
	}
}

// TestCaseDetailConversation pins the conversation view of runs show
// --case: each turn with its message, answer, ranking, tool calls, checks
// and metrics; the conversation's own checks; its metric means.
func TestCaseDetailConversation(t *testing.T) {
	t.Parallel()
	v := CaseView{
		Turns: []assay.Turn{
			{Query: "How much is the pro plan?", Judgments: map[string]int{"pro": 1}},
			{Query: "And the team plan?", Judgments: map[string]int{"team": 1}},
			{Query: "Thanks"},
		},
		Result: assay.CaseResult{
			ID: "c1", Pass: ptr(false), LatencyMs: ptr(30.5), FailedTurn: 2,
			Tags:    map[string]string{"lang": "en"},
			Checks:  []assay.Check{{Kind: "calls_tool", Pass: true}, {Kind: "max_turns", Pass: true, Detail: "met at turn 1"}},
			Metrics: map[string]float64{"recall@5": 0.5},
			Turns: []assay.CaseResult{
				{ID: "c1", Turn: 1, Pass: ptr(true), LatencyMs: ptr(10.0), Metrics: map[string]float64{"recall@5": 1},
					Checks:      []assay.Check{{Kind: "answer_includes", Pass: true}},
					Observation: &assay.Observation{Answer: "It costs 20 dollars.", Retrieved: []assay.Hit{{ID: "pro", Score: 1}, {ID: "faq"}}, Tools: []assay.ToolCall{{Name: "search", Args: assay.RawJSON(`{"q":"pro"}`)}}}},
				{ID: "c1", Turn: 2, Pass: ptr(false), LatencyMs: ptr(20.5), Metrics: map[string]float64{"recall@5": 0},
					Checks:      []assay.Check{{Kind: "answer_includes", Pass: false, Detail: `missing "50"`}},
					Observation: &assay.Observation{Answer: "I don't know.\nSorry."}},
				{ID: "c1", Turn: 3, Error: &assay.Error{Class: assay.ErrTimeout, Message: "no observation after 1s"},
					Observation: &assay.Observation{Error: &assay.Error{Class: assay.ErrTimeout, Message: "no observation after 1s"}}},
			},
		},
	}
	var buf bytes.Buffer
	if err := CaseDetail(&buf, v); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestCaseDetailConversation.golden.txt", buf.Bytes())
}
