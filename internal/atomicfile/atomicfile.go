// Package atomicfile replaces a file whole or not at all: what is written
// goes to a temporary file beside it, renamed over it only once everything
// was written, so a write that fails part way (a full disk, a renderer
// error) leaves the file it would have replaced as it was.
//
// It is assay's one atomic writer. Replace is for the files a user names
// (reports, suites written by import, the report directory). The run store
// writes run.json and cases.jsonl.gz through Create with Options{Sync,
// Locked}: the same temporary file and rename, synced to disk, and held
// under an exclusive lock (flock) from before it has its temporary name
// until it has been renamed over its path, so that the store's sweep can
// tell a live writer's temporary file from one a killed process left
// (Abandoned). Where the platform has no flock, a temporary file is taken
// for abandoned once it is StaleAfter old.
//
// Temporary files are named ".BASE.RANDOM.tmp" beside the file BASE they
// will replace (IsTemp); a locked one is created as ".BASE.RANDOM.tmp.new",
// locked, and only then renamed to its temporary name, so a sweep by
// another process never sees it unlocked under that name.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Replace writes what write writes to path through a temporary file in its
// directory and a rename; the file gets mode 0644. A path that exists and
// is not a regular file (a symlink such as /dev/stdout, a device, a pipe)
// is written in place. Errors read "PATH: reason", without the temporary
// file's name; an error from write is wrapped, not replaced.
func Replace(path string, write func(io.Writer) error) error {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		fh, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("%s: %w", path, reason(err))
		}
		if err := write(fh); err != nil {
			fh.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := fh.Close(); err != nil {
			return fmt.Errorf("%s: %w", path, reason(err))
		}
		return nil
	}
	f, err := Create(path, Options{})
	if err != nil {
		return fmt.Errorf("%s: %w", path, reason(err))
	}
	if err := write(f); err != nil {
		f.Abort()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("%s: %w", path, reason(err))
	}
	return nil
}

// StaleAfter is the age at which a temporary file that cannot be
// lock-checked (no flock on the platform) is taken for abandoned.
const StaleAfter = time.Hour

// Options of Create.
type Options struct {
	// Sync flushes the file to disk before it is renamed, and its directory
	// after.
	Sync bool
	// Locked holds an exclusive lock on the temporary file until Commit or
	// Abort (see the package doc).
	Locked bool
}

// A File is a temporary file that will replace path: write it, then Commit
// (or Abort). Its mode is 0644 once committed.
type File struct {
	*os.File
	path, name string
	opt        Options
}

// Create creates the temporary file that will replace path, in path's
// directory. Errors are the os package's (they name the temporary file).
func Create(path string, opt Options) (*File, error) {
	pattern := "." + filepath.Base(path) + ".*.tmp"
	if !opt.Locked {
		f, err := os.CreateTemp(filepath.Dir(path), pattern)
		if err != nil {
			return nil, err
		}
		return &File{File: f, path: path, name: f.Name(), opt: opt}, nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), pattern+".new")
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	name := strings.TrimSuffix(f.Name(), ".new")
	if err := os.Rename(f.Name(), name); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &File{File: f, path: path, name: name, opt: opt}, nil
}

// Name is the temporary file's current name.
func (f *File) Name() string { return f.name }

// Commit gives the file mode 0644, syncs it (Options.Sync), renames it over
// the path and closes it. A locked file is renamed while still open (and
// locked) where the platform allows it. On an error the temporary file is
// removed and the path is left as it was.
func (f *File) Commit() error {
	err := f.Chmod(0o644)
	if err == nil && f.opt.Sync {
		err = f.Sync()
	}
	if err != nil {
		f.Abort()
		return err
	}
	if f.opt.Locked && renameOpen {
		if err := os.Rename(f.name, f.path); err != nil {
			f.Abort()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	} else {
		if err := f.Close(); err != nil {
			os.Remove(f.name)
			return err
		}
		if err := os.Rename(f.name, f.path); err != nil {
			os.Remove(f.name)
			return err
		}
	}
	if f.opt.Sync {
		SyncDir(filepath.Dir(f.path))
	}
	return nil
}

// Abort closes and removes the temporary file.
func (f *File) Abort() {
	f.Close()
	os.Remove(f.name)
}

// IsTemp reports whether name (a base name) is a temporary file of
// Create for one of the files bases.
func IsTemp(name string, bases ...string) bool {
	if !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".tmp") {
		return false
	}
	for _, b := range bases {
		if strings.HasPrefix(name, "."+b+".") {
			return true
		}
	}
	return false
}

// CanLock reports whether the platform has flock: where it does not,
// Lock does nothing and Abandoned goes by age.
const CanLock = renameOpen

// Lock takes the exclusive lock of an open file that Abandoned checks, for
// as long as the file stays open (a no-op where there is no flock). The
// store locks its scratch directories' lock files with it.
func Lock(f *os.File) error { return lockFile(f) }

// Abandoned reports whether no process holds the lock of the temporary
// file at path (where there is no flock: whether it is StaleAfter old).
func Abandoned(path string) bool { return abandoned(path) }

// SyncDir flushes a directory's entries to disk (best effort: not every
// file system syncs directories), after a rename or a removal in it.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: not every file system syncs directories
		d.Close()
	}
}

// reason is err without the os operation and file name ("open
// .out.json-123: permission denied" is "permission denied").
func reason(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// SameFile reports whether the file a (which may not exist yet) is the
// file b: an output about to replace it would overwrite b, whatever path
// names them.
func SameFile(a, b string) bool {
	ai, err := os.Stat(a)
	if err != nil {
		return false
	}
	bi, err := os.Stat(b)
	return err == nil && os.SameFile(ai, bi)
}
