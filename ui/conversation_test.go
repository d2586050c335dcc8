package ui

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/report"
)

// TestConversationCasePage compares the case page of a conversation with
// testdata/TestConversationCasePage.html (-update rewrites it): each turn
// with its message, answer (expected strings marked), ranking, tool calls,
// checks and metrics, then the conversation's own part.
func TestConversationCasePage(t *testing.T) {
	pass, fail := true, false
	lat := func(f float64) *float64 { return &f }
	sc := &assay.Case{ID: "c1", Turns: []assay.Turn{
		{Query: "How much is the pro plan?", Judgments: map[string]int{"pro": 1}, Expect: assay.Expect{AnswerIncludes: []string{"20 dollars"}}},
		{Query: "And the <team> plan?", Expect: assay.Expect{AnswerIncludes: []string{"50"}}},
		{Query: "Thanks"},
	}, Expect: assay.Expect{CallsTool: []string{"search"}}}
	r := assay.CaseResult{ID: "c1", Pass: &fail, FailedTurn: 2, LatencyMs: lat(30),
		Checks:      []assay.Check{{Kind: "calls_tool", Pass: true}},
		Metrics:     map[string]float64{"recall@5": 1},
		Observation: &assay.Observation{Case: "c1", Answer: "You are welcome.", Tools: []assay.ToolCall{{Name: "search", Args: assay.RawJSON(`{"q":"pro"}`)}}},
		Turns: []assay.CaseResult{
			{ID: "c1", Turn: 1, Pass: &pass, LatencyMs: lat(10), Checks: []assay.Check{{Kind: "answer_includes", Pass: true}}, Metrics: map[string]float64{"recall@5": 1},
				Observation: &assay.Observation{Answer: "It costs 20 dollars.", Retrieved: []assay.Hit{{ID: "pro", Score: 1}}, Tools: []assay.ToolCall{{Name: "search", Args: assay.RawJSON(`{"q":"pro"}`)}}}},
			{ID: "c1", Turn: 2, Pass: &fail, Error: &assay.Error{Class: assay.ErrHTTPStatus, Message: "500 <oops>"}, Checks: []assay.Check{{Kind: "answer_includes", Detail: "http_status: 500 <oops>"}},
				Observation: &assay.Observation{Error: &assay.Error{Class: assay.ErrHTTPStatus, Message: "500 <oops>"}}},
			{ID: "c1", Turn: 3, LatencyMs: lat(20), Observation: &assay.Observation{Answer: "You are welcome."}},
		}}
	run := &assay.Run{RunID: "01run", Suite: assay.SuiteRef{Name: "conv"}, Cases: []assay.CaseResult{r}}
	views := []report.CaseView{{Result: r, Turns: sc.Turns}}
	var buf bytes.Buffer
	if err := render(&buf, "case", serverLinks{}, buildCase(run, "c1", views, sc, false)); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{`id="turn-1"`, `id="turn-3"`, "And the &lt;team&gt; plan?", `<mark class="expected">20 dollars</mark>`, "error http_status", "failed at turn 2", "a conversation of 3 turns"} {
		if !strings.Contains(got, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	g := filepath.Join("testdata", t.Name()+".html")
	if *update {
		if err := os.WriteFile(g, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(g)
	if err != nil {
		t.Fatalf("no golden file (run go test ./ui -run TestConversationCasePage -update): %v", err)
	}
	if got != string(want) {
		t.Errorf("the page differs from %s (-update rewrites it):\n%s", g, lineDiff(string(want), got))
	}
}
