//go:build unix

package boundedfile

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var small = Limit{What: "test file", Max: 10}

func write(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// within fails the test when f does not return within 5 s (a FIFO that
// blocks on open would hang it).
func within(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("blocked for 5 s")
		return nil
	}
}

func TestRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	link := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/dev/zero": "/dev/zero: not a regular file (a character device)",
		link:        link + ": not a regular file (a character device)",
		fifo:        fifo + ": not a regular file (a named pipe)",
		dir:         dir + ": a directory, want a test file",
	} {
		for name, read := range map[string]func() error{
			"ReadFile": func() error { _, err := ReadFile(path, small); return err },
			"Open": func() error {
				f, err := Open(path, small)
				if err == nil {
					f.Close()
				}
				return err
			},
			"Check": func() error { _, err := Check(path, small); return err },
		} {
			err := within(t, read)
			if err == nil || err.Error() != want {
				t.Errorf("%s(%s) = %v, want %q", name, path, err, want)
			}
		}
	}
}

func TestSizeLimit(t *testing.T) {
	exact := write(t, "exact", "0123456789")
	if b, err := ReadFile(exact, small); err != nil || string(b) != "0123456789" {
		t.Errorf("a file at the limit: %q, %v", b, err)
	}
	f, err := Open(exact, small)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(f); err != nil || len(b) != 10 {
		t.Errorf("Open of a file at the limit: %d bytes, %v", len(b), err)
	}
	f.Close()
	big := write(t, "big", "0123456789x")
	want := big + ": larger than the 10 bytes limit for a test file"
	if _, err := ReadFile(big, small); err == nil || err.Error() != want {
		t.Errorf("ReadFile of a larger file: %v, want %q", err, want)
	}
	if _, err := Open(big, small); err == nil || err.Error() != want {
		t.Errorf("Open of a larger file: %v, want %q", err, want)
	}
	var tl *TooLargeError
	if _, err := Open(big, small); !errors.As(err, &tl) || Reason(err).Error() != "larger than the 10 bytes limit for a test file" {
		t.Errorf("Reason = %v", Reason(err))
	}
}

func TestReaderStopsAStreamAtTheLimit(t *testing.T) {
	// /dev/zero never ends: a bounded read of it must.
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip(err)
	}
	defer zero.Close()
	n, err := io.Copy(io.Discard, Reader(zero, Limit{What: "stream", Max: 1 * MiB}))
	if err == nil || err.Error() != "larger than the 1 MiB limit for a stream" || n != MiB {
		t.Errorf("read %d bytes, %v", n, err)
	}
	n, err = io.Copy(io.Discard, Reader(strings.NewReader("abc"), Limit{What: "stream", Max: 3}))
	if err != nil || n != 3 {
		t.Errorf("a stream that ends at the limit: %d, %v", n, err)
	}
}

func TestReadLine(t *testing.T) {
	br := bufio.NewReaderSize(strings.NewReader("short\n"+strings.Repeat("x", 100)+"\nlast"), 16)
	if b, err := ReadLine(br, 50); err != nil || string(b) != "short\n" {
		t.Errorf("first line %q, %v", b, err)
	}
	if _, err := ReadLine(br, 50); err == nil || err.Error() != "larger than the 50 bytes limit for a line" {
		t.Errorf("long line: %v", err)
	}
	br = bufio.NewReaderSize(strings.NewReader(strings.Repeat("y", 40)+"\nlast"), 16)
	if b, err := ReadLine(br, 50); err != nil || len(b) != 41 {
		t.Errorf("a line over several buffers: %d bytes, %v", len(b), err)
	}
	if b, err := ReadLine(br, 50); err != io.EOF || string(b) != "last" {
		t.Errorf("last line %q, %v", b, err)
	}
}

func TestPipeOnADescriptorPathIsReadOnce(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		w.WriteString("assay: 1\n")
		w.Close()
	}()
	path := "/proc/self/fd/" + strconv.Itoa(int(r.Fd()))
	if _, err := os.Stat(path); err != nil {
		t.Skip(err)
	}
	if !IsDescriptorPath(path) {
		t.Fatalf("IsDescriptorPath(%s) = false", path)
	}
	for i := range 3 { // the second and third read get the bytes the first kept
		b, err := ReadFile(path, Suite)
		if err != nil || string(b) != "assay: 1\n" {
			t.Fatalf("read %d: %q, %v", i, b, err)
		}
	}
	f, err := Open(path, Suite)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(f); string(b) != "assay: 1\n" {
		t.Errorf("Open after ReadFile: %q", b)
	}
	// A limit that does not offer pipes refuses one.
	if _, err := ReadFile(path, small); err == nil || !strings.Contains(err.Error(), "not a regular file (a named pipe)") {
		t.Errorf("a pipe where none is offered: %v", err)
	}
}

func TestIsDescriptorPath(t *testing.T) {
	for p, want := range map[string]bool{"/dev/stdin": true, "/dev/fd/63": true, "/proc/self/fd/0": true,
		"/dev/fd/x": false, "/dev/zero": false, "suite.yaml": false, "/dev/fd/": false} {
		if got := IsDescriptorPath(p); got != want {
			t.Errorf("IsDescriptorPath(%q) = %v", p, got)
		}
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{1 * GiB: "1 GiB", 64 * MiB: "64 MiB", 16 * KiB: "16 KiB", 1000: "1000 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

// A File seeks back to its start and reads the file again, and its limit
// counts from the start of the file, not from the bytes read so far.
func TestFileSeeksAndKeepsItsLimit(t *testing.T) {
	p := write(t, "f", "0123456789")
	f, err := Open(p, small)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for pass := 0; pass < 2; pass++ {
		b, err := io.ReadAll(f)
		if err != nil || string(b) != "0123456789" {
			t.Fatalf("pass %d: %q, %v", pass, b, err)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(p, []byte("0123456789abc"), 0o644); err != nil { // grown since it was opened
		t.Fatal(err)
	}
	if _, err := f.Seek(5, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	var tl *TooLargeError
	if !errors.As(err, &tl) || string(b) != "56789" {
		t.Errorf("after seeking to 5 in a file grown past the limit: %q, %v; want the 5 bytes to the limit, then a *TooLargeError", b, err)
	}
}
