//go:build !unix

package filelock

import (
	"errors"
	"io/fs"
	"os"
)

const staleHint = "if no assay process is running, remove the lock file"

// tryLock creates the lock file exclusively; nil, nil when it exists.
func tryLock(lp string) (*os.File, error) {
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, nil
	}
	return f, err
}

func unlock(lp string, f *os.File) error {
	err := f.Close()
	if rerr := os.Remove(lp); err == nil {
		err = rerr
	}
	return err
}
