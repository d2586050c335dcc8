package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// plainError is an error of the store's disk said in plain words (a full
// disk, a store this user cannot write), wrapping what the system said.
type plainError struct {
	msg string
	err error
}

func (e *plainError) Error() string { return e.msg }
func (e *plainError) Unwrap() error { return e.err }

// explain rewrites err in plain words when it comes from a full disk or a
// store that cannot be written ("unable to open database file (14)",
// "disk I/O error (4874)" and "no space left on device" say neither
// plainly); other errors are returned as they are.
func explain(root string, err error) error {
	if err == nil {
		return nil
	}
	var pe *plainError
	if errors.As(err, &pe) {
		return err
	}
	switch {
	case isDiskFull(err) || (isOpenFailure(err) && diskFull(root)):
		return &plainError{fmt.Sprintf("the disk holding the store %s is full (no space left on the device): free some space, or keep the store on another disk (%v)", root, err), err}
	case isPermission(err) || isSQLiteCode(err, sqlite3.SQLITE_READONLY) || (isOpenFailure(err) && notWritable(root)):
		return &plainError{fmt.Sprintf("the store %s cannot be written by this user (read-only directory or index): give a store directory this user can write (%v)", root, err), err}
	}
	return err
}

func isDiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || isSQLiteCode(err, sqlite3.SQLITE_FULL)
}

// isOpenFailure is SQLite failing to open or map a file: what a full disk
// or an unwritable directory looks like from inside SQLite.
func isOpenFailure(err error) bool {
	return isSQLiteCode(err, sqlite3.SQLITE_CANTOPEN) || isSQLiteCode(err, sqlite3.SQLITE_IOERR) || isSQLiteCode(err, sqlite3.SQLITE_READONLY)
}

// isSQLiteCode reports whether err is an SQLite error of the primary code.
func isSQLiteCode(err error, code int) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == code
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
