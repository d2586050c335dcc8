package store

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/assay-eval/assay"
)

// failingCases is a cases.jsonl whose writes fail as on a full disk.
type failingCases struct{ name string }

func (f failingCases) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: f.name, Err: syscall.ENOSPC}
}
func (f failingCases) Sync() error  { return nil }
func (f failingCases) Close() error { return nil }
func (f failingCases) Name() string { return f.name }

// A full disk is said in plain words, naming the store.
func TestFullDiskSaidPlainly(t *testing.T) {
	old := openCases
	openCases = func(path string) (casesFile, error) { return failingCases{path}, nil }
	defer func() { openCases = old }()
	root := filepath.Join(t.TempDir(), "st")
	s, err := OpenFiles(root, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.Begin(context.Background(), &assay.Run{Suite: assay.SuiteRef{Name: "kb"}})
	if err != nil {
		t.Fatal(err)
	}
	// The line is written by the Append that fills the buffer, or at the
	// latest by Finish: either one says it.
	err = w.Append(assay.CaseResult{ID: "q1"})
	if err == nil {
		err = w.Finish(&assay.Run{Suite: assay.SuiteRef{Name: "kb"}})
	}
	want := "the disk holding the store " + root + " is full (no space left on the device): free some space, or keep the store on another disk ("
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "no space left on device)") {
		t.Errorf("Append and Finish on a full disk: %v\nwant it to start %q", err, want)
	}
}
