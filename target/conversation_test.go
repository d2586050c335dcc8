package target

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

var history = []assay.Message{{Role: assay.RoleUser, Content: "price of pro?"}, {Role: assay.RoleAssistant, Content: "20 dollars"}}

// TestCommandGetsTheHistoryOnStdin: a turn of a conversation reaches a
// command as "turn" and "history" in its stdin line, and ASSAY_TURN.
func TestCommandGetsTheHistoryOnStdin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script(t, dir, "sys.sh", `read -r line
printf '{"answer": "turn %s", "tools": [{"name": "stdin", "args": %s}]}\n' "$ASSAY_TURN" "$line"
`)
	p := writeFile(t, "target.yaml", `command: [`+quoteYAML(filepath.Join(dir, "sys.sh"))+`]
timeout: 5s
`)
	tg := mustOpen(t, p, Options{})
	o, err := tg.Observe(context.Background(), assay.Case{ID: "c", Query: "and team?", Turn: 2, History: history})
	if err != nil {
		t.Fatal(err)
	}
	line := stdinLine(o)
	if o.Answer != "turn 2" || !strings.Contains(line, `"turn":2`) ||
		!strings.Contains(line, `"history":[{"content":"price of pro?","role":"user"},{"content":"20 dollars","role":"assistant"}]`) {
		t.Fatalf("answer %q, stdin line %s", o.Answer, line)
	}
	o, err = tg.Observe(context.Background(), assay.Case{ID: "c", Query: "one query"})
	if err != nil {
		t.Fatal(err)
	}
	line = stdinLine(o)
	if strings.Contains(line, "history") || strings.Contains(line, "turn") {
		t.Fatalf("a case of one query got conversation fields: %s", line)
	}
}

// stdinLine is the line the script got on stdin, compacted.
func stdinLine(o assay.Observation) string {
	if len(o.Tools) != 1 {
		return ""
	}
	var v any
	if err := json.Unmarshal(o.Tools[0].Args, &v); err != nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestHTTPSendsMessages: .Messages is the history and the turn's message,
// as a JSON list (the OpenAI-style chat body), .Turn its number.
func TestHTTPSendsMessages(t *testing.T) {
	t.Parallel()
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		w.Write([]byte(`{"answer": "ok"}`))
	}))
	defer srv.Close()
	p := writeFile(t, "target.yaml", "http:\n  url: "+srv.URL+"\n  body: {turn: \"{{.Turn}}\", messages: \"{{.Messages}}\", history: \"{{.History}}\"}\n")
	tg := mustOpen(t, p, Options{})
	if _, err := tg.Observe(context.Background(), assay.Case{ID: "c", Query: "and team?", Turn: 2, History: history}); err != nil {
		t.Fatal(err)
	}
	want := `{"history":[{"role":"user","content":"price of pro?"},{"role":"assistant","content":"20 dollars"}],"messages":[{"role":"user","content":"price of pro?"},{"role":"assistant","content":"20 dollars"},{"role":"user","content":"and team?"}],"turn":2}`
	if body != want {
		t.Fatalf("body %s\nwant %s", body, want)
	}
	if _, err := tg.Observe(context.Background(), assay.Case{ID: "c", Query: "q"}); err != nil {
		t.Fatal(err)
	}
	if want := `{"history":[],"messages":[{"role":"user","content":"q"}],"turn":0}`; body != want {
		t.Fatalf("body %s\nwant %s", body, want)
	}
}

// TestReplayByTurn: a trace keyed by turn answers each turn; a turn it
// lacks is missing.
func TestReplayByTurn(t *testing.T) {
	t.Parallel()
	p := writeFile(t, "trace.jsonl", `{"case":"c","turn":1,"answer":"one"}
{"case":"c","turn":2,"answer":"two"}
{"case":"q","answer":"plain"}
`)
	r, err := OpenReplay(p)
	if err != nil {
		t.Fatal(err)
	}
	for turn, want := range map[int]string{1: "one", 2: "two"} {
		o, err := r.Observe(context.Background(), assay.Case{ID: "c", Turn: turn})
		if err != nil || o.Answer != want {
			t.Fatalf("turn %d: %q, %v", turn, o.Answer, err)
		}
	}
	if _, err := r.Observe(context.Background(), assay.Case{ID: "c", Turn: 3}); err == nil || !strings.Contains(err.Error(), `no line for case "c" trial 0 turn 3`) {
		t.Fatalf("turn 3: %v", err)
	}
	if o, err := r.Observe(context.Background(), assay.Case{ID: "q"}); err != nil || o.Answer != "plain" {
		t.Fatalf("plain case: %q, %v", o.Answer, err)
	}
	dup := writeFile(t, "dup.jsonl", "{\"case\":\"c\",\"turn\":1}\n{\"case\":\"c\",\"turn\":1}\n")
	if _, err := OpenReplay(dup); err == nil || !strings.Contains(err.Error(), `case "c" trial 0 turn 1 is already recorded at line 1`) {
		t.Fatalf("duplicate turn: %v", err)
	}
}

// TestBuiltinSearchesWithTheEarlierUserMessages: ConversationQuery.
func TestBuiltinSearchesWithTheEarlierUserMessages(t *testing.T) {
	t.Parallel()
	if got := ConversationQuery(assay.Case{Query: "and team?", History: history}); got != "price of pro?\nand team?" {
		t.Fatalf("got %q", got)
	}
	if got := ConversationQuery(assay.Case{Query: "q"}); got != "q" {
		t.Fatalf("got %q", got)
	}
}

// TestCacheKeyOfATurn: a turn's key covers its number and history, so the
// same message after another history is not answered from the cache; a
// case of one query keeps the key it had.
func TestCacheKeyOfATurn(t *testing.T) {
	t.Parallel()
	plain := assay.Case{ID: "c", Query: "thanks"}
	turn := assay.Case{ID: "c", Query: "thanks", Turn: 2, History: history}
	other := assay.Case{ID: "c", Query: "thanks", Turn: 2, History: history[:1]}
	kp, kt, ko := CacheKey("fp", CacheOptions{}, plain, 0), CacheKey("fp", CacheOptions{}, turn, 0), CacheKey("fp", CacheOptions{}, other, 0)
	if kp == kt || kt == ko {
		t.Fatalf("keys collide: plain %s turn %s other history %s", kp, kt, ko)
	}
	if again := CacheKey("fp", CacheOptions{}, assay.Case{ID: "c", Query: "thanks"}, 0); again != kp {
		t.Fatal("the key of a case of one query is not stable")
	}
}
