package main

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// startServe runs assay serve with bounds l on a free port and returns its
// address; the server stops when the test ends.
func startServe(t *testing.T, l serveLimits) string {
	t.Helper()
	old := serveBounds
	serveBounds = l
	dir := t.TempDir()
	path := filepath.Join(dir, "suite.yaml")
	if err := os.WriteFile(path, []byte(serveSuite), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", path, "--addr", "127.0.0.1:0"}, &Env{Stdout: &stdout, Stderr: &stderr})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("serve did not stop")
		}
		serveBounds = old
	})
	re := regexp.MustCompile(`assay: serving on http://(127\.0\.0\.1:\d+)\n`)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d early: %s", code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start: %s", stderr.String())
		}
	}
}

// closedWithin reports whether the server closes conn within d (reading
// whatever it sends first).
func closedWithin(t *testing.T, conn net.Conn, d time.Duration) (string, bool) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(d))
	b, err := io.ReadAll(conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return string(b), false
	}
	return string(b), true
}

var testBounds = serveLimits{
	Header:    200 * time.Millisecond,
	Read:      400 * time.Millisecond,
	Write:     2 * time.Second,
	Idle:      300 * time.Millisecond,
	MaxHeader: 4 << 10,
	MaxConns:  4,
}

func TestServeBoundsSlowClients(t *testing.T) {
	addr := startServe(t, testBounds)
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}

	t.Run("unfinished headers are dropped", func(t *testing.T) {
		c := dial()
		io.WriteString(c, "POST /search HTTP/1.1\r\nHost: x\r\n")
		if _, ok := closedWithin(t, c, 3*time.Second); !ok {
			t.Fatal("a client that never finishes its headers keeps its connection")
		}
	})
	t.Run("unfinished body is dropped", func(t *testing.T) {
		c := dial()
		io.WriteString(c, "POST /search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"query\":")
		if _, ok := closedWithin(t, c, 3*time.Second); !ok {
			t.Fatal("a client that never finishes its body keeps its connection")
		}
	})
	t.Run("slow body trickle is dropped", func(t *testing.T) {
		c := dial()
		io.WriteString(c, "POST /search HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
		stop := time.Now().Add(3 * time.Second)
		for time.Now().Before(stop) {
			if _, err := io.WriteString(c, " "); err != nil {
				return // the server closed it
			}
			c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			var b [512]byte
			if _, err := c.Read(b[:]); err != nil {
				if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
					return
				}
			}
		}
		t.Fatal("a client trickling its body a byte at a time keeps its connection")
	})
	t.Run("idle keep-alive connection is closed", func(t *testing.T) {
		c := dial()
		io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		out, ok := closedWithin(t, c, 3*time.Second)
		if !strings.HasPrefix(out, "HTTP/1.1 200") {
			t.Fatalf("healthz: %q", out)
		}
		if !ok {
			t.Fatal("an idle keep-alive connection stays open")
		}
	})
	t.Run("oversized headers are refused", func(t *testing.T) {
		c := dial()
		io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: "+strings.Repeat("a", 16<<10)+"\r\n\r\n")
		out, _ := closedWithin(t, c, 3*time.Second)
		if !strings.HasPrefix(out, "HTTP/1.1 431") {
			t.Fatalf("16 KiB of headers: %q, want 431", out)
		}
	})
	t.Run("oversized body is refused", func(t *testing.T) {
		c := dial()
		io.WriteString(c, "POST /search HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n{\"query\": \""+strings.Repeat("a", 1<<20+10))
		out, _ := closedWithin(t, c, 3*time.Second)
		if !strings.HasPrefix(out, "HTTP/1.1 413") {
			t.Fatalf("2 MB body: %.80q, want 413", out)
		}
	})
}

// At most MaxConns connections are served at once; the next waits until one
// closes, and the freed slot serves it.
func TestServeBoundsConnectionCap(t *testing.T) {
	l := testBounds
	l.MaxConns = 2
	l.Header = 5 * time.Second
	l.Read = 5 * time.Second
	l.Idle = 5 * time.Second
	addr := startServe(t, l)
	var held []net.Conn
	for i := 0; i < 2; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		held = append(held, c)
	}
	time.Sleep(100 * time.Millisecond) // let the server accept both
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if n, _ := c.Read(make([]byte, 64)); n > 0 {
		t.Fatal("a third connection was served while two were open with a cap of 2")
	}
	held[0].Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, _ := io.ReadAll(c)
	if !strings.HasPrefix(string(b), "HTTP/1.1 200") {
		t.Fatalf("after a slot freed: %q", b)
	}
}
