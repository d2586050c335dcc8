// Package atomicfile replaces a file whole or not at all: what is written
// goes to a temporary file beside it, renamed over it only once everything
// was written, so a write that fails part way (a full disk, a renderer
// error) leaves the file it would have replaced as it was.
//
// It is for the files a user names (reports, suites written by import);
// the run store has its own writer, which also syncs to disk.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("%s: %w", path, reason(err))
	}
	err = write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("%s: %w", path, reason(err))
	}
	return nil
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
