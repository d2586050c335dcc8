package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// plainError is an error of the store's disk said in plain words (a full
// disk, a store this user cannot write), wrapping what the system said.
type plainError struct {
	msg string
	err error
}

func (e *plainError) Error() string { return e.msg }
func (e *plainError) Unwrap() error { return e.err }

// explain is Explain of the files' own errors.
func explain(root string, err error) error { return Explain(root, err, nil) }

// Explain rewrites err in plain words when it comes from a full disk or a
// store that cannot be written ("no space left on device" and an index's
// "unable to open database file (14)" or "disk I/O error (4874)" say
// neither plainly); other errors are returned as they are. backend, when
// set, classes a backend's own errors (store/sqlite: SQLite's codes): a
// full disk, a read-only index, or a failure to open or map a file, which
// is read as a full disk when the disk holding root has no space left and
// as an unwritable store when a probe write in it fails.
func Explain(root string, err error, backend func(error) (full, readOnly, openFailure bool)) error {
	if err == nil {
		return nil
	}
	var pe *plainError
	if errors.As(err, &pe) {
		return err
	}
	var full, readOnly, openFailure bool
	if backend != nil {
		full, readOnly, openFailure = backend(err)
	}
	switch {
	case errors.Is(err, syscall.ENOSPC) || full || (openFailure && diskFull(root)):
		return &plainError{fmt.Sprintf("the disk holding the store %s is full (no space left on the device): free some space, or keep the store on another disk (%v)", root, err), err}
	case isPermission(err) || readOnly || (openFailure && NotWritable(root)):
		return &plainError{fmt.Sprintf("the store %s cannot be written by this user (read-only directory or index): give a store directory this user can write (%v)", root, err), err}
	}
	return err
}

// NotWritable reports whether this process cannot write the store at dir:
// its directory, its runs directory or one of files (an index).
func NotWritable(dir string, files ...string) bool {
	for _, d := range []string{dir, filepath.Join(dir, "runs")} {
		f, err := os.CreateTemp(d, ".assay-write-check-*")
		if err != nil {
			if isPermission(err) {
				return true
			}
			continue
		}
		f.Close()
		os.Remove(f.Name())
	}
	for _, file := range files {
		f, err := os.OpenFile(file, os.O_WRONLY, 0)
		if err != nil {
			if isPermission(err) {
				return true
			}
			continue
		}
		f.Close()
	}
	return false
}

func isPermission(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// casesFile is where a run's cases are appended (an *os.File).
type casesFile interface {
	io.Writer
	Sync() error
	Close() error
	Name() string
}

// openCases opens a run's cases.jsonl for appending; tests replace it to
// inject write errors (a full disk).
var openCases = func(path string) (casesFile, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
}
