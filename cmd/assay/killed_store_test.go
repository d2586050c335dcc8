package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/postgres/pgtest"
	"github.com/assay-eval/assay/store/sqlite"
	"github.com/assay-eval/assay/store/storetest"
)

// killedStoreRuns records n complete runs of cases cases each (answers
// long enough that copying them takes a while) in the files store at dir,
// and returns their digests by run id.
func killedStoreRuns(t *testing.T, dir string, n, cases int) map[string]store.RunDigest {
	t.Helper()
	s, err := sqlite.OpenStore(dir, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	pad := strings.Repeat("text of the answer ", 200)
	want := map[string]store.RunDigest{}
	for i := range n {
		run := storetest.NewRun(fmt.Sprintf("suite%d", i%2), time.Date(2026, 11, 1, 0, i, 0, 0, time.UTC))
		w, err := s.Begin(ctx, run)
		if err != nil {
			t.Fatal(err)
		}
		var cs []assay.CaseResult
		for j := range cases {
			c := storetest.Case(fmt.Sprintf("q%03d", j), j%3 != 0, float64(j%5)/4)
			c.Observation.Answer += pad
			if err := w.Append(c); err != nil {
				t.Fatal(err)
			}
			cs = append(cs, c)
		}
		storetest.Complete(run, cs)
		if err := w.Finish(run); err != nil {
			t.Fatal(err)
		}
		if want[run.RunID], err = store.Digest(ctx, s, run.RunID); err != nil {
			t.Fatal(err)
		}
	}
	return want
}

// startKilled starts `assay ARGS...` (this test binary as assay) and kills
// it with SIGKILL after a random delay below most; it returns whether the
// command had finished by itself (then its exit code must be 0).
func startKilled(t *testing.T, most time.Duration, args ...string) (finished bool) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Args = append([]string{"assay"}, args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("assay %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		return true
	case <-time.After(time.Duration(rand.Int64N(int64(most)))):
		cmd.Process.Kill()
		<-done
		return false
	}
}

// checkIntact opens the store spec and checks that each run it lists
// that is complete is the run want holds: same record, same case lines.
// It returns how many runs it lists.
func checkIntact(t *testing.T, spec string, want map[string]store.RunDigest) int {
	t.Helper()
	s, err := cli.OpenStore(spec, store.OpenOptions{})
	if err != nil {
		t.Fatalf("the store does not open after the kill: %v", err)
	}
	defer s.Close()
	ctx := context.Background()
	list, err := s.List(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range list {
		w, ok := want[e.RunID]
		if !ok {
			t.Errorf("run %s: not a run of the source", e.RunID)
			continue
		}
		if e.Status != assay.StatusComplete {
			continue // a copy cut short: incomplete, redone by the next copy
		}
		got, err := store.Digest(ctx, s, e.RunID)
		if err != nil || got != w {
			t.Errorf("run %s: listed complete but not intact after the kill (%v; %d case lines of %d)", e.RunID, err, got.Lines, w.Lines)
		}
	}
	return len(list)
}

// TestKilledCopyAndPruneLoseNoRun: `assay store copy` and `assay runs
// prune`, each killed (SIGKILL) at random points again and again, never
// leave a run listed complete that is not whole, never change the source
// of a copy, and never remove a run prune keeps; a copy run to its end
// after the kills leaves the destination holding every run whole (the
// kills' truncated copies are redone, not skipped). Into a files store and,
// with ASSAY_TEST_POSTGRES, into Postgres. The copies and prunes run to
// their end have a minute before they count as hung: under the race
// detector on a loaded machine a whole copy took 4 s, and redoing the
// killed copies more than 10.
func TestKilledCopyAndPruneLoseNoRun(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGKILL and flock")
	}
	dests := map[string]func(t *testing.T) string{
		"files": func(t *testing.T) string { return filepath.Join(t.TempDir(), "dst") },
	}
	if os.Getenv(pgtest.EnvVar) != "" {
		dests["postgres"] = func(t *testing.T) string { return pgtest.URL(t) }
	}
	for name, dest := range dests {
		t.Run("copy_into_"+name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "src")
			want := killedStoreRuns(t, src, 6, 60)
			// Kills land anywhere in the time a whole copy takes.
			start := time.Now()
			if code, out, _, _ := runBinaryWithin(t, time.Minute, t.TempDir(), nil, "store", "copy", src, dest(t)); code != 0 {
				t.Fatalf("a whole copy: exit %d\n%s", code, out)
			}
			whole := time.Since(start)
			dst := dest(t)
			kills := 0
			for range 8 {
				if startKilled(t, whole, "store", "copy", src, dst) {
					break
				}
				kills++
				checkIntact(t, dst, want)
				if n := checkIntact(t, src, want); n != len(want) {
					t.Fatalf("the source lists %d runs after a killed copy; want %d", n, len(want))
				}
			}
			code, out, _, _ := runBinaryWithin(t, time.Minute, t.TempDir(), nil, "store", "copy", src, dst)
			t.Logf("a whole copy takes %s; %d copies killed; then: %s", whole, kills, out)
			if code != 0 {
				t.Fatalf("the copy after the kills: exit %d\n%s", code, out)
			}
			if n := checkIntact(t, dst, want); n != len(want) {
				t.Errorf("the destination lists %d runs after the last copy; want %d\n%s", n, len(want), out)
			}
			s, err := cli.OpenStore(dst, store.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for id, w := range want {
				if got, err := store.Digest(context.Background(), s, id); err != nil || got != w {
					t.Errorf("run %s: not whole in the destination after the last copy (%v)", id, err)
				}
			}
		})
	}
	t.Run("prune_files", func(t *testing.T) {
		src := filepath.Join(t.TempDir(), "src")
		want := killedStoreRuns(t, src, 16, 20)
		// Kills land anywhere in the time a whole prune of a copy takes.
		calib := filepath.Join(t.TempDir(), "calib")
		if err := os.CopyFS(calib, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if code, out, _, _ := runBinaryWithin(t, time.Minute, t.TempDir(), nil, "runs", "prune", "--keep", "1", "--store", calib); code != 0 {
			t.Fatalf("a whole prune: exit %d\n%s", code, out)
		}
		whole := time.Since(start)
		kills := 0
		for range 8 {
			if startKilled(t, whole*2/3, "runs", "prune", "--keep", "1", "--store", src) {
				break
			}
			kills++
			checkIntact(t, src, want)
		}
		code, out, _, _ := runBinaryWithin(t, time.Minute, t.TempDir(), nil, "runs", "prune", "--keep", "1", "--store", src)
		t.Logf("a whole prune takes %s; %d prunes killed; then: %s", whole, kills, out)
		if code != 0 {
			t.Fatalf("prune after the kills: exit %d\n%s", code, out)
		}
		if n := checkIntact(t, src, want); n != 2 {
			t.Errorf("the store lists %d runs after prune --keep 1 of two suites; want 2", n)
		}
		ents, _ := os.ReadDir(filepath.Join(src, "runs"))
		if len(ents) != 2 {
			t.Errorf("runs/ holds %d entries after prune; want the 2 runs kept", len(ents))
		}
	})
}
