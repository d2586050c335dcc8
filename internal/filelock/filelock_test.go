package filelock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Read-modify-write of one counter file under the lock from many
// goroutines (each lock is its own open file, as in separate processes)
// loses no increment, and leaves no lock file behind.
func TestAcquireSerialisesReadModifyWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "counter")
	if err := os.WriteFile(path, []byte("0"), 0o644); err != nil {
		t.Fatal(err)
	}
	const workers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				l, err := Acquire(context.Background(), path, 30*time.Second)
				if err != nil {
					errs <- err
					return
				}
				b, _ := os.ReadFile(path)
				n, _ := strconv.Atoi(string(b))
				time.Sleep(50 * time.Microsecond) // widen the window a lost update needs
				if err := os.WriteFile(path, []byte(strconv.Itoa(n+1)), 0o644); err != nil {
					errs <- err
				}
				if err := l.Release(); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if got := string(b); got != strconv.Itoa(workers*each) {
		t.Fatalf("counter = %s, want %d (an update was lost)", got, workers*each)
	}
	if _, err := os.Stat(Path(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left behind: %v", err)
	}
}

func TestAcquireTimesOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	l, err := Acquire(context.Background(), path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	_, err = Acquire(context.Background(), path, 30*time.Millisecond)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("second Acquire: %v, want ErrTimeout", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Acquire(ctx, path, time.Minute); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled Acquire: %v, want context.Canceled", err)
	}
}

func TestReleaseTwice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	l, err := Acquire(context.Background(), path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	var nl *Lock
	if err := nl.Release(); err != nil {
		t.Fatal(err)
	}
}

func TestAcquireUnwritableDirectory(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root writes anywhere")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	path := filepath.Join(dir, "f")
	_, err := Acquire(context.Background(), path, time.Second)
	if want := Path(path) + ": taking the lock: permission denied"; err == nil || err.Error() != want {
		t.Fatalf("Acquire = %v, want %s", err, want)
	}
}
