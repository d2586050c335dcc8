package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/llm"
	"github.com/assay-eval/assay/llm/llmtest"
	"github.com/assay-eval/assay/redact"
)

const key = "sk-test-Zq81LmX04pQ"

func endpoint(s *llmtest.Server) *llm.Endpoint {
	return &llm.Endpoint{URL: s.URL, Model: "stand-in", APIKey: key, KeyName: "JUDGE_KEY", Timeout: 5 * time.Second, Backoff: time.Millisecond}
}

func chatReq() llm.ChatRequest {
	return llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "how are tokens hashed"}}}
}

func asErr(t *testing.T, err error) *llm.Error {
	t.Helper()
	var le *llm.Error
	if !errors.As(err, &le) {
		t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
	}
	return le
}

func TestChatSendsTheRequestAndReadsTheFirstChoice(t *testing.T) {
	s := llmtest.New(t, llmtest.Handlers{Chat: func(r llmtest.ChatRequest) (string, llm.Usage) {
		return `{"relevance": 1}`, llm.Usage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 10}
	}})
	e := endpoint(s)
	seed := 42
	r := chatReq()
	r.Seed, r.MaxTokens, r.JSONSchema = &seed, 64, json.RawMessage(`{"type":"object"}`)
	got, err := e.Chat(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != `{"relevance": 1}` || got.Model != "stand-in" || got.FinishReason != "stop" || got.Attempts != 1 {
		t.Errorf("response %+v", got)
	}
	if got.Usage != (llm.Usage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 10}) {
		t.Errorf("usage %+v", got.Usage)
	}
	reqs := s.Requests()
	if len(reqs) != 1 || reqs[0].Path != llmtest.ChatPath {
		t.Fatalf("requests %+v", reqs)
	}
	if reqs[0].Authorization != "Bearer "+key {
		t.Errorf("authorization %q", reqs[0].Authorization)
	}
	var body map[string]any
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body["model"] != "stand-in" || body["temperature"] != 0.0 || body["seed"] != 42.0 || body["max_tokens"] != 64.0 {
		t.Errorf("body %s", reqs[0].Body)
	}
	rf, _ := json.Marshal(body["response_format"])
	if string(rf) != `{"json_schema":{"name":"response","schema":{"type":"object"},"strict":true},"type":"json_schema"}` {
		t.Errorf("response_format %s", rf)
	}
}

