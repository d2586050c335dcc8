package store

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/atomicfile"
)

// TestHelperHoldTemp is the child process of TestKilledCompressionLeavesNoTemp:
// it creates the compression's temporary file as Finish does and waits to
// be killed.
func TestHelperHoldTemp(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("ASSAY_TEST_HOLD_TEMP")
	if dir == "" {
		t.Skip("helper process")
	}
	f, err := atomicfile.Create(filepath.Join(dir, CasesGzFile), atomicfile.Options{Sync: true, Locked: true})
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("partial gzip")
	os.WriteFile(filepath.Join(dir, "holding"), nil, 0o644)
	time.Sleep(time.Minute)
}

// A process killed while it compresses cases.jsonl leaves a temporary file;
// the next Open of the store removes it, while a live writer's temporary
// file (locked) stays.
func TestKilledCompressionLeavesNoTemp(t *testing.T) {
	t.Parallel()
	if !atomicfile.CanLock {
		t.Skipf("no flock on %s: temporary files are swept by age", runtime.GOOS)
	}
	root := t.TempDir()
	s, err := OpenFiles(root, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run := &assay.Run{RunID: NewRunID(), Suite: assay.SuiteRef{Name: "kb"}}
	w, err := s.Begin(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(assay.CaseResult{ID: "q1"}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "runs", run.RunID)

	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldTemp$")
	cmd.Env = append(os.Environ(), "ASSAY_TEST_HOLD_TEMP="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "holding")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("helper did not start")
		}
	}
	// A live writer in another process: its file is locked and stays.
	if n := SweepTemp(dir); n != 0 {
		t.Fatalf("swept %d temporary files of a live writer", n)
	}
	cmd.Process.Kill()
	cmd.Wait()
	os.Remove(filepath.Join(dir, "holding"))
	// And one of this process, still being written.
	live, err := atomicfile.Create(filepath.Join(dir, RunFile), atomicfile.Options{Sync: true, Locked: true})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Abort()
	s.Close()

	s2, err := OpenFiles(root, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	want := map[string]bool{RunFile: true, CasesFile: true, filepath.Base(live.Name()): true}
	if len(names) != len(want) {
		t.Fatalf("run directory after reopening: %v, want %v", names, want)
	}
	for _, n := range names {
		if !want[n] {
			t.Fatalf("run directory after reopening: %v, want %v", names, want)
		}
	}
}
