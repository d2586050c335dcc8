// Package llmtest is a stand-in OpenAI-compatible server on 127.0.0.1 for
// tests of code built on package llm (the judge, embeddings, rerank).
//
// It serves, under the base URL Server.URL (which ends in /v1):
//
//	POST /chat/completions  -> Handlers.Chat (default: answers "{}")
//	POST /embeddings        -> Handlers.Embed, once per input (default: a 4-dimension vector hashed from the input)
//	POST /rerank            -> Handlers.Rerank (Cohere/Jina shape: {"query", "documents", "top_n"} ->
//	                           {"results": [{"index", "relevance_score"}]}, best first; default: word overlap)
//
// It counts requests per path (Count), keeps each request (Requests:
// path, body and the Authorization header as sent, so a test can check
// that the key is sent, then grep its own outputs for it), checks the key
// when Key is set (401 otherwise), and injects faults: Inject(n, f) answers
// the next n requests with f (a status, a malformed body, a delay).
//
// Start runs one outside a test, and Main is the stand-in as a program
// (the testscript command llmtest: serve, run a command against it, write
// the request counts).
package llmtest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assay-eval/assay/llm"
)

// Paths served, relative to Server.URL.
const (
	ChatPath   = "/chat/completions"
	EmbedPath  = "/embeddings"
	RerankPath = "/rerank"
)

// Malformed is a body that is not JSON, for Fault.Body.
const Malformed = `{"choices": [{"message": {"content": "trunc`

// ChatRequest is a chat completion request as the server decoded it.
type ChatRequest struct {
	Model          string          `json:"model"`
	Messages       []llm.Message   `json:"messages"`
	Temperature    *float64        `json:"temperature"`
	Seed           *int            `json:"seed"`
	MaxTokens      int             `json:"max_tokens"`
	ResponseFormat json.RawMessage `json:"response_format"`
}

// Prompt is the concatenated content of every message, one per line.
func (r ChatRequest) Prompt() string {
	var b strings.Builder
	for i, m := range r.Messages {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(m.Content)
	}
	return b.String()
}

// Handlers answer the requests; a nil handler takes the default.
type Handlers struct {
	Chat   func(req ChatRequest) (content string, usage llm.Usage)
	Embed  func(input string) []float32
	Rerank func(query string, docs []string) []float64
}

// Fault is what an injected answer does. Delay is waited first (or until
// the client gives up); then Status (when not 0) is answered with Body (or
// a JSON error body) and RetryAfter; a Fault with only Body answers 200
// with that body.
type Fault struct {
	Path       string // only requests to this path ("" = any)
	Status     int
	RetryAfter string
	Body       string
	Delay      time.Duration
}

// Request is one request as received.
type Request struct {
	Path          string
	Authorization string
	Body          []byte
}

// Server is the stand-in. Its methods are safe for concurrent use.
type Server struct {
	URL string // base URL, http://127.0.0.1:PORT/v1
	Key string // when set before requests: requests without "Bearer Key" get 401

	srv    *httptest.Server
	mu     sync.Mutex
	h      Handlers
	faults []queued
	counts map[string]int
	reqs   []Request
}

type queued struct {
	n int
	f Fault
}

// New starts a stand-in with handlers h; it is closed when the test ends.
func New(t testing.TB, h Handlers) *Server {
	s := Start(h)
	t.Cleanup(s.srv.Close)
	return s
}

// Start starts a stand-in with handlers h outside a test (Main); the
// caller closes it.
func Start(h Handlers) *Server {
	s := &Server{h: h, counts: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close stops the server (also done when the test ends).
func (s *Server) Close() { s.srv.Close() }

// Set replaces the handlers.
func (s *Server) Set(h Handlers) {
	s.mu.Lock()
	s.h = h
	s.mu.Unlock()
}

// Inject makes the next n requests (to f.Path, or any) answer with f.
// Faults are used in the order injected.
func (s *Server) Inject(n int, f Fault) {
	s.mu.Lock()
	s.faults = append(s.faults, queued{n: n, f: f})
	s.mu.Unlock()
}

// Count is the number of requests received on path (ChatPath, ...), faults
// included; "" counts all.
func (s *Server) Count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if path == "" {
		return len(s.reqs)
	}
	return s.counts[path]
}

// Requests returns every request received, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Reset forgets the requests and counts.
func (s *Server) Reset() {
	s.mu.Lock()
	s.counts = map[string]int{}
	s.reqs = nil
	s.mu.Unlock()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/v1")
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	s.mu.Lock()
	s.counts[path]++
	s.reqs = append(s.reqs, Request{Path: path, Authorization: r.Header.Get("Authorization"), Body: body})
	h, key := s.h, s.Key
	var fault *Fault
	for i := range s.faults {
		q := &s.faults[i]
		if q.n > 0 && (q.f.Path == "" || q.f.Path == path) {
			q.n--
			f := q.f
			fault = &f
			break
		}
	}
	s.mu.Unlock()

	if fault != nil {
		if fault.Delay > 0 {
			t := time.NewTimer(fault.Delay)
			select {
			case <-r.Context().Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		if fault.Status != 0 || fault.Body != "" {
			if fault.RetryAfter != "" {
				w.Header().Set("Retry-After", fault.RetryAfter)
			}
			st, b := fault.Status, fault.Body
			if st == 0 {
				st = http.StatusOK
			}
			if b == "" {
				b = `{"error": {"message": "injected ` + http.StatusText(st) + `"}}`
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(st)
			io.WriteString(w, b)
			return
		}
	}
	if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]string{"message": "invalid api key"}})
		return
	}
	if r.Method != http.MethodPost {
		writeJSON(w, http.StatusMethodNotAllowed, map[string]any{"error": map[string]string{"message": "POST only"}})
		return
	}
	switch path {
	case ChatPath:
		s.chat(w, body, h)
	case EmbedPath:
		s.embed(w, body, h)
	case RerankPath:
		s.rerank(w, body, h)
	default:
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]string{"message": "no such path " + path}})
	}
}