func TestChatOmitsUnsetOptionsAndSendsJSONMode(t *testing.T) {
	s := llmtest.New(t, llmtest.Handlers{})
	e := endpoint(s)
	e.APIKey = ""
	r := chatReq()
	r.JSONMode = true
	if _, err := e.Chat(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	req := s.Requests()[0]
	if req.Authorization != "" {
		t.Errorf("no key, but authorization %q", req.Authorization)
	}
	b := string(req.Body)
	for _, absent := range []string{`"seed"`, `"max_tokens"`, `"json_schema"`} {
		if strings.Contains(b, absent) {
			t.Errorf("body has %s: %s", absent, b)
		}
	}
	if !strings.Contains(b, `"response_format":{"type":"json_object"}`) || !strings.Contains(b, `"temperature":0`) {
		t.Errorf("body %s", b)
	}
}

func TestRetriesTransientStatusesThenSucceeds(t *testing.T) {
	for _, st := range []int{429, 500, 503, 408} {
		s := llmtest.New(t, llmtest.Handlers{})
		s.Inject(2, llmtest.Fault{Status: st})
		e := endpoint(s)
		e.Retries = 2
		got, err := e.Chat(context.Background(), chatReq())
		if err != nil {
			t.Fatalf("%d: %v", st, err)
		}
		if got.Attempts != 3 || s.Count(llmtest.ChatPath) != 3 {
			t.Errorf("%d: attempts %d, server saw %d", st, got.Attempts, s.Count(llmtest.ChatPath))
		}
	}
}

func TestRetriesRunOutWithARetryableStatusError(t *testing.T) {
	s := llmtest.New(t, llmtest.Handlers{})
	s.Inject(5, llmtest.Fault{Status: 429, Body: `{"error": "slow down"}`})
	e := endpoint(s)
	e.Retries = 1
	got, err := e.Chat(context.Background(), chatReq())
	le := asErr(t, err)
	if le.Status != 429 || !le.Retryable || le.Class != assay.ErrHTTPStatus || got.Attempts != 2 {
		t.Errorf("error %+v, attempts %d", le, got.Attempts)
	}
	if !strings.Contains(le.Msg, "429 Too Many Requests") || !strings.Contains(le.Msg, "slow down") {
		t.Errorf("message %q", le.Msg)
	}
}

func TestClientErrorsAreNotRetried(t *testing.T) {
	s := llmtest.New(t, llmtest.Handlers{})
	s.Inject(5, llmtest.Fault{Status: 400})
	e := endpoint(s)
	e.Retries = 3
	_, err := e.Chat(context.Background(), chatReq())
	if le := asErr(t, err); le.Retryable || le.Status != 400 {
		t.Errorf("error %+v", le)
	}
	if n := s.Count(""); n != 1 {
		t.Errorf("%d requests for a 400, want 1", n)
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	s := llmtest.New(t, llmtest.Handlers{})
	s.Inject(1, llmtest.Fault{Status: 429, RetryAfter: "1"})
	e := endpoint(s)
	e.Retries = 1
	start := time.Now()
	if _, err := e.Chat(context.Background(), chatReq()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Errorf("retried after %s, Retry-After asked for 1s", d)
	}
}

func TestRetryWaitPastTheDeadlineIsNotStarted(t *testing.T) {
	s := llmtest.New(t, llmtest.Handlers{})
	s.Inject(1, llmtest.Fault{Status: 503, RetryAfter: "30"})
	e := endpoint(s)
	e.Retries = 3
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := e.Chat(ctx, chatReq())
	if le := asErr(t, err); le.Status != 503 {
		t.Errorf("error %+v", le)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("waited %s for a retry that could not finish", d)
	}
}

func TestMalformedBodyIsAnErrorAndNotRetried(t *testing.T) {
	for name, body := range map[string]string{
		"not json":     llmtest.Malformed,
		"no choices":   `{"choices": []}`,
		"no content":   `{"choices": [{"message": {}}]}`,
		"wrong type":   `{"choices": [{"message": {"content": 7}}]}`,
		"neg usage":    `{"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": -1}}`,
		"array":        `[1,2]`,
		"empty":        ``,
		"null message": `{"choices": [{"message": null}]}`,
	} {
		s := llmtest.New(t, llmtest.Handlers{})
		s.Inject(1, llmtest.Fault{Status: 200, Body: body})
		e := endpoint(s)
		e.Retries = 2
		_, err := e.Chat(context.Background(), chatReq())
		le := asErr(t, err)
		if le.Class != assay.ErrMalformed || le.Retryable {
			t.Errorf("%s: error %+v", name, le)
		}
		if n := s.Count(""); n != 1 {
			t.Errorf("%s: %d requests, want 1", name, n)
		}
	}
}

func TestSlowAttemptTimesOutAndIsRetried(t *testing.T) {
	s := llmtest.New(t, llmtest.Handlers{})
	s.Inject(1, llmtest.Fault{Delay: 3 * time.Second})
	e := endpoint(s)
	e.Timeout = 200 * time.Millisecond
	_, err := e.Chat(context.Background(), chatReq())
	if le := asErr(t, err); le.Class != assay.ErrTimeout || !le.Retryable {
		t.Errorf("error %+v", le)
	}
	s.Inject(1, llmtest.Fault{Delay: 3 * time.Second})
	e.Retries = 1
	got, err := e.Chat(context.Background(), chatReq())
	if err != nil || got.Attempts != 2 {
		t.Errorf("with a retry: %v, attempts %d", err, got.Attempts)
	}
}

func TestCanceledContext(t *testing.T) {
	s := llmtest.New(t, llmtest.Handlers{})
	s.Inject(1, llmtest.Fault{Delay: 3 * time.Second})
	e := endpoint(s)
	e.Retries = 3
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := e.Chat(ctx, chatReq())
	if le := asErr(t, err); le.Class != assay.ErrCanceled || le.Retryable {
		t.Errorf("error %+v", le)
	}
}

func TestTheKeyIsNeverInAnError(t *testing.T) {
	s := llmtest.New(t, llmtest.Handlers{})
	s.Inject(1, llmtest.Fault{Status: 401, Body: `{"error": {"message": "Incorrect API key provided: ` + key + `"}}`})
	s.Inject(1, llmtest.Fault{Status: 500, Body: `{"error": "bad Bearer ` + strings.ReplaceAll(key, "-", `\u002d`) + `"}`})
	e := endpoint(s)
	for range 2 {
		_, err := e.Chat(context.Background(), chatReq())
		le := asErr(t, err)
		if strings.Contains(le.Msg, key) || strings.Contains(err.Error(), "Zq81LmX04pQ") {
			t.Fatalf("key in the error: %q", le.Msg)
		}
		if !strings.Contains(le.Msg, "${JUDGE_KEY}") {
			t.Errorf("no placeholder in %q", le.Msg)
		}
	}
}

func TestTheKeyInTheURLIsRefused(t *testing.T) {
	e := &llm.Endpoint{URL: "http://user:" + key + "@127.0.0.1:1/v1", APIKey: key}
	_, err := e.Chat(context.Background(), chatReq())
	if le := asErr(t, err); strings.Contains(le.Msg, key) || le.Class != assay.ErrMalformed {
		t.Errorf("error %+v", le)
	}
}

func TestBadURL(t *testing.T) {
	for _, u := range []string{"", "127.0.0.1:8080", "ftp://x/v1", "http://", "http://[::1"} {
		e := &llm.Endpoint{URL: u}
		_, err := e.Chat(context.Background(), chatReq())
		if le := asErr(t, err); le.Class != assay.ErrMalformed || !strings.Contains(le.Msg, "base url") {
			t.Errorf("%q: %+v", u, le)
		}
	}
}

func TestBodyLargerThanMaxBody(t *testing.T) {
	s := llmtest.New(t, llmtest.Handlers{Chat: func(llmtest.ChatRequest) (string, llm.Usage) {
		return strings.Repeat("x", 4096), llm.Usage{TotalTokens: 1}
	}})
	e := endpoint(s)
	e.MaxBody = 1024
	_, err := e.Chat(context.Background(), chatReq())
	if le := asErr(t, err); le.Class != assay.ErrMalformed || !strings.Contains(le.Msg, "larger than 1024 bytes") {
		t.Errorf("error %+v", le)
	}
}

func TestRedirectIsNotFollowed(t *testing.T) {
	var other int
	dst := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { other++ }))
	defer dst.Close()
	src := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, dst.URL+"/v1/chat/completions?token=abc", http.StatusTemporaryRedirect)
	}))
	defer src.Close()
	e := &llm.Endpoint{URL: src.URL + "/v1", APIKey: key}
	_, err := e.Chat(context.Background(), chatReq())
	le := asErr(t, err)
	if le.Status != 307 || !strings.Contains(le.Msg, "not followed") || strings.Contains(le.Msg, "token=abc") {
		t.Errorf("error %+v", le)
	}
	if other != 0 {
		t.Errorf("the redirect was followed")
	}
}

