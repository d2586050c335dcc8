//go:build unix

package store_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
)

// An incomplete run reads its cases from cases.jsonl(.gz): one that is a
// symlink to /dev/zero or a FIFO is an error naming it, at once (the FIFO
// blocked for ever, /dev/zero grew memory without bound).
func TestIncompleteRunCasesMustBeAFile(t *testing.T) {
	t.Parallel()
	for _, name := range []string{store.CasesFile, store.CasesGzFile} {
		for _, kind := range []string{"devzero", "fifo"} {
			t.Run(name+"/"+kind, func(t *testing.T) {
				dir := t.TempDir()
				run := `{"schema": "assay.run/v1", "run_id": "r1", "status": "incomplete"}`
				if err := os.WriteFile(filepath.Join(dir, store.RunFile), []byte(run), 0o644); err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(dir, name)
				want := "not a regular file (a character device)"
				if kind == "fifo" {
					want = "not a regular file (a named pipe)"
					if err := syscall.Mkfifo(p, 0o644); err != nil {
						t.Skip(err)
					}
				} else if err := os.Symlink("/dev/zero", p); err != nil {
					t.Fatal(err)
				}
				done := make(chan error, 1)
				go func() { _, err := store.LoadRun(dir); done <- err }()
				select {
				case err := <-done:
					if err == nil || err.Error() != p+": "+want {
						t.Fatalf("err = %v, want %q", err, p+": "+want)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("LoadRun blocked")
				}
			})
		}
	}
}

// A cases.jsonl line longer than the limit is an error at that line, not
// a line held whole.
func TestCasesLineIsBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, store.CasesFile)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	// The second line is 65 MiB of zero bytes: a hole in the file (Truncate
	// writes nothing), so making it costs no writes.
	first := "{\"id\": \"q1\"}\n"
	f.WriteString(first)
	end := int64(len(first)) + 65<<20
	if err := f.Truncate(end); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("\n"), end); err != nil {
		t.Fatal(err)
	}
	f.Close()
	err = store.ReadCases(p, func(r assay.CaseResult) error { return nil })
	if want := p + ":2: larger than the 64 MiB limit for a line"; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}
