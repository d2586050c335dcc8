package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const judgeSuite = `assay: 1
name: judged
defaults: {judge: {groundedness: 0.5}}
judge:
  url: http://127.0.0.1:8080/v1
  model: grader
  api_key: ${JUDGE_KEY}
  temperature: 0
  seed: 7
  max_tokens: 300
  timeout: 20s
  retries: 2
  concurrency: 3
  rubric:
    - {name: faith, description: Every claim is supported, scale: [1, 5], passages: true}
    - {name: groundedness}
  probes: [verbosity, position]
  budget: {max_calls: 3, max_tokens: 1000, max_cost: 0.5, prompt_price: 0.000001, completion_price: 0.000002}
cases:
  - id: a
    query: q
    expect: {judge: {faith: 4}}
`

func TestLoadJudgeDefinition(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(p, []byte(judgeSuite), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	j := s.Judge
	if j == nil {
		t.Fatal("no judge read")
	}
	if j.URL != "http://127.0.0.1:8080/v1" || j.Model != "grader" || j.APIKey != "${JUDGE_KEY}" || *j.Seed != 7 || j.MaxTokens != 300 || *j.Retries != 2 || j.Concurrency != 3 {
		t.Errorf("judge = %+v", j)
	}
	if len(j.Rubric) != 2 || j.Rubric[0].Name != "faith" || j.Rubric[0].Min != 1 || j.Rubric[0].Max != 5 || !j.Rubric[0].Passages || j.Rubric[1].Max != 1 || j.Rubric[1].Passages {
		t.Errorf("rubric = %+v", j.Rubric)
	}
	if len(j.Probes) != 2 || j.Probes[0] != "verbosity" || j.Probes[1] != "position" {
		t.Errorf("probes = %v", j.Probes)
	}
	if j.Budget.MaxCalls != 3 || j.Budget.MaxTokens != 1000 || j.Budget.MaxCost != 0.5 || j.Budget.CompletionPrice != 0.000002 {
		t.Errorf("budget = %+v", j.Budget)
	}
	if s.Defaults.Judge["groundedness"] != 0.5 || s.Cases[0].Expect.Judge["faith"] != 4 {
		t.Errorf("bounds: defaults %v, case %v", s.Defaults.Judge, s.Cases[0].Expect.Judge)
	}
	if !strings.HasSuffix(j.Source, "s.yaml:5") {
		t.Errorf("source = %q", j.Source)
	}
}

// TestParseJudgeErrors pins the positioned one-line errors of a judge
// definition (a --judge file).
// TestJudgeBudgetBesideTheFields: the budget's limits and prices may be
// written beside the judge's other fields (max_calls: 3), as the issue
// writes them, or in budget:; max_tokens beside them stays the limit of
// one answer.
func TestJudgeBudgetBesideTheFields(t *testing.T) {
	j, err := ParseJudge("j.yaml", []byte("url: http://x/v1\nmodel: m\nmax_tokens: 200\nmax_calls: 3\nmax_cost: 0.5\nprompt_price: 0.000001\ncompletion_price: 0.000002\nbudget: {max_tokens: 9000}\n"))
	if err != nil {
		t.Fatal(err)
	}
	b := j.Budget
	if b.MaxCalls != 3 || b.MaxCost != 0.5 || b.PromptPrice != 0.000001 || b.CompletionPrice != 0.000002 || b.MaxTokens != 9000 || j.MaxTokens != 200 {
		t.Fatalf("budget %+v, max_tokens %d: want max_calls 3, max_cost 0.5, the prices, budget max_tokens 9000 and answer max_tokens 200", b, j.MaxTokens)
	}
}

func TestParseJudgeErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"url: http://x/v1\n", "j.yaml:1:1: judge: missing \"model\""},
		{"url: http://x/v1\nmodel: m\napi_key: sk-live-123\n", "j.yaml:3:10: judge.api_key: write a reference to the environment such as ${OPENAI_API_KEY}, not the key itself"},
		{"url: http://x/v1\nmodel: m\ntemprature: 0\n", "j.yaml:3:1: unknown field \"temprature\""},
		{"url: ftp://x\nmodel: m\n", "j.yaml:1:6: judge.url: want an http(s) base URL"},
		{"url: http://x/v1\nmodel: m\nrubric:\n  - {name: reasoning}\n", "j.yaml:4:12: judge.rubric: criterion name \"reasoning\""},
		{"url: http://x/v1\nmodel: m\nrubric:\n  - {name: a, scale: [5, 1]}\n", "j.yaml:4:22: scale: MIN must be less than MAX"},
		{"url: http://x/v1\nmodel: m\nbudget: {max_cost: 2}\n", "j.yaml:3:9: judge.budget.max_cost needs the per-token prices"},
		{"url: http://x/v1\nmodel: m\nmax_cost: 2\n", "j.yaml:1:1: judge.max_cost needs the per-token prices"},
		{"url: http://x/v1\nmodel: m\nmax_calls: 3\nbudget: {max_calls: 4}\n", "j.yaml:4:21: judge.budget.max_calls: the budget's max_calls is given twice"},
		{"url: http://x/v1\nmodel: m\nmax_calls: 0\n", "j.yaml:3:12: judge.max_calls"},
		{"url: http://x/v1\nmodel: m\ntimeout: soon\n", "j.yaml:3:10: judge.timeout: want a positive Go duration"},
		{"url: http://x/v1\nmodel: m\nresponse_format: xml\n", "j.yaml:3:18: judge.response_format: unknown value \"xml\""},
		{"url: http://x/v1\nmodel: m\nprobes: [position, length]\n", "j.yaml:3:20: judge.probes: unknown probe \"length\" (want position, verbosity or consistency)"},
		{"url: http://x/v1\nmodel: m\nrubric:\n  - {name: a, passages: maybe}\n", "j.yaml:4:"},
		{"", "j.yaml:1:1: empty judge file"},
		{"- a\n", "j.yaml:1:1: judge: want"},
	} {
		_, err := ParseJudge("j.yaml", []byte(tc.src))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseJudge(%q) = %v, want prefix %q", tc.src, err, tc.want)
		}
	}
}

func TestJudgeBoundErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ expect, want string }{
		{"{judge: {groundedness: high}}", "expect.judge.groundedness: want a number"},
		{"{judge: {Ground: 0.5}}", "expect.judge: \"Ground\" is not a criterion name"},
		{"{judge: {}}", "expect.judge: an empty mapping checks nothing"},
	} {
		p := filepath.Join(dir, "s.yaml")
		os.WriteFile(p, []byte("assay: 1\ncases:\n  - id: a\n    query: q\n    expect: "+tc.expect+"\n"), 0o644)
		_, err := Load(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "s.yaml:5:") {
			t.Errorf("expect %s: err = %v, want %q at line 5", tc.expect, err, tc.want)
		}
	}
}
