package target

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assay-eval/assay"
)

// faultServer is a stand-in service that misbehaves in a fixed way per
// case id (the "id" field of the request body).
type faultServer struct {
	srv   *httptest.Server
	mu    sync.Mutex
	calls map[string]int
}

func newFaultServer(t *testing.T) *faultServer {
	f := &faultServer{calls: map[string]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *faultServer) count(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[id]
}

func (f *faultServer) serve(w http.ResponseWriter, r *http.Request) {
	var req struct{ ID, Query string }
	_ = json.NewDecoder(r.Body).Decode(&req)
	f.mu.Lock()
	f.calls[req.ID]++
	n := f.calls[req.ID]
	f.mu.Unlock()
	ok := func() {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"answer": "fine: ` + req.ID + `", "retrieved": [{"id": "a.md", "score": 1}]}`))
	}
	switch req.ID {
	case "e500":
		http.Error(w, "internal error", http.StatusInternalServerError)
	case "r429":
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		ok()
	case "flaky503":
		if n <= 2 {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		ok()
	case "always503":
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
	case "hang":
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	case "reset":
		hj, _ := w.(http.Hijacker)
		conn, _, err := hj.Hijack()
		if err != nil {
			return
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		conn.Close()
	case "garbage":
		w.Write([]byte(`{"answer": "half a respo`))
	case "huge":
		w.Write([]byte(`{"answer": "` + strings.Repeat("x", 4096) + `"}`))
	case "badshape":
		w.Write([]byte(`{"answer": "ok", "retrieved": "not-a-list"}`))
	case "slow":
		time.Sleep(150 * time.Millisecond)
		ok()
	default:
		ok()
	}
}

func fdCount(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}

// settle waits until f() <= want, for up to 3s, and returns the last value.
func settle(want int, f func() int) int {
	deadline := time.Now().Add(3 * time.Second)
	for {
		n := f()
		if n <= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestHTTPFaults is not parallel: it counts the process's goroutines and
// file descriptors before and after, which other tests running at the same
// time (the cached target's, the hybrid's stand-ins) would move.
func TestHTTPFaults(t *testing.T) {
	fs := newFaultServer(t)
	// A port nothing listens on: listen, note the address, close.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	deadAddr := l.Addr().String()
	l.Close()

	fdBefore := fdCount(t)
	goBefore := runtime.NumGoroutine()

	p := writeFile(t, "target.yaml", `surfaces:
  live:
    http:
      url: `+fs.srv.URL+`/ask
      body: {id: "{{.ID}}", query: "{{.Query}}"}
      timeout: 1s
      retries: 2
      backoff: 10ms
      max_body: 1KiB
  down:
    http:
      url: http://`+deadAddr+`/ask
      body: {id: "{{.ID}}"}
      timeout: 300ms
      retries: 1
      backoff: 10ms
`)
	tg, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		class  assay.ErrorClass // "" = passes
		status int
		calls  int // requests the server saw (0: not checked)
		in     string
	}
	cases := map[string]want{
		"ok":        {calls: 1},
		"e500":      {class: assay.ErrHTTPStatus, status: 500, calls: 1, in: "500 Internal Server Error: internal error"},
		"r429":      {calls: 2},
		"flaky503":  {calls: 3},
		"always503": {class: assay.ErrHTTPStatus, status: 503, calls: 3},
		"hang":      {class: assay.ErrTimeout, calls: 1, in: "no response within 1s"},
		"reset":     {class: assay.ErrTransport, calls: 3},
		"garbage":   {class: assay.ErrMalformed, calls: 1, in: "not JSON"},
		"huge":      {class: assay.ErrMalformed, calls: 1, in: "exceeds max_body (1KiB)"},
		"badshape":  {class: assay.ErrMalformed, calls: 1, in: `retrieved: want a list, got a string (path "retrieved"`},
		"slow":      {calls: 1},
		"refused":   {class: assay.ErrTransport, in: "connection refused"},
	}
	var list []assay.Case
	for id := range cases {
		c := assay.Case{ID: id, Query: "q " + id, Surface: "live"}
		if id == "refused" {
			c.Surface = "down"
		}
		list = append(list, c)
	}
	// Four at a time, like the runner's default concurrency.
	results := make(map[string]assay.Observation)
	errs := make(map[string]error)
	var mu sync.Mutex
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(list) {
					return
				}
				o, err := tg.Observe(context.Background(), list[i])
				mu.Lock()
				results[list[i].ID], errs[list[i].ID] = o, err
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := Close(tg); err != nil {
		t.Fatal(err)
	}

	for id, w := range cases {
		o, err := results[id], errs[id]
		if o.Case != id {
			t.Errorf("%s: observation names case %q", id, o.Case)
		}
		if o.LatencyMs == nil {
			t.Errorf("%s: no latency", id)
		}
		if w.class == "" {
			if err != nil || o.Error != nil {
				t.Errorf("%s: want a pass, got %v", id, err)
			}
			if !strings.HasPrefix(o.Answer, "fine") {
				t.Errorf("%s: answer %q", id, o.Answer)
			}
		} else {
			e := assay.AsError(err)
			if err == nil || e.Class != w.class {
				t.Errorf("%s: want class %s, got %v", id, w.class, err)
				continue
			}
			if o.Error == nil || o.Error.Class != w.class {
				t.Errorf("%s: observation error %v, want class %s", id, o.Error, w.class)
			}
			if e.Status != w.status {
				t.Errorf("%s: status %d, want %d", id, e.Status, w.status)
			}
			if !strings.Contains(e.Message, w.in) {
				t.Errorf("%s: message %q does not contain %q", id, e.Message, w.in)
			}
		}
		if w.calls > 0 && fs.count(id) != w.calls {
			t.Errorf("%s: server saw %d requests, want %d", id, fs.count(id), w.calls)
		}
		// The observation records its attempts; the time with the
		// backoff waits is kept apart from the latency, only when retried.
		if w.calls > 0 && o.Attempts != w.calls {
			t.Errorf("%s: attempts %d, want %d", id, o.Attempts, w.calls)
		}
		if retried := o.Attempts > 1; retried != (o.LatencyTotalMs != nil) {
			t.Errorf("%s: attempts %d with latency_total_ms %v", id, o.Attempts, o.LatencyTotalMs)
		} else if retried && *o.LatencyTotalMs < *o.LatencyMs {
			t.Errorf("%s: latency_total_ms %.1f < latency_ms %.1f", id, *o.LatencyTotalMs, *o.LatencyMs)
		}
	}
	if got := results["refused"].Attempts; got != 2 {
		t.Errorf("refused: attempts %d, want 2 (retries: 1)", got)
	}
	// Retry-After: 1 is honoured, and the second waited is assay's, not
	// the system's: latency_ms leaves it out, latency_total_ms has it.
	if tot := results["r429"].LatencyTotalMs; tot == nil || *tot < 950 {
		t.Errorf("r429: latency_total_ms %v, want >= 1s (Retry-After: 1 honoured)", tot)
	}
	if lat := *results["r429"].LatencyMs; lat >= 900 {
		t.Errorf("r429: latency %.0fms includes the 1s backoff wait", lat)
	}
	if lat := *results["slow"].LatencyMs; lat < 150 {
		t.Errorf("slow: latency %.0fms, want >= 150ms", lat)
	}

	fs.srv.CloseClientConnections()
	if n := settle(goBefore, runtime.NumGoroutine); n > goBefore {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines: %d before, %d after\n%s", goBefore, n, buf[:runtime.Stack(buf, true)])
	}
	if n := settle(fdBefore, func() int { return fdCount(t) }); n > fdBefore {
		t.Errorf("file descriptors: %d before, %d after", fdBefore, n)
	}
}

// TestHTTPRetryAfterPastDeadline: a Retry-After longer than the case has
// left is not waited for.
func TestHTTPRetryAfterPastDeadline(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "30")
		http.Error(w, "later", http.StatusTooManyRequests)
	}))
	defer srv.Close()
	tg := mustOpen(t, srv.URL, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := tg.Observe(ctx, assay.Case{ID: "x", Query: "q"})
	if e := assay.AsError(err); e == nil || e.Class != assay.ErrHTTPStatus || e.Status != 429 {
		t.Fatalf("want http_status 429, got %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %s: waited for a Retry-After past the deadline", d)
	}
}

// TestHTTPCanceled: interrupting the run ends a hanging request as canceled.
func TestHTTPCanceled(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	tg := mustOpen(t, srv.URL, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	o, err := tg.Observe(ctx, assay.Case{ID: "x", Query: "q"})
	if e := assay.AsError(err); e == nil || e.Class != assay.ErrCanceled {
		t.Fatalf("want canceled, got %v", err)
	}
	if o.Error == nil || o.Error.Class != assay.ErrCanceled {
		t.Errorf("observation error %v", o.Error)
	}
}
