package target

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/assay-eval/assay"
)

// script writes an executable shell script and returns its path.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCommandFaults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	script(t, dir, "sys.sh", `
case "$ASSAY_CASE_ID" in
ok) printf '{"answer": "you asked: %s", "retrieved": ["a.md"]}\n' "$ASSAY_QUERY" ;;
exit3) echo "line one of the complaint" >&2; echo "index not found" >&2; exit 3 ;;
garbage) echo "this is not json" ;;
huge) i=0; while [ $i -lt 300 ]; do printf 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'; i=$((i+1)); done ;;
hang) sleep 30 & echo $! > "`+pidFile+`"; wait ;;
args) printf '{"answer": "%s"}\n' "$1" ;;
esac
`)
	p := writeFile(t, "target.yaml", `command: [`+quoteYAML(filepath.Join(dir, "sys.sh"))+`, "{{.Query}}"]
timeout: 2s
max_body: 4KiB
`)
	tg := mustOpen(t, p, Options{})
	cases := []struct {
		id    string
		class assay.ErrorClass
		in    string
	}{
		{"ok", "", ""},
		{"args", "", ""},
		{"exit3", assay.ErrExec, "exit status 3: stderr: line one of the complaint index not found"},
		{"garbage", assay.ErrMalformed, "stdout is not JSON"},
		{"huge", assay.ErrMalformed, "stdout exceeds max_body (4KiB)"},
		{"hang", assay.ErrTimeout, "no result within 2s (process group killed)"},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			o, err := tg.Observe(context.Background(), assay.Case{ID: c.id, Query: "why is the sky blue?"})
			if c.class == "" {
				if err != nil {
					t.Fatalf("want a pass, got %v", err)
				}
				if c.id == "ok" && (o.Answer != "you asked: why is the sky blue?" || len(o.Retrieved) != 1) {
					t.Errorf("observation %+v", o)
				}
				if c.id == "args" && o.Answer != "why is the sky blue?" {
					t.Errorf("templated argument: answer %q", o.Answer)
				}
				return
			}
			e := assay.AsError(err)
			if e == nil || e.Class != c.class || !strings.Contains(e.Message, c.in) {
				t.Fatalf("want %s containing %q, got %v", c.class, c.in, err)
			}
			if o.Error == nil || o.Error.Class != c.class {
				t.Errorf("observation error %v", o.Error)
			}
		})
	}
	// The hanging script's child (sleep 30) died with its process group.
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	for _, ch := range strings.TrimSpace(string(b)) {
		pid = pid*10 + int(ch-'0')
	}
	deadline := time.Now().Add(3 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("child %d of the timed-out command is still running", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A program that cannot be found is a harness error when the target opens,
// not an exec error in every case.
func TestCommandNotFound(t *testing.T) {
	t.Parallel()
	_, err := Open("command:/nonexistent/assay-test-program --flag", Options{})
	if err == nil || !strings.Contains(err.Error(), `program "/nonexistent/assay-test-program" not found`) {
		t.Fatalf("want an error naming the missing program, got %v", err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "t.yaml")
	os.WriteFile(p, []byte("command: [no-such-assay-program, x]\n"), 0o644)
	if _, err := Open(p, Options{}); err == nil || !strings.Contains(err.Error(), "t.yaml:1:") {
		t.Fatalf("want a positioned error, got %v", err)
	}
	// A program that vanishes after the target opened is an exec error.
	script(t, dir, "gone.sh", "echo '{}'\n")
	tg := mustOpen(t, "command:"+filepath.Join(dir, "gone.sh"), Options{})
	os.Remove(filepath.Join(dir, "gone.sh"))
	_, err = tg.Observe(context.Background(), assay.Case{ID: "x", Query: "q"})
	if e := assay.AsError(err); e == nil || e.Class != assay.ErrExec {
		t.Fatalf("want exec error, got %v", err)
	}
}

// Not parallel: it counts the process's goroutines and file descriptors
// (see TestHTTPFaults).
func TestCommandServeRestartsAfterFaults(t *testing.T) {
	dir := t.TempDir()
	// Answers each line; "crash" exits 4, "hang" stops answering.
	script(t, dir, "serve.sh", `
while read -r line; do
  case "$line" in
  *'"id":"crash"'*) echo "crashing on purpose" >&2; exit 4 ;;
  *'"id":"hang"'*) sleep 30 ;;
  *) echo '{"answer": "pid '$$'"}' ;;
  esac
done
`)
	p := writeFile(t, "target.yaml", "command: {serve: ["+quoteYAML(filepath.Join(dir, "serve.sh"))+"], workers: 1, timeout: 500ms}\n")
	fdBefore, goBefore := fdCount(t), runtime.NumGoroutine()
	tg, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		// Close stops the worker; nothing of it is left behind.
		if err := Close(tg); err != nil {
			t.Error(err)
		}
		if n := settle(goBefore, runtime.NumGoroutine); n > goBefore {
			t.Errorf("goroutines: %d before, %d after Close", goBefore, n)
		}
		if n := settle(fdBefore, func() int { return fdCount(t) }); n > fdBefore {
			t.Errorf("file descriptors: %d before, %d after Close", fdBefore, n)
		}
	}()
	ctx := context.Background()
	first, err := tg.Observe(ctx, assay.Case{ID: "a", Query: "q"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := tg.Observe(ctx, assay.Case{ID: "b", Query: "q"})
	if err != nil || again.Answer != first.Answer {
		t.Fatalf("second case on the same worker: %q vs %q (%v)", again.Answer, first.Answer, err)
	}
	_, err = tg.Observe(ctx, assay.Case{ID: "crash", Query: "q"})
	if e := assay.AsError(err); e == nil || e.Class != assay.ErrExec || !strings.Contains(e.Message, "exit status 4") || !strings.Contains(e.Message, "crashing on purpose") {
		t.Fatalf("crash: want exec with exit status 4 and stderr, got %v", err)
	}
	after, err := tg.Observe(ctx, assay.Case{ID: "c", Query: "q"})
	if err != nil || after.Answer == first.Answer {
		t.Fatalf("after a crash the worker restarts: %q (%v)", after.Answer, err)
	}
	_, err = tg.Observe(ctx, assay.Case{ID: "hang", Query: "q"})
	if e := assay.AsError(err); e == nil || e.Class != assay.ErrTimeout {
		t.Fatalf("hang: want timeout, got %v", err)
	}
	if o, err := tg.Observe(ctx, assay.Case{ID: "d", Query: "q"}); err != nil || o.Answer == after.Answer {
		t.Fatalf("after a timeout the worker restarts: %q (%v)", o.Answer, err)
	}
}

func TestSplitWords(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`prog a b`:                  "prog|a|b",
		`'my prog' "x y" z\ w`:      "my prog|x y|z w",
		`  prog   --q='{{.Query}}'`: "prog|--q={{.Query}}",
		`prog ""`:                   "prog|",
	} {
		got, err := splitWords(in)
		if err != nil || strings.Join(got, "|") != want {
			t.Errorf("splitWords(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := splitWords(`prog 'open`); err == nil {
		t.Error("unclosed quote accepted")
	}
}
