//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runBinary runs the assay command (this test binary under the name
// "assay", see TestMain) in dir with stdin, and returns its exit code, its
// stdout and stderr together, how long it took and its peak RSS in bytes.
// A process still running after 10 s is killed (and fails the caller's
// 5 s check).
func runBinary(t *testing.T, dir string, stdin *os.File, args ...string) (code int, out string, took time.Duration, rss int64) {
	t.Helper()
	return runBinaryWithin(t, 10*time.Second, dir, stdin, args...)
}

// runBinaryWithin is runBinary with another time before the process is
// killed (for inputs that take seconds to refuse on a loaded machine).
func runBinaryWithin(t *testing.T, limit time.Duration, dir string, stdin *os.File, args ...string) (code int, out string, took time.Duration, rss int64) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	cmd.Args = append([]string{"assay"}, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	cmd.Stdin = stdin
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	// runMeasured: the child's own peak, not the test process's that the
	// rusage of a vforked child also counts.
	m, err := runMeasured(cmd)
	if cmd.ProcessState == nil {
		t.Fatalf("assay %s: %v", strings.Join(args, " "), err)
	}
	return cmd.ProcessState.ExitCode(), buf.String(), m.took, int64(m.rssMiB) << 20
}

// Every file assay reads, given /dev/zero, a symlink to it or a FIFO with
// no writer, is refused at once: exit 2, one line naming the file, in
// under 5 s and 256 MiB. Before the bounded reads a
// suite or run.json on /dev/zero grew memory until killed, and a FIFO
// blocked for ever.
func TestBadInputFilesAreRefusedAtOnce(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("needs /dev/zero, mkfifo and ru_maxrss in KiB")
	}
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	suite := func(corpus, expect string) string {
		return "assay: 1\nname: s\ncorpus: " + corpus + "\ncases:\n  - id: q1\n    query: hello\n    relevant: [a.md]\n    expect:\n      " + expect + "\n"
	}
	write("docs/a.md", "# A\nhello\n")
	write("suite.yaml", suite("docs/", "answer_includes: [hello]"))
	write("qrels", "q1 0 a.md 1\n")
	write("run.txt", "q1 Q0 a.md 1 1.0 t\n")
	if code, _, stderr := runIn(t, "run", filepath.Join(dir, "suite.yaml"), "--no-store", "--json", filepath.Join(dir, "run.json")); code != 0 {
		t.Fatalf("setup run: exit %d: %s", code, stderr)
	}

	// bad returns the bad input of a kind, as a path ending in ext.
	n := 0
	bad := func(kind, ext string) string {
		t.Helper()
		n++
		name := filepath.Join("bad", kind+strings.Repeat("x", n)+ext)
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		switch kind {
		case "devzero":
			if ext == "" {
				return "/dev/zero"
			}
			fallthrough // a name with the reader's extension can only be a link
		case "symlink":
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		case "fifo":
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip("no mkfifo:", err)
			}
		}
		return name
	}
	type tcase struct {
		name     string
		args     func(kind string) []string
		maxLines int
	}
	cases := []tcase{
		{"suite lint", func(k string) []string { return []string{"lint", bad(k, "")} }, 1},
		{"suite run", func(k string) []string { return []string{"run", bad(k, ""), "--no-store"} }, 1},
		{"corpus file", func(k string) []string {
			name := "c-" + k + ".yaml"
			write(name, suite(bad(k, ".jsonl"), "answer_includes: [hello]"))
			return []string{"run", name, "--no-store"}
		}, 1},
		{"corpus dir entry", func(k string) []string {
			entry := bad(k, ".md")
			name := "d-" + k + ".yaml"
			write(name, suite(filepath.Dir(entry)+"/", "answer_includes: [hello]"))
			return []string{"run", name, "--no-store"}
		}, 1},
		{"json_schema", func(k string) []string {
			name := "s-" + k + ".yaml"
			write(name, suite("docs/", "json_schema: "+bad(k, ".json")))
			return []string{"run", name, "--no-store"}
		}, 1},
		{"json_schema $ref", func(k string) []string {
			ref := "ref-" + k + ".json"
			write(ref, `{"$ref": "`+filepath.ToSlash(bad(k, ".json"))+`"}`)
			name := "r-" + k + ".yaml"
			write(name, suite("docs/", "json_schema: "+ref))
			return []string{"run", name, "--no-store"}
		}, 1},
		{"floors", func(k string) []string { return []string{"gate", "run.json", "--floors", bad(k, ".json")} }, 1},
		{"run.json gate", func(k string) []string { return []string{"gate", bad(k, ".json"), "--gate", "pass_rate >= 0"} }, 1},
		{"run.json compare", func(k string) []string { return []string{"compare", bad(k, ".json"), "run.json"} }, 1},
		{"replay trace", func(k string) []string {
			return []string{"run", "suite.yaml", "--no-store", "--target", "replay:" + bad(k, ".jsonl")}
		}, 1},
		// trec_eval's own two lines ("Cannot read qrels file", "Quit in
		// file"), kept byte for byte.
		{"qrels", func(k string) []string { return []string{"trec", bad(k, ""), "run.txt"} }, 2},
		{"run file trec", func(k string) []string { return []string{"trec", "qrels", bad(k, "")} }, 2},
		{"run file target", func(k string) []string {
			return []string{"run", "suite.yaml", "--no-store", "--target", "trec:" + bad(k, "")}
		}, 1},
		{"target file", func(k string) []string {
			return []string{"run", "suite.yaml", "--no-store", "--target", bad(k, ".yaml")}
		}, 1},
		{"judgments_file", func(k string) []string {
			name := "j-" + k + ".yaml"
			write(name, "judgments_file: "+bad(k, ".jsonl")+"\n"+suite("docs/", "answer_includes: [hello]"))
			return []string{"lint", name}
		}, 1},
		{"labels import", func(k string) []string {
			write("js.yaml", "judgments_file: judgments.jsonl\n"+suite("docs/", "answer_includes: [hello]"))
			return []string{"judgments", "import", bad(k, ".jsonl"), "--suite", "js.yaml"}
		}, 1},
	}
	// The commands without a stdin of their own run one after another in a
	// worker of this test's (inprocess_test.go), measured as a process is:
	// its peak resident set is reset before each command, and a command
	// still running after 10 s is ended by killing the worker. Started as a
	// process each, the 48 commands cost about ten times the CPU, most of
	// it starting and ending the test binary.
	var w *worker
	defer func() {
		if w != nil {
			w.req.Close()
			w.cmd.Wait()
		}
	}()
	inWorker := func(t *testing.T, args []string) (code int, out string, took time.Duration, rss int64) {
		t.Helper()
		if w == nil {
			var err error
			if w, err = startWorker(); err != nil {
				t.Fatal(err)
			}
		}
		rep, m, err := w.runMeasured(workRequest{Args: args, Env: append(os.Environ(), "NO_COLOR=1"), Dir: dir}, 10*time.Second)
		if err != nil || w.cmd.ProcessState != nil {
			w = nil // killed, or died in the command
		}
		if err != nil {
			return m.code, fmt.Sprintf("assay %s: %v", strings.Join(args, " "), err), m.took, 0
		}
		return rep.Code, string(rep.Stdout) + string(rep.Stderr), m.took, int64(m.rssMiB) << 20
	}
	check := func(t *testing.T, stdin *os.File, args []string, maxLines int) {
		t.Helper()
		var code int
		var out string
		var took time.Duration
		var rss int64
		if stdin == nil {
			code, out, took, rss = inWorker(t, args)
		} else {
			code, out, took, rss = runBinary(t, dir, stdin, args...)
		}
		t.Logf("exit %d in %v, max RSS %.1f MiB", code, took.Round(time.Millisecond), float64(rss)/(1<<20))
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if code != 2 || out == "" || len(lines) > maxLines {
			t.Errorf("assay %s: exit %d, %d lines, want exit 2 and %d line(s):\n%s", strings.Join(args, " "), code, len(lines), maxLines, out)
		}
		if took > 5*time.Second {
			t.Errorf("assay %s: took %v, want < 5s", strings.Join(args, " "), took)
		}
		if rss >= 256<<20 {
			t.Errorf("assay %s: max RSS %d MiB, want < 256 MiB", strings.Join(args, " "), rss>>20)
		}
	}
	for _, kind := range []string{"devzero", "symlink", "fifo"} {
		for _, c := range cases {
			t.Run(c.name+"/"+kind, func(t *testing.T) { check(t, nil, c.args(kind), c.maxLines) })
		}
	}
	// A suite on /dev/stdin that is /dev/zero.
	t.Run("suite stdin/devzero", func(t *testing.T) {
		zero, err := os.Open("/dev/zero")
		if err != nil {
			t.Fatal(err)
		}
		defer zero.Close()
		check(t, zero, []string{"lint", "/dev/stdin"}, 1)
	})
}
