package ui

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/assay-eval/assay/internal/httpserve"

	"github.com/assay-eval/assay/store"
)

// serveUI starts Serve on a free loopback port over st and returns its
// base URL (http://127.0.0.1:PORT); it stops when the test ends.
func serveUI(t *testing.T, st store.Store, o Options) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, "127.0.0.1:0", New(st, o), httpserve.DefaultServeLimits, func(a net.Addr) { addrc <- a })
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case a := <-addrc:
		return "http://" + a.String()
	case err := <-done:
		t.Fatal(err)
	}
	return ""
}

// getHost requests u with the Host header host ("" keeps the URL's).
func getHost(t *testing.T, u, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// DNS rebinding: a page of evil.example whose name resolves to 127.0.0.1
// reaches the UI with Host: evil.example. Only the names of the bound
// address are served.
func TestServeRefusesForeignHost(t *testing.T) {
	f := getFixture(t)
	base := serveUI(t, f.st, Options{})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(base, "http://"))
	for _, host := range []string{"evil.example", "evil.example:" + port, "127.0.0.1.evil.example:" + port, "localhost.evil.example", "10.1.2.3:" + port, "attacker"} {
		code, body := getHost(t, base+"/", host)
		if code != http.StatusMisdirectedRequest {
			t.Errorf("Host %q: status %d, want 421", host, code)
		}
		if strings.Contains(body, "quickstart") || strings.Contains(body, port) {
			t.Errorf("Host %q: the refusal shows %q", host, body)
		}
	}
	for _, host := range []string{"", "localhost:" + port, "LOCALHOST:" + port, "localhost", "127.0.0.1", "[::1]:" + port, "127.0.0.2:" + port} {
		if code, body := getHost(t, base+"/", host); code != 200 {
			t.Errorf("Host %q: status %d %s, want 200", host, code, body)
		}
	}
}

// A REF in a URL names a run of the store only: a path (any /, %2F, ..)
// is a 404 that says nothing about files, even when the path names a real
// run.json outside the store.
func TestPathRefIs404(t *testing.T) {
	f := getFixture(t)
	h := New(f.st, Options{})
	outside := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(f.dir, "runs", f.qsCand, store.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	runJSON := filepath.Join(outside, "run.json")
	if err := os.WriteFile(runJSON, src, 0o644); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(f.dir, runJSON)
	if err != nil {
		t.Fatal(err)
	}
	esc := func(s string) string { return strings.ReplaceAll(url.PathEscape(s), ".", "%2E") }
	refs := []string{runJSON, outside, rel, "runs/" + f.qsCand, "runs/" + f.qsCand + "/run.json", "../store/runs/" + f.qsCand,
		"..", "/etc/passwd", "/nonexistent/run.json", "run.json", f.qsCand + "/..", `..\x`, "latest/..", "label:prod"}
	for _, ref := range refs {
		for _, u := range []string{
			"/run/" + esc(ref),
			"/run/" + esc(ref) + "/case/invite-token-hash",
			"/compare?base=" + url.QueryEscape(ref) + "&cand=" + f.qsCand,
			"/compare?base=" + f.qsBase + "&cand=" + url.QueryEscape(ref),
			"/compare/case?base=" + url.QueryEscape(ref) + "&cand=" + f.qsCand + "&id=invite-token-hash",
		} {
			rec := get(t, h, "GET", u)
			b := rec.Body.String()
			if rec.Code != http.StatusNotFound {
				t.Errorf("GET %s: %d, want 404", u, rec.Code)
			}
			for _, leak := range []string{"no such file", "directory", "permission", outside, f.dir, "passwd", "run.json", "quickstart"} {
				if strings.Contains(b, leak) {
					t.Errorf("GET %s: the page says %q:\n%s", u, leak, b)
				}
			}
		}
	}
	// The REFs of a store still work.
	for _, u := range []string{"/run/latest", "/run/latest~1", "/run/" + f.qsCand, "/run/" + strings.ToUpper(f.qsCand[:12]), "/compare?base=latest~1&cand=latest"} {
		if rec := get(t, h, "GET", u); rec.Code != 200 {
			t.Errorf("GET %s: %d %s", u, rec.Code, rec.Body.String())
		}
	}
}

// An error of the store (a run whose case lines are corrupt) is a page
// that names no file; the detail goes to Options.ErrorLog.
func TestErrorPagesRevealNoFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.Open(dir, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id := synthRun(t, st, 5, 0, true)
	runDir := filepath.Join(dir, "runs", id)
	ents, err := os.ReadDir(runDir)
	if err != nil {
		t.Fatal(err)
	}
	broke := false
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "cases.jsonl") {
			if err := os.WriteFile(filepath.Join(runDir, e.Name()), []byte("\x1f\x8bnot gzip at all\n{\"id\":"), 0o644); err != nil {
				t.Fatal(err)
			}
			broke = true
		}
	}
	if !broke {
		t.Fatalf("no cases file in %s", runDir)
	}
	var log syncBuffer
	h := New(st, Options{ErrorLog: &log})
	rec := get(t, h, "GET", "/run/"+id+"/case/q000001")
	if rec.Code < 400 {
		t.Fatalf("case page of a corrupt run: %d, want an error page", rec.Code)
	}
	b := rec.Body.String()
	for _, leak := range []string{dir, "cases.jsonl", "gzip", "runs/", "no such file"} {
		if strings.Contains(b, leak) {
			t.Errorf("the error page says %q:\n%s", leak, b)
		}
	}
	if !strings.Contains(log.String(), "q000001") || !strings.Contains(log.String(), "cases.jsonl") {
		t.Errorf("ErrorLog %q, want the request and the detail", log.String())
	}
	// A case that is not in the run is the UI's own 404, with no file.
	rec = get(t, h, "GET", "/run/"+id+"/case/nope")
	if rec.Code != 404 || strings.Contains(rec.Body.String(), dir) {
		t.Errorf("missing case: %d %s", rec.Code, rec.Body.String())
	}
}

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

// /assets/ serves its files, and lists nothing.
func TestAssetsDoNotList(t *testing.T) {
	h := New(nil, Options{})
	for _, u := range []string{"/assets/", "/assets", "/assets/.", "/assets/%2E", "/assets/nope.css", "/assets/..%2Ftemplates%2Frun.html", "/assets/%2E%2E"} {
		rec := get(t, h, "GET", u)
		if rec.Code == 200 || strings.Contains(rec.Body.String(), "style.css") {
			t.Errorf("GET %s: %d %q, want no listing", u, rec.Code, rec.Body.String())
		}
	}
	rec := get(t, h, "GET", "/assets/style.css")
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/css") || rec.Body.Len() == 0 {
		t.Errorf("GET /assets/style.css: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
}
