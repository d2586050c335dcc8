package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/assay-eval/assay/examples/http-knowlex/kb"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite expected sections of testscripts and golden files")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		// knowlex is the example Knowlex-style service of examples/http-knowlex.
		"knowlex": func() {
			os.Exit(kb.Main(os.Args[1:], os.Stdout, os.Stderr, os.Getenv, os.Environ()))
		},
		// assay behaves as the real binary does, signals included.
		"assay": func() {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			code := run(ctx, os.Args[1:], &Env{
				Stdin:  os.Stdin,
				Stdout: os.Stdout,
				Stderr: os.Stderr,
				Getenv: os.Getenv,
			})
			stop()
			os.Exit(code)
		},
	})
}

// repoRoot is the module root (two levels above this package).
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestScripts runs testdata/script/*.txtar. $ROOT is the repository root and
// $SHARED the shared data directory beside it.
func TestScripts(t *testing.T) {
	root := repoRoot(t)
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join(root, "testdata", "script"),
		UpdateScripts: *update,
		Setup: func(e *testscript.Env) error {
			e.Setenv("ROOT", root)
			e.Setenv("SHARED", filepath.Join(filepath.Dir(root), "shared"))
			e.Setenv("NO_COLOR", "1")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// exitcode N CMD ARGS... runs CMD and asserts its exit status is
			// exactly N; its stdout and stderr stay for stdout/stderr checks.
			"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exitcode N CMD [ARGS...]")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("exitcode: bad status %q", args[0])
				}
				err = ts.Exec(args[1], args[2:]...)
				got := 0
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					got = ee.ExitCode()
				} else if err != nil {
					ts.Fatalf("exitcode: %v", err)
				}
				if got != want {
					ts.Fatalf("exit status %d, want %d", got, want)
				}
			},
			// jsonpart FILE prints the parts of a run JSON that a replay must
			// reproduce (summary, segments, gates, cases), indented.
			"jsonpart": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: jsonpart FILE")
				}
				var doc map[string]any
				if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &doc); err != nil {
					ts.Fatalf("%s: %v", args[0], err)
				}
				part := map[string]any{}
				for _, k := range []string{"summary", "segments", "gates", "cases"} {
					part[k] = doc[k]
				}
				b, _ := json.MarshalIndent(part, "", "  ")
				ts.Stdout().Write(append(b, '\n'))
			},
			// lines N FILE asserts FILE has exactly N lines.
			"lines": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: lines N FILE")
				}
				want, _ := strconv.Atoi(args[0])
				got := bytes.Count([]byte(ts.ReadFile(args[1])), []byte("\n"))
				if (got == want) == neg {
					ts.Fatalf("%s has %d lines, want %d", args[1], got, want)
				}
			},
		},
	})
}