func badRequest(w http.ResponseWriter, msg string) {
	writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]string{"message": msg}})
}

func (s *Server) chat(w http.ResponseWriter, body []byte, h Handlers) {
	var req ChatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		badRequest(w, "bad request: "+err.Error())
		return
	}
	content, usage := "{}", llm.Usage{}
	if h.Chat != nil {
		content, usage = h.Chat(req)
	}
	if usage == (llm.Usage{}) {
		usage.PromptTokens = len(strings.Fields(req.Prompt()))
		usage.CompletionTokens = len(strings.Fields(content))
		usage.TotalTokens = usage.PromptTokens + usage.CompletionTokens
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": "chatcmpl-stand-in", "object": "chat.completion", "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": map[string]string{"role": "assistant", "content": content}, "finish_reason": "stop"}},
		"usage":   usage,
	})
}

func (s *Server) embed(w http.ResponseWriter, body []byte, h Handlers) {
	var req struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		badRequest(w, "bad request: "+err.Error())
		return
	}
	var inputs []string
	if err := json.Unmarshal(req.Input, &inputs); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			badRequest(w, "input: want a string or a list of strings")
			return
		}
		inputs = []string{one}
	}
	embed := h.Embed
	if embed == nil {
		embed = HashVector
	}
	data := make([]any, len(inputs))
	tokens := 0
	for i, in := range inputs {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": embed(in)}
		tokens += len(strings.Fields(in))
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "model": req.Model, "data": data,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}})
}

func (s *Server) rerank(w http.ResponseWriter, body []byte, h Handlers) {
	var req struct {
		Model     string   `json:"model"`
		Query     string   `json:"query"`
		Documents []string `json:"documents"`
		TopN      int      `json:"top_n"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		badRequest(w, "bad request: "+err.Error())
		return
	}
	score := h.Rerank
	if score == nil {
		score = Overlap
	}
	scores := score(req.Query, req.Documents)
	if len(scores) != len(req.Documents) {
		badRequest(w, "stand-in rerank handler returned the wrong number of scores")
		return
	}
	type result struct {
		Index int     `json:"index"`
		Score float64 `json:"relevance_score"`
	}
	res := make([]result, len(scores))
	for i, sc := range scores {
		res[i] = result{i, sc}
	}
	sort.SliceStable(res, func(i, j int) bool { return res[i].Score > res[j].Score })
	if req.TopN > 0 && req.TopN < len(res) {
		res = res[:req.TopN]
	}
	tokens := len(strings.Fields(req.Query))
	for _, d := range req.Documents {
		tokens += len(strings.Fields(d))
	}
	writeJSON(w, http.StatusOK, map[string]any{"model": req.Model, "results": res, "usage": map[string]int{"total_tokens": tokens}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// HashVector is the default embedding: 4 values in [-1, 1) from the
// sha256 of the input, so equal inputs get equal vectors.
func HashVector(input string) []float32 {
	sum := sha256.Sum256([]byte(input))
	v := make([]float32, 4)
	for i := range v {
		v[i] = float32(binary.BigEndian.Uint32(sum[4*i:]))/float32(1<<31) - 1
	}
	return v
}

// Overlap is the default rerank score: the share of the query's distinct
// lower-case words found in each document.
func Overlap(query string, docs []string) []float64 {
	q := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(query)) {
		q[w] = true
	}
	out := make([]float64, len(docs))
	if len(q) == 0 {
		return out
	}
	for i, d := range docs {
		seen := map[string]bool{}
		for _, w := range strings.Fields(strings.ToLower(d)) {
			if q[w] && !seen[w] {
				seen[w] = true
			}
		}
		out[i] = float64(len(seen)) / float64(len(q))
	}
	return out
}
