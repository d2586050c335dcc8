package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// An output whose rendering fails part way leaves the file it would have
// replaced as it was (was: truncated, then half-written).
func TestWriteToKeepsTheOldFileOnError(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "compare.json")
	if err := os.WriteFile(path, []byte("good\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("no space left on device")
	err := writeTo(&Env{}, path, func(w io.Writer) error {
		io.WriteString(w, "{\"half\": ")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
	if b, _ := os.ReadFile(path); string(b) != "good\n" {
		t.Errorf("file holds %q after a failed write, want the old %q", b, "good\n")
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("%d files left in the directory, want 1 (no temporary file)", len(ents))
	}

	// A write that succeeds replaces it, with the usual mode.
	if err := writeTo(&Env{}, path, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new\n" {
		t.Errorf("file holds %q, want %q", b, "new\n")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
}

// A path that is not a regular file (a symlink such as /dev/stdout, a
// device) is written through, not replaced.
func TestWriteToWritesThroughSymlinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	os.WriteFile(real, []byte("old\n"), 0o644)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	if err := writeTo(&Env{}, link, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(real); string(b) != "new\n" {
		t.Errorf("target holds %q, want %q", b, "new\n")
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced by a file")
	}
}
