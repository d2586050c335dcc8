package suite

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

const conversationSuite = `assay: 1
cases:
  - id: c1
    tags: {lang: de}
    turns:
      - Hallo
      - query: Was kostet der Pro-Tarif?
        relevant: [pro]
        judgments: {team: 0}
        expect:
          answer_includes: ["20 Euro"]
          tools: [search]
      - query: Und der Team-Tarif?
        expect: {tools: {mode: superset, args: subset, calls: [{name: get_doc, args: {id: team, n: 2}, args_regex: {q: "^t"}}]}}
    expect:
      max_turns: 3
      calls_tool: [search]
`

func TestLoadConversation(t *testing.T) {
	dir := writeFiles(t, map[string]string{"s.yaml": conversationSuite})
	t.Chdir(dir)
	s, err := Load("s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := s.Cases[0]
	if !c.IsConversation() || len(c.Turns) != 3 || c.Query != "" {
		t.Fatalf("case: %+v", c)
	}
	if c.Turns[0].Query != "Hallo" || c.Turns[0].Source != "s.yaml:6" {
		t.Errorf("turn 1: %+v", c.Turns[0])
	}
	t2 := c.Turns[1]
	if t2.Judgments["pro"] != 1 || t2.Judgments["team"] != 0 || len(t2.Judgments) != 2 {
		t.Errorf("turn 2 judgments: %v", t2.Judgments)
	}
	if t2.Expect.Tools == nil || t2.Expect.Tools.Calls[0].Name != "search" || t2.Expect.Tools.Calls[0].ArgsMatch != assay.ArgsIgnore {
		t.Errorf("turn 2 tools: %+v", t2.Expect.Tools)
	}
	tools := c.Turns[2].Expect.Tools
	if tools == nil || tools.Mode != "superset" || tools.Args != "subset" {
		t.Fatalf("turn 3 tools: %+v", tools)
	}
	call := tools.Calls[0]
	if call.Args["id"] != "team" || call.Args["n"] != 2.0 || call.ArgsRegex["q"] != "^t" {
		t.Errorf("turn 3 call: %+v", call)
	}
	if c.Expect.MaxTurns != 3 || len(c.Expect.CallsTool) != 1 {
		t.Errorf("conversation expect: %+v", c.Expect)
	}
}

func TestLoadRejectsBadConversations(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"query and turns", "cases:\n  - {id: c1, query: q, turns: [hi]}\n", `s.yaml:3:5: case "c1" has both "query" and "turns"`},
		{"judgments on the conversation", "cases:\n  - {id: c1, relevant: [d], turns: [hi]}\n", `s.yaml:3:5: case "c1": a conversation's judgments go in its turns`},
		{"empty turns", "cases:\n  - {id: c1, turns: []}\n", `turns: an empty list asks nothing`},
		{"turn without query", "cases:\n  - id: c1\n    turns:\n      - {expect: {answer_includes: [a]}}\n", `case "c1": turns[0] has no "query"`},
		{"expectation outside the turn's expect", "cases:\n  - id: c1\n    turns:\n      - {query: q, answer_includes: [a]}\n", `put it under the turn's "expect:"`},
		{"max_turns without turns", "cases:\n  - id: c1\n    query: q\n    expect: {max_turns: 2}\n", `case "c1": max_turns needs a conversation`},
		{"max_turns in a turn", "cases:\n  - id: c1\n    turns:\n      - {query: q, expect: {max_turns: 2}}\n", `max_turns is an expectation of the conversation`},
		{"unknown trajectory mode", "cases:\n  - {id: c1, query: q, expect: {tools: {mode: loose, calls: [s]}}}\n", `tools.mode: unknown mode "loose" (want strict, unordered, subset or superset)`},
		{"unknown args mode", "cases:\n  - {id: c1, query: q, expect: {tools: {calls: [{name: s, args_match: fuzzy}]}}}\n", `tools.calls[0].args_match: unknown mode "fuzzy"`},
		{"bad args regex", "cases:\n  - {id: c1, query: q, expect: {tools: {calls: [{name: s, args_regex: {q: \"(\"}}]}}}\n", `tools.calls[0].args_regex.q: invalid regexp`},
		{"call without name", "cases:\n  - {id: c1, query: q, expect: {tools: {calls: [{args: {q: x}}]}}}\n", `tools.calls[0] has no "name"`},
		{"superset of nothing", "cases:\n  - {id: c1, query: q, expect: {tools: {mode: superset}}}\n", `superset of no call checks nothing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"s.yaml": "assay: 1\n" + tt.src})
			err := loadIn(t, dir, "s.yaml")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v\nwant it to hold %q", err, tt.want)
			}
		})
	}
}

func TestLoadConversationJSONL(t *testing.T) {
	dir := writeFiles(t, map[string]string{"s.jsonl": `{"assay": 1}
{"id": "c1", "turns": ["hi", {"query": "q2", "relevant": ["d1"], "expect": {"tools": {"mode": "unordered", "calls": [{"name": "search", "args": {"q": "x"}}]}}}]}
`})
	t.Chdir(dir)
	s, err := Load("s.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	c := s.Cases[0]
	if len(c.Turns) != 2 || c.Turns[1].Expect.Tools.Mode != "unordered" || c.Turns[1].Expect.Tools.Calls[0].Args["q"] != "x" || c.Turns[1].Judgments["d1"] != 1 {
		t.Fatalf("case: %+v", c)
	}
}

func TestLintConversation(t *testing.T) {
	dir := writeFiles(t, map[string]string{"s.yaml": `assay: 1
tools: [search]
cases:
  - id: c1
    turns:
      - query: hi
        expect: {tools: [search, delete]}
  - id: c2
    turns: [hello, again]
`})
	t.Chdir(dir)
	findings, err := Lint("s.yaml", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := ""
	for _, f := range findings {
		out += f.Message + "\n"
	}
	if strings.Contains(out, `case "c1" has nothing to check`) {
		t.Errorf("a conversation whose turns check something was said to check nothing:\n%s", out)
	}
	if !strings.Contains(out, `case "c2" has nothing to check`) {
		t.Errorf("a conversation that checks nothing was not found:\n%s", out)
	}
	if !strings.Contains(out, `case "c1": tools: tool "delete" is not on`) {
		t.Errorf("a trajectory naming a tool the target lacks was not found:\n%s", out)
	}
}

// TestExportConversationRoundTrips: WriteNative and WriteNativeJSONL write
// a conversation's turns, tools and max_turns, and loading them back gives
// the same cases.
func TestExportConversationRoundTrips(t *testing.T) {
	dir := writeFiles(t, map[string]string{"s.yaml": conversationSuite})
	t.Chdir(dir)
	s, err := Load("s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"out.yaml":  func(b *bytes.Buffer) error { return WriteNative(b, s, ExportOptions{Dir: dir}) },
		"out.jsonl": func(b *bytes.Buffer) error { return WriteNativeJSONL(b, s, ExportOptions{Dir: dir}) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		back, err := Load(name)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b.String())
		}
		got, want := back.Cases[0], s.Cases[0]
		for i := range want.Turns {
			want.Turns[i].Source, got.Turns[i].Source = "", ""
		}
		if !reflect.DeepEqual(got.Turns, want.Turns) || !reflect.DeepEqual(got.Expect, want.Expect) || got.Query != "" {
			t.Errorf("%s: the conversation changed:\n got %+v\nwant %+v\n%s", name, got, want, b.String())
		}
	}
}
