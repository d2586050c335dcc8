package postgres_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/postgres"
	"github.com/assay-eval/assay/store/postgres/pgtest"
	"github.com/assay-eval/assay/store/storetest"
)

// proxy forwards TCP connections to a server; cut drops every connection
// and refuses new ones for a while: a server restart, as a client sees it.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  map[net.Conn]bool
	down   time.Time // refuse until then
}

func newProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { ln.Close(); p.cut(0) })
	go p.serve()
	return p
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		refused := time.Now().Before(p.down)
		p.mu.Unlock()
		if refused {
			c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns[c], p.conns[s] = true, true
		p.mu.Unlock()
		go func() { io.Copy(s, c); s.Close() }()
		go func() { io.Copy(c, s); c.Close() }()
	}
}

// cut closes every connection and refuses new ones for d.
func (p *proxy) cut(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = time.Now().Add(d)
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// TestRetriesThroughServerRestart: a run goes on through a server restart
// (every connection dropped, new ones refused for a second) and through
// its backends being terminated (57P01): the cases appended meanwhile are
// retried, none is lost or doubled, Finish and reads succeed, and the
// run's lock is taken again, so Delete still refuses the run.
func TestRetriesThroughServerRestart(t *testing.T) {
	direct := pgtest.URL(t)
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	p := newProxy(t, u.Host)
	u.Host = p.ln.Addr().String()
	q := u.Query()
	q.Set("application_name", "assay-retry-test")
	u.RawQuery = q.Encode()
	s := openTest(t, u.String())
	other := openTest(t, direct)
	ctx := context.Background()

	run := storetest.NewRun("kb", storetestT0)
	w, err := s.Begin(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	var cases []assay.CaseResult
	appendN := func(n int) {
		t.Helper()
		for range n {
			c := storetest.Case("q"+string(rune('a'+len(cases))), true, 1)
			if err := w.Append(c); err != nil {
				t.Fatalf("Append of case %d: %v", len(cases)+1, err)
			}
			cases = append(cases, c)
		}
	}
	appendN(5)
	p.cut(time.Second)
	appendN(5) // during the restart
	if _, err := s.List(ctx, store.Filter{}); err != nil {
		t.Fatalf("List after the restart: %v", err)
	}
	if err := pgtest.Exec(direct, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'assay-retry-test'`); err != nil {
		t.Fatal(err)
	}
	appendN(5)

	// The lock's keeper takes the run's lock again on a new connection.
	deadline := time.Now().Add(10 * time.Second)
	for !other.InProgress(ctx, run.RunID) {
		if time.Now().After(deadline) {
			t.Fatal("the run's lock was not taken again after the restart")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := other.Delete(ctx, run.RunID); !errors.Is(err, store.ErrInProgress) {
		t.Errorf("Delete of the run after the restart: %v; want ErrInProgress", err)
	}

	p.cut(500 * time.Millisecond)
	storetest.Complete(run, cases)
	if err := w.Finish(run); err != nil {
		t.Fatalf("Finish during a restart: %v", err)
	}
	got, err := other.Load(ctx, run.RunID)
	if err != nil || got.Status != assay.StatusComplete || len(got.Cases) != len(cases) {
		t.Fatalf("Load = %v; want the complete run with %d cases", err, len(cases))
	}
	n := 0
	if err := other.Cases(ctx, run.RunID, false, func(assay.CaseResult) error { n++; return nil }); err != nil || n != len(cases) {
		t.Errorf("case lines = %d, %v; want %d, none lost or doubled", n, err, len(cases))
	}
}

// TestFirstConnectNotRetried: a store that cannot be reached when it is
// opened (a wrong port) fails at once rather than after RetryWindow.
func TestFirstConnectNotRetried(t *testing.T) {
	start := time.Now()
	_, err := postgres.OpenStore(context.Background(), "postgres://postgres@127.0.0.1:1/x?sslmode=disable", store.OpenOptions{})
	if err == nil {
		t.Fatal("open of a closed port succeeded")
	}
	if d := time.Since(start); d > postgres.RetryWindow/2 {
		t.Errorf("open of a closed port took %s", d)
	}
}
