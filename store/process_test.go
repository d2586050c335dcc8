package store_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/sqlite"
	"github.com/assay-eval/assay/store/storetest"
)

// TestMain lets the test binary act as a second process writing into a
// store: STORE_HELPER=write writes STORE_RUNS complete runs; =hang begins a
// run, appends two cases, waits past the time their lines may stay
// buffered (RunWriter.Append), prints "ready" and waits to be killed.
func TestMain(m *testing.M) {
	switch os.Getenv("STORE_HELPER") {
	case "":
		os.Exit(m.Run())
	case "write":
		n, _ := strconv.Atoi(os.Getenv("STORE_RUNS"))
		os.Exit(helperWrite(os.Getenv("STORE_ROOT"), n))
	case "hang":
		os.Exit(helperHang(os.Getenv("STORE_ROOT")))
	}
}

func helperWrite(root string, n int) int {
	s, err := sqlite.OpenStore(root, store.OpenOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	defer s.Close()
	for i := range n {
		run := storetest.NewRun("suite", time.Now().UTC())
		w, err := s.Begin(context.Background(), run)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		var cases []assay.CaseResult
		for k := range 10 {
			c := storetest.Case(fmt.Sprintf("q%d", k), (i+k)%3 != 0, 0.5)
			cases = append(cases, c)
			if err := w.Append(c); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 3
			}
		}
		storetest.Complete(run, cases)
		if err := w.Finish(run); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
	}
	return 0
}

func helperHang(root string) int {
	s, err := sqlite.OpenStore(root, store.OpenOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	run := storetest.NewRun("suite", time.Now().UTC())
	w, err := s.Begin(context.Background(), run)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	for _, id := range []string{"q1", "q2"} {
		if err := w.Append(storetest.Case(id, true, 1)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
	}
	time.Sleep(500 * time.Millisecond)
	fmt.Println("ready", run.RunID)
	time.Sleep(time.Minute)
	return 0
}

func helper(t *testing.T, mode, root string, extra ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "STORE_HELPER="+mode, "STORE_ROOT="+root)
	cmd.Env = append(cmd.Env, extra...)
	cmd.Stderr = os.Stderr
	return cmd
}

func TestTwoProcessesWriteOneStore(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts processes")
	}
	root := t.TempDir()
	const perProcess = 12
	var cmds []*exec.Cmd
	for range 2 {
		cmd := helper(t, "write", root, "STORE_RUNS="+strconv.Itoa(perProcess))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer %d: %v", i, err)
		}
	}
	s, err := sqlite.OpenStore(root, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	list, err := s.List(context.Background(), store.Filter{Status: assay.StatusComplete})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2*perProcess {
		t.Errorf("%d complete runs listed; want %d", len(list), 2*perProcess)
	}
	for _, e := range list {
		run, err := store.LoadRun(e.Path)
		if err != nil {
			t.Error(err)
			continue
		}
		if len(run.Cases) != 10 {
			t.Errorf("run %s has %d cases; want 10", e.RunID, len(run.Cases))
		}
	}
}

func TestKilledRunStaysIncomplete(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts processes")
	}
	root := t.TempDir()
	// One complete run first, so latest has something to name.
	if err := helper(t, "write", root, "STORE_RUNS=1").Run(); err != nil {
		t.Fatal(err)
	}
	cmd := helper(t, "hang", root)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var ready, id string
	if _, err := fmt.Fscan(bufio.NewReader(out), &ready, &id); err != nil || ready != "ready" {
		cmd.Process.Kill()
		t.Fatalf("helper did not get ready: %q %v", ready, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	s, err := sqlite.OpenStore(root, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	list, err := s.List(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].RunID != id || list[0].Status != assay.StatusIncomplete {
		t.Fatalf("list = %+v; want the killed run %s first, incomplete", list, id)
	}
	latest, err := s.Resolve(ctx, "latest")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(filepath.Dir(latest)) == id {
		t.Error("latest names the killed, incomplete run")
	}
	run, err := store.LoadRun(list[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != assay.StatusIncomplete || len(run.Cases) != 2 {
		t.Errorf("killed run: status %s with %d cases; want incomplete with the 2 appended", run.Status, len(run.Cases))
	}
}
