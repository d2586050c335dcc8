package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assay-eval/assay/store"
)

// A store that waits for another process's lock on the index says so once,
// after about a second, and goes on when the lock is released.
func TestOpenSaysItIsWaitingForALock(t *testing.T) {
	root := t.TempDir()
	s, err := OpenStore(root, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	uri, _ := fileURI(filepath.Join(root, DBFile))
	other, err := sql.Open("sqlite", uri+"?_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := context.Background()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	var notices atomic.Int32
	var at atomic.Int64
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		s, err := OpenStore(root, store.OpenOptions{Waiting: func() {
			notices.Add(1)
			at.Store(int64(time.Since(start)))
		}})
		if err == nil {
			s.Close()
		}
		done <- err
	}()
	time.Sleep(2500 * time.Millisecond)
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Open after the lock was released: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Open did not finish after the lock was released")
	}
	if n := notices.Load(); n != 1 {
		t.Fatalf("Waiting called %d times, want once", n)
	}
	if d := time.Duration(at.Load()); d < 800*time.Millisecond || d > 2500*time.Millisecond {
		t.Errorf("Waiting called after %v, want about %v", d, store.WaitNotice)
	}
}
