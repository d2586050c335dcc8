// Package filelock serialises the read-modify-write of a file between
// processes: Acquire takes an exclusive lock on a sibling lock file
// ("PATH.lock") and Release gives it up and removes the lock file, so a
// lock held by nobody leaves nothing behind.
//
// On Unix the lock is flock(2) on the lock file: the kernel drops it when
// its holder exits, so a crashed holder never leaves the file locked (a
// stale PATH.lock that nobody holds is simply locked again). Elsewhere the
// lock is the lock file's existence (created with O_EXCL); a holder that
// crashed leaves it behind, and Acquire's error says to remove it.
//
// Acquire never waits without bound: it polls until the context ends or
// Options.Timeout passes, and then fails naming the lock file.
package filelock

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"time"
)

// DefaultTimeout bounds how long Acquire waits for the lock.
const DefaultTimeout = 2 * time.Minute

// ErrTimeout is wrapped by Acquire's error when the lock stayed held.
var ErrTimeout = errors.New("lock held by another process")

// Lock is a held lock; Release gives it up.
type Lock struct {
	path string
	f    *os.File
}

// Path is the lock file's path.
func Path(path string) string { return path + ".lock" }

// Acquire takes the exclusive lock for path (the lock file is Path(path);
// its directory must exist). timeout <= 0 means DefaultTimeout.
func Acquire(ctx context.Context, path string, timeout time.Duration) (*Lock, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	lp := Path(path)
	deadline := time.Now().Add(timeout)
	wait := time.Millisecond
	for {
		f, err := tryLock(lp)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the path is said once
			}
			return nil, fmt.Errorf("%s: taking the lock: %w", lp, err)
		}
		if f != nil {
			return &Lock{path: lp, f: f}, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: %w (waited %s; %s)", lp, ErrTimeout, timeout, staleHint)
		}
		// jittered backoff up to 50 ms: twenty waiters do not poll in step
		d := wait + time.Duration(rand.Int64N(int64(wait)+1))
		if wait < 25*time.Millisecond {
			wait *= 2
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%s: waiting for the lock: %w", lp, ctx.Err())
		case <-t.C:
		}
	}
}

// Release removes the lock file and gives up the lock. It is safe to call
// on a nil Lock and more than once.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := unlock(l.path, l.f)
	l.f = nil
	return err
}