func TestTransportErrorIsRetryable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL
	srv.Close()
	e := &llm.Endpoint{URL: u + "/v1", Retries: 1, Backoff: time.Millisecond}
	got, err := e.Chat(context.Background(), chatReq())
	if le := asErr(t, err); le.Class != assay.ErrTransport || !le.Retryable || got.Attempts != 2 {
		t.Errorf("error %+v, attempts %d", le, got.Attempts)
	}
}

func TestEmbedReturnsVectorsInInputOrder(t *testing.T) {
	s := llmtest.New(t, llmtest.Handlers{})
	e := endpoint(s)
	in := []string{"alpha", "beta", "gamma"}
	got, err := e.Embed(context.Background(), in, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Vectors) != 3 || got.Attempts != 1 || got.Usage.PromptTokens != 3 {
		t.Fatalf("response %+v", got)
	}
	for i, v := range got.Vectors {
		want := llmtest.HashVector(in[i])
		for j := range want {
			if v[j] != want[j] {
				t.Fatalf("vector %d = %v, want %v", i, v, want)
			}
		}
	}
	if n, _ := e.Embed(context.Background(), nil, 0); n.Attempts != 0 || s.Count(llmtest.EmbedPath) != 1 {
		t.Errorf("no inputs made a request")
	}
}

