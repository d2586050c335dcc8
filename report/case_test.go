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
