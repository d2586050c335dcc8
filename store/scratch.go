package store

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/assay-eval/assay/internal/atomicfile"
)

// ScratchDir is a temporary directory for scratch run directories
// (BeginScratch), made in a directory for temporary files. While
// it is open, its writer holds an exclusive lock on a file in it, so that a
// later NewScratchDir removes the directories that killed processes left
// (those whose lock no one holds). Close removes it.
type ScratchDir struct {
	Path string
	lock *os.File
}

// scratchPattern names scratch directories; scratchLock is the lock file
// in each.
const (
	scratchPattern = "assay-run-*"
	scratchLock    = ".lock"
)

// NewScratchDir removes the abandoned scratch directories of killed
// processes in tmp (empty: os.TempDir()), then makes a new one there and
// locks it.
func NewScratchDir(tmp string) (*ScratchDir, error) {
	if tmp == "" {
		tmp = os.TempDir()
	}
	sweepScratch(tmp)
	dir, err := os.MkdirTemp(tmp, scratchPattern)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, scratchLock), os.O_CREATE|os.O_RDWR, 0o600)
	if err == nil {
		err = atomicfile.Lock(f)
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return &ScratchDir{Path: dir, lock: f}, nil
}

// Close removes the directory and releases its lock.
func (d *ScratchDir) Close() error {
	if d == nil {
		return nil
	}
	err := os.RemoveAll(d.Path)
	d.lock.Close()
	return err
}

// sweepScratch removes the scratch directories under tmp that no process
// holds: their lock is free (or, where there is no flock, older than
// atomicfile.StaleAfter), or they have none and are older than it (a process
// killed between making one and locking it).
func sweepScratch(tmp string) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, scratchPattern))
	for _, d := range dirs {
		lock := filepath.Join(d, scratchLock)
		if _, err := os.Stat(lock); err == nil {
			if atomicfile.Abandoned(lock) {
				os.RemoveAll(d)
			}
			continue
		}
		if fi, err := os.Stat(d); err == nil && fi.IsDir() && time.Since(fi.ModTime()) > atomicfile.StaleAfter {
			os.RemoveAll(d)
		}
	}
}
