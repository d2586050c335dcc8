package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay/trec"
)

// countingFile records how a file opened by openTrecFile is read.
type countingFile struct {
	io.ReadCloser
	read, seeks int64
}

func (c *countingFile) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.read += int64(n)
	return n, err
}

// seekingFile is a countingFile that passes Seek on, as the file does.
type seekingFile struct{ *countingFile }

func (s seekingFile) Seek(off int64, whence int) (int64, error) {
	s.seeks++
	return s.ReadCloser.(io.Seeker).Seek(off, whence)
}

// assay trec reads a run file that is a regular file in passes: a run
// whose topics are interleaved is read once eagerly, then again to collect
// it (twice its size read, after seeking back), and a grouped run once.
// The files openTrecFile returned could not Seek, so every run file was
// read whole in one pass and kept, like standard input (+40 MiB and +17 %
// CPU on the 7M-line pair).
func TestTrecRunFileIsStreamedInPasses(t *testing.T) {
	dir := t.TempDir()
	var qrels, grouped, interleaved strings.Builder
	for q := 1; q <= 3; q++ {
		fmt.Fprintf(&qrels, "%d 0 d%d 1\n", q, q)
		for d := 1; d <= 50; d++ {
			fmt.Fprintf(&grouped, "%d Q0 d%d %d %d t\n", q, d, d, 100-d)
		}
	}
	for d := 1; d <= 50; d++ {
		for q := 1; q <= 3; q++ {
			fmt.Fprintf(&interleaved, "%d Q0 d%d %d %d t\n", q, d, d, 100-d)
		}
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	qp := write("qrels", qrels.String())
	for _, c := range []struct {
		name, text string
		passes     int64
	}{
		{"grouped", grouped.String(), 1},
		{"interleaved", interleaved.String(), 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			rp := write(c.name+".run", c.text)
			var run *countingFile
			open := func(name string) (io.ReadCloser, error) {
				f, err := openTrecFile(name)
				if err != nil || name != rp {
					return f, err
				}
				run = &countingFile{ReadCloser: f}
				if _, ok := f.(io.Seeker); ok {
					return seekingFile{run}, nil
				}
				return run, nil
			}
			var stdout, stderr bytes.Buffer
			if code := trec.Main([]string{qp, rp}, trec.IO{Stdout: &stdout, Stderr: &stderr, Open: open}); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if run.seeks == 0 {
				t.Errorf("the run file was never sought: it was read whole in one pass like standard input (is openTrecFile's file an io.Seeker?)")
			}
			if want := c.passes * int64(len(c.text)); run.read != want {
				t.Errorf("read %d bytes of a %d-byte run, want %d (%d pass(es))", run.read, len(c.text), want, c.passes)
			}
		})
	}
}
