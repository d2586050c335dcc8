//go:build unix

package filelock

import (
	"errors"
	"os"
	"syscall"
)

const staleHint = "another process holds it"

// tryLock opens (or creates) the lock file and flocks it without waiting.
// It returns nil, nil when another process holds the lock. The lock is
// only ours if the path still names the file we locked: a holder removes
// the file before unlocking, and a waiter that locked the removed file
// must start again on the new one.
func tryLock(lp string) (*os.File, error) {
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EINTR) {
			return nil, nil
		}
		return nil, err
	}
	held, err1 := f.Stat()
	now, err2 := os.Stat(lp)
	if err1 != nil || err2 != nil || !os.SameFile(held, now) {
		f.Close() // removed or replaced under us: try again
		return nil, nil
	}
	return f, nil
}

func unlock(lp string, f *os.File) error {
	err := os.Remove(lp) // while still held: see tryLock
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
