package cli_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"

	"github.com/assay-eval/assay/harness"
)

const watchSuite = `assay: 1
name: watched
cases:
  - {id: c01, query: q01, expect: {answer_includes: [yes]}}
  - {id: c02, query: q02, expect: {answer_includes: [yes]}}
`

const watchTrace = `{"case": "c01", "trial": 0, "retrieved": [{"id": "d01", "score": 1}], "answer": "yes", "refused": false}
{"case": "c02", "trial": 0, "retrieved": [{"id": "d01", "score": 1}], "answer": "yes", "refused": false}
`

// watchFixture writes a suite and the replay trace it runs against.
func watchFixture(t *testing.T) (dir string, p cli.RunPlan) {
	dir = t.TempDir()
	for name, body := range map[string]string{"suite.yaml": watchSuite, "trace.jsonl": watchTrace} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, cli.RunPlan{Plan: harness.Plan{SuitePath: filepath.Join(dir, "suite.yaml"), Target: "replay:" + filepath.Join(dir, "trace.jsonl"), Trials: 1, Concurrency: 2}}
}

// A change to the target's trace makes a second run, which prints what
// changed against the first: the case that flipped. Looks that find no
// change run nothing; Ctrl-C (the context) ends the watch with the last
// run's outcome.
func TestWatchRerunsOnChangeAndShowsFlips(t *testing.T) {
	dir, p := watchFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(10*time.Second, cancel) // a watch that never re-runs fails, not hangs
	ticks := make(chan time.Time, 1)
	var out bytes.Buffer
	runs := 0
	w := &cli.Watch{Plan: p, Out: &out, Ticks: ticks, OnRun: func(n int, err error) {
		runs = n
		switch n {
		case 1:
			if err != nil {
				t.Errorf("first run: %v", err)
			}
			edited := strings.Replace(watchTrace, `"answer": "yes", "refused": false}
{"case": "c02"`, `"answer": "yes", "refused": false}
{"case": "c02"`, 1)
			edited = strings.Replace(edited, `"score": 1}], "answer": "yes", "refused": false}
`, `"score": 1}], "answer": "nope", "refused": false}
`, 2)
			edited = strings.Replace(edited, `"answer": "nope"`, `"answer": "yes"`, 1)
			if err := os.WriteFile(filepath.Join(dir, "trace.jsonl"), []byte(edited), 0o644); err != nil {
				t.Error(err)
			}
			ticks <- time.Now()
		case 2:
			cancel()
		}
	}}
	err := w.Run(ctx)
	if runs != 2 {
		t.Fatalf("runs = %d, want 2\n%s", runs, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"watch: " + filepath.Join(dir, "trace.jsonl") + " changed: running again",
		"changes since the previous run ",
		"  pass → fail (1): c02",
		"  pass_rate",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "assay run "); n != 2 {
		t.Errorf("%d run summaries, want 2:\n%s", n, got)
	}
	if testing.Verbose() {
		t.Log(got)
	}
	// No gates: the last run's outcome is no error.
	if err != nil {
		t.Errorf("Run = %v, want the last run's nil", err)
	}
}

// A failed gate in the last run is what Ctrl-C returns; a tick with no
// change runs nothing more.
func TestWatchReturnsLastRunOutcome(t *testing.T) {
	_, p := watchFixture(t)
	p.Gates = []string{"pass_rate >= 1.5"}
	ctx, cancel := context.WithCancel(context.Background())
	ticks := make(chan time.Time)
	runs := 0
	w := &cli.Watch{Plan: p, Out: &bytes.Buffer{}, Ticks: ticks, OnRun: func(n int, err error) {
		runs = n
		go func() {
			ticks <- time.Now()
			ticks <- time.Now()
			cancel()
		}()
	}}
	err := w.Run(ctx)
	if runs != 1 {
		t.Errorf("runs = %d, want 1 (nothing changed)", runs)
	}
	var he *harness.Error
	if !errors.As(err, &he) || he.Kind != harness.GateFailed {
		t.Errorf("Run = %v, want the failed gate of the last run", err)
	}
}
