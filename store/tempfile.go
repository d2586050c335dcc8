package store

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The store writes run.json and cases.jsonl.gz through temporary files
// beside them (".run.json.*.tmp", ".cases.jsonl.gz.*.tmp"), renamed into
// place once complete. A process killed between the two leaves its
// temporary file behind; sweepTemp removes those. A writer holds an
// exclusive lock (flock) on its temporary file until it is renamed, and
// the lock goes with the process, so a file that can be locked belongs to
// no live writer. Where there is no flock, a temporary file is left alone
// until it is staleAfter old.

// A tempFile is an open, locked temporary file and its name.
type tempFile struct {
	*os.File
	name string
}

// Name is the file's current name (not the one it was created under).
func (t *tempFile) Name() string { return t.name }

// staleAfter is the age at which a temporary file or directory that
// cannot be lock-checked (no flock on the platform, or no lock file in it)
// is treated as abandoned.
const staleAfter = time.Hour

// createTemp creates a locked temporary file in dir for pattern. The file
// is created under a name the sweep does not match (pattern + ".new"),
// locked, and only then renamed to its temporary name: a sweep by another
// process never sees a writer's file in the moment between its creation
// and its lock (it would take it for abandoned and remove it).
func createTemp(dir, pattern string) (*tempFile, error) {
	f, err := os.CreateTemp(dir, pattern+".new")
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
	return &tempFile{File: f, name: name}, nil
}

// commitTemp moves the complete temporary file f over path and closes it:
// renamed while still open (and locked) where the platform allows it, so a
// sweep never sees it unlocked before it has its final name.
func commitTemp(f *tempFile, path string) error {
	if renameOpen {
		if err := os.Rename(f.Name(), path); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// abandonTemp closes and removes a temporary file that will not be used.
func abandonTemp(f *tempFile) {
	f.Close()
	os.Remove(f.Name())
}

// isStoreTemp reports whether name is one of the store's temporary files.
func isStoreTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp") &&
		(strings.HasPrefix(name, "."+RunFile+".") || strings.HasPrefix(name, "."+CasesGzFile+"."))
}

// sweepTemp removes the temporary files in a run directory that no live
// writer holds (best effort; it reports how many it removed).
func sweepTemp(dir string) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if base, ok := strings.CutSuffix(e.Name(), ".new"); ok && isStoreTemp(base) {
			// Killed between its creation and its lock: left alone until it
			// is a minute old, so a writer that has not locked it yet keeps it.
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Minute && abandoned(path) && os.Remove(path) == nil {
				n++
			}
			continue
		}
		if !isStoreTemp(e.Name()) {
			continue
		}
		if abandoned(path) && os.Remove(path) == nil {
			n++
		}
	}
	return n
}
