package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe to read while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const serveSuite = `assay: 1
name: serve-test
corpus:
  - {id: security, title: Security, text: "Invitation tokens are hashed with SHA-256 before they are stored."}
  - {id: deploy, title: Deployment, text: "The database is hosted in Singapore."}
cases:
  - {id: q1, query: How are invitation tokens hashed?, expect: {answer_includes: [SHA-256]}}
`

// TestServe starts assay serve on a free loopback port, queries every
// route, and stops it through its context as SIGINT would.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "suite.yaml")
	if err := os.WriteFile(path, []byte(serveSuite), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", path, "--addr", "127.0.0.1:0"}, &Env{Stdout: &stdout, Stderr: &stderr})
	}()
	re := regexp.MustCompile(`assay: serving on (http://127\.0\.0\.1:\d+)\n`)
	var base string
	for deadline := time.Now().Add(30 * time.Second); base == ""; {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			base = m[1]
			break
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d early: %s", code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}

	post := func(route, body string) (int, map[string]any) {
		t.Helper()
		resp, err := http.Post(base+route, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v: %s", route, err, b)
		}
		return resp.StatusCode, v
	}

	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	var health map[string]any
	json.NewDecoder(resp.Body).Decode(&health)
	resp.Body.Close()
	if resp.StatusCode != 200 || health["status"] != "ok" || health["documents"] != 2.0 {
		t.Errorf("healthz: %d %v", resp.StatusCode, health)
	}

	code, v := post("/search", `{"query": "database Singapore", "k": 1}`)
	hits, _ := v["retrieved"].([]any)
	if code != 200 || len(hits) != 1 || hits[0].(map[string]any)["id"] != "deploy" {
		t.Errorf("search: %d %v", code, v)
	}

	code, v = post("/ask", `{"query": "How are invitation tokens hashed?", "k": 2}`)
	if code != 200 || !strings.Contains(v["answer"].(string), "SHA-256") || v["refused"] != false {
		t.Errorf("ask: %d %v", code, v)
	}
	if cites, _ := v["citations"].([]any); len(cites) != 1 || cites[0].(map[string]any)["id"] != "security" {
		t.Errorf("ask citations: %v", v["citations"])
	}
	if spans, _ := v["spans"].([]any); len(spans) != 3 {
		t.Errorf("ask spans: %v", v["spans"])
	}

	code, v = post("/ask", `{"query": "What is the capital of France?"}`)
	if code != 200 || v["refused"] != true {
		t.Errorf("off-corpus ask: %d %v", code, v)
	}
	for _, bad := range []struct {
		body string
		want string
	}{
		{`not json`, "not a JSON object"},
		{`{"k": 3}`, `missing \"query\"`},
		{`{"query": "x", "k": -1}`, "k must be >= 1"},
	} {
		code, v := post("/search", bad.body)
		if msg, _ := v["error"].(string); code != 400 || !strings.Contains(msg, strings.ReplaceAll(bad.want, `\"`, `"`)) {
			t.Errorf("%s: %d %v, want 400 %q", bad.body, code, v, bad.want)
		}
	}
	resp, err = http.Get(base + "/search")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /search: %d", resp.StatusCode)
	}

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after shutdown: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	if !strings.Contains(stderr.String(), "assay: stopped") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

func TestServeErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "suite.yaml")
	os.WriteFile(path, []byte(serveSuite), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", path, "--target", "http://x"}, "serves the built-in engine only"},
		{[]string{"serve", path, "--addr", "nonsense"}, `--addr "nonsense"`},
		{[]string{"serve", path, "--addr", "127.0.0.1:http2x"}, "assay: error: --addr \"127.0.0.1:http2x\": unknown port\n"},
		{[]string{"serve", path, "--target", "builtin?k1=x"}, `k1="x" is not a number`},
		{[]string{"serve", filepath.Join(dir, "missing.yaml")}, "missing.yaml"},
		{[]string{"serve"}, "takes 1 argument"},
	} {
		var stderr bytes.Buffer
		code := run(context.Background(), tc.args, &Env{Stdout: io.Discard, Stderr: &stderr})
		if code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args[1:], code, stderr.String(), tc.want)
		}
	}
}
