package llmtest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay/llm"
	"github.com/assay-eval/assay/llm/llmtest"
)

func TestKeyIsCheckedAndRecorded(t *testing.T) {
	s := llmtest.New(t, llmtest.Handlers{})
	s.Key = "sk-right-key-123"
	e := &llm.Endpoint{URL: s.URL, APIKey: "sk-wrong-key-456"}
	_, err := e.Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "x"}}})
	if le, ok := err.(*llm.Error); !ok || le.Status != 401 {
		t.Fatalf("wrong key: %v", err)
	}
	e.APIKey = "sk-right-key-123"
	if _, err := e.Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "x"}}}); err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	if len(reqs) != 2 || reqs[1].Authorization != "Bearer sk-right-key-123" || s.Count(llmtest.ChatPath) != 2 {
		t.Errorf("requests %+v", reqs)
	}
	s.Reset()
	if s.Count("") != 0 {
		t.Errorf("reset kept requests")
	}
}

func TestFaultsApplyToTheirPathInOrder(t *testing.T) {
	s := llmtest.New(t, llmtest.Handlers{})
	s.Inject(1, llmtest.Fault{Path: llmtest.EmbedPath, Status: 500})
	s.Inject(1, llmtest.Fault{Status: 429})
	e := &llm.Endpoint{URL: s.URL}
	msgs := llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "x"}}}
	if _, err := e.Chat(context.Background(), msgs); err == nil || !strings.Contains(err.Error(), "429") {
		t.Errorf("chat got %v, want the 429 (the 500 is for embeddings)", err)
	}
	if _, err := e.Embed(context.Background(), []string{"a"}, 0); err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("embed got %v, want the 500", err)
	}
	if _, err := e.Chat(context.Background(), msgs); err != nil {
		t.Errorf("faults used up, but %v", err)
	}
	s.Inject(1, llmtest.Fault{Delay: 50 * time.Millisecond, Body: `{"choices": [{"message": {"content": "late"}}]}`})
	start := time.Now()
	got, err := e.Chat(context.Background(), msgs)
	if err != nil || got.Content != "late" || time.Since(start) < 50*time.Millisecond {
		t.Errorf("slow answer: %+v %v after %s", got, err, time.Since(start))
	}
}

func TestChatHandlerSeesTheDecodedRequest(t *testing.T) {
	var seen llmtest.ChatRequest
	s := llmtest.New(t, llmtest.Handlers{Chat: func(r llmtest.ChatRequest) (string, llm.Usage) {
		seen = r
		return "ok", llm.Usage{}
	}})
	seed := 7
	e := &llm.Endpoint{URL: s.URL, Model: "m"}
	got, err := e.Chat(context.Background(), llm.ChatRequest{Seed: &seed, Messages: []llm.Message{{Role: "system", Content: "judge"}, {Role: "user", Content: "two words"}}})
	if err != nil {
		t.Fatal(err)
	}
	if seen.Model != "m" || *seen.Seed != 7 || seen.Temperature == nil || seen.Prompt() != "judge\ntwo words" {
		t.Errorf("decoded %+v", seen)
	}
	if got.Usage.PromptTokens != 3 || got.Usage.CompletionTokens != 1 || got.Usage.TotalTokens != 4 {
		t.Errorf("default usage %+v", got.Usage)
	}
}