func TestEmbedReordersByIndex(t *testing.T) {
	s := llmtest.New(t, llmtest.Handlers{})
	s.Inject(1, llmtest.Fault{Status: 200, Body: `{"data": [{"index": 1, "embedding": [2, 2]}, {"index": 0, "embedding": [1, 1]}]}`})
	got, err := endpoint(s).Embed(context.Background(), []string{"a", "b"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got.Vectors[0][0] != 1 || got.Vectors[1][0] != 2 {
		t.Errorf("vectors %v", got.Vectors)
	}
}

func TestEmbedRejectsAMismatchedAnswer(t *testing.T) {
	for name, body := range map[string]string{
		"count":     `{"data": [{"index": 0, "embedding": [1, 1]}]}`,
		"dims":      `{"data": [{"index": 0, "embedding": [1, 1]}, {"index": 1, "embedding": [1, 1, 1]}]}`,
		"dup index": `{"data": [{"index": 0, "embedding": [1, 1]}, {"index": 0, "embedding": [1, 1]}]}`,
		"range":     `{"data": [{"index": 0, "embedding": [1, 1]}, {"index": 9, "embedding": [1, 1]}]}`,
		"empty":     `{"data": [{"index": 0, "embedding": []}, {"index": 1, "embedding": [1, 1]}]}`,
		"overflow":  `{"data": [{"index": 0, "embedding": [1e300, 1]}, {"index": 1, "embedding": [1, 1]}]}`,
		"string":    `{"data": [{"index": 0, "embedding": "AAAA"}, {"index": 1, "embedding": [1, 1]}]}`,
	} {
		s := llmtest.New(t, llmtest.Handlers{})
		s.Inject(1, llmtest.Fault{Status: 200, Body: body})
		_, err := endpoint(s).Embed(context.Background(), []string{"a", "b"}, 0)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if le := asErr(t, err); le.Class != assay.ErrMalformed {
			t.Errorf("%s: %+v", name, le)
		}
	}
	s := llmtest.New(t, llmtest.Handlers{})
	if _, err := endpoint(s).Embed(context.Background(), []string{"a"}, 8); err == nil || !strings.Contains(err.Error(), "4 dimensions, want 8") {
		t.Errorf("dimensions 8 against a 4-dimension model: %v", err)
	}
}

func TestPostJSONServesOtherPaths(t *testing.T) {
	s := llmtest.New(t, llmtest.Handlers{})
	var out struct {
		Results []struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		} `json:"results"`
	}
	n, err := endpoint(s).PostJSON(context.Background(), llmtest.RerankPath, map[string]any{"query": "red fox", "documents": []string{"blue whale", "a red fox"}}, &out)
	if err != nil || n != 1 {
		t.Fatal(n, err)
	}
	if len(out.Results) != 2 || out.Results[0].Index != 1 || out.Results[0].Score != 1 {
		t.Errorf("results %+v", out.Results)
	}
}

// TestAttemptedHookSeesEveryRequestAndCanRefuseARetry: the hook is called
// once per request sent, with its outcome, and a false stops the retries
// (the judge books retries against max_calls through it).
func TestAttemptedHookSeesEveryRequestAndCanRefuseARetry(t *testing.T) {
	s := llmtest.New(t, llmtest.Handlers{})
	s.Inject(10, llmtest.Fault{Status: 503})
	e := endpoint(s)
	e.Retries = 5
	var seen []error
	r := chatReq()
	r.Attempted = func(err error, retry bool) bool {
		seen = append(seen, err)
		return len(seen) < 2 // one retry allowed, no second
	}
	got, err := e.Chat(context.Background(), r)
	if le := asErr(t, err); le.Status != 503 {
		t.Errorf("error %+v", le)
	}
	if got.Attempts != 2 || s.Count(llmtest.ChatPath) != 2 || len(seen) != 2 || seen[0] == nil || seen[1] == nil {
		t.Errorf("attempts %d, server saw %d, hook saw %v: want 2 requests, the second refused a retry", got.Attempts, s.Count(llmtest.ChatPath), seen)
	}

	s2 := llmtest.New(t, llmtest.Handlers{})
	s2.Inject(1, llmtest.Fault{Status: 500})
	seen = nil
	var retries []bool
	r.Attempted = func(err error, retry bool) bool {
		seen, retries = append(seen, err), append(retries, retry)
		return true
	}
	if _, err := endpoint(s2).Chat(context.Background(), r); err == nil {
		t.Fatal("no retries configured, yet the 500 was not returned")
	}
	if len(retries) != 1 || retries[0] {
		t.Errorf("with no retries configured the hook was told retry %v", retries)
	}
	e2 := endpoint(s2)
	e2.Retries = 1
	s2.Inject(1, llmtest.Fault{Status: 500})
	seen = nil
	if _, err := e2.Chat(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0] == nil || seen[1] != nil {
		t.Errorf("hook saw %v, want a failure then nil", seen)
	}
}

// TestAnErrorBodyCutInsideTheKeyLeavesNoneOfIt: an endpoint that echoes
// the key (or a secret of the run the prompt carried) in an error body, at
// every offset around the 200-byte snippet cut, leaves no 8-byte part of
// it in the error. (The snippet was cut first and redacted after, so the
// key's first bytes survived when the cut fell inside it.)
func TestAnErrorBodyCutInsideTheKeyLeavesNoneOfIt(t *testing.T) {
	const runSecret = "kb-Token/9fQ2xLmZ7wR4"
	for _, sec := range []string{key, runSecret} {
		for pad := 200 - len(sec) - 2; pad <= 200; pad++ {
			s := llmtest.New(t, llmtest.Handlers{})
			s.Inject(1, llmtest.Fault{Status: 400, Body: strings.Repeat("x", pad) + sec + " tail"})
			e := endpoint(s)
			e.Retries = 0
			e.Secrets = redact.New(redact.Secret{Name: "KB_TOKEN", Value: runSecret})
			_, err := e.Chat(context.Background(), chatReq())
			le := asErr(t, err)
			for i := 0; i+8 <= len(sec); i++ {
				if strings.Contains(le.Msg, sec[i:i+8]) {
					t.Fatalf("pad %d: %q of the secret in %q", pad, sec[i:i+8], le.Msg)
				}
			}
		}
	}
}
