package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// makeStoreReadOnly makes dir unwritable for this process until the test
// ends: chmod a-w, or for root (whom modes do not stop) chattr +i; it
// skips the test when neither works.
func makeStoreReadOnly(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		var paths []string
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil {
				paths = append(paths, p)
			}
			return nil
		})
		for _, p := range paths {
			fi, _ := os.Stat(p)
			os.Chmod(p, fi.Mode().Perm()&^0o222)
		}
		t.Cleanup(func() {
			for _, p := range paths {
				fi, _ := os.Stat(p)
				os.Chmod(p, fi.Mode().Perm()|0o200)
			}
		})
		return
	}
	if out, err := exec.Command("chattr", "-R", "+i", dir).CombinedOutput(); err != nil {
		t.Skipf("root, and chattr +i does not work here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-R", "-i", dir).Run() })
}

// runs, runs show, compare and gate work on a store whose directory and
// index this user cannot write; run says plainly that it cannot record.
func TestReadCommandsOnReadOnlyStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := filepath.Join(dir, "st")
	suite := filepath.Join("..", "..", "examples", "quickstart", "suite.yaml")
	for i := 0; i < 2; i++ {
		if code, _, stderr := runIn(t, "run", suite, "--store", st); code != 0 {
			t.Fatalf("run: exit %d: %s", code, stderr)
		}
	}
	makeStoreReadOnly(t, st)
	for _, args := range [][]string{
		{"runs", "--store", st},
		{"runs", "show", "latest", "--store", st},
		{"compare", "latest~1", "latest", "--store", st},
		{"gate", "latest", "--store", st},
	} {
		code, stdout, stderr := runIn(t, args...)
		if code != 0 || stderr != "" {
			t.Errorf("assay %s on a read-only store: exit %d\nstdout %s\nstderr %s", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	code, _, stderr := runIn(t, "run", suite, "--store", st)
	if code != 2 || !strings.Contains(stderr, "assay: error: the store "+st+" cannot be written by this user") {
		t.Errorf("run on a read-only store: exit %d: %s", code, stderr)
	}
}
