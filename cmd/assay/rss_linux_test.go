//go:build linux

package main

import (
	"os"
	"os/exec"
	"testing"

	"github.com/assay-eval/assay/internal/pyoracle"
)

// TestRunMeasuredCountsTheChildOnly: a child's peak is its own, not the
// test process's (rusage after vfork reports the larger of the two), a
// child that holds 96 MiB is seen to, and an assay command that ends
// before the first sample reports its own.
func TestRunMeasuredCountsTheChildOnly(t *testing.T) {
	// Debian's python3 where it is (a python3 earlier on PATH may be a
	// version manager's shell script that starts a dozen processes).
	py := pyoracle.Python
	if _, err := os.Stat(py); err != nil {
		if py, err = exec.LookPath("python3"); err != nil {
			t.Skip("no python3")
		}
	}
	held := make([]byte, 160<<20)
	for i := 0; i < len(held); i += os.Getpagesize() { // every page resident
		held[i] = 1
	}
	small, err := runMeasured(exec.Command(py, "-c", "import time; time.sleep(0.3)"))
	if err != nil {
		t.Fatal(err)
	}
	if small.rssMiB <= 0 || small.rssMiB >= 100 {
		t.Errorf("a small child's peak = %d MiB while the test holds %d MiB: want its own (under 100)", small.rssMiB, len(held)>>20)
	}
	big, err := runMeasured(exec.Command(py, "-c", "import time; b = bytearray(96 << 20); time.sleep(0.3)"))
	if err != nil {
		t.Fatal(err)
	}
	if big.rssMiB < 96 || big.rssMiB >= 160 {
		t.Errorf("a child holding 96 MiB peaked at %d MiB, want 96 to 160", big.rssMiB)
	}
	// assay itself, which exits before a sample: the peak it writes.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	quick := exec.Command(exe)
	quick.Args = []string{"assay", "version"}
	q, err := runMeasured(quick)
	if err != nil || q.code != 0 {
		t.Fatalf("assay version: %v, exit %d", err, q.code)
	}
	if q.rssMiB <= 0 || q.rssMiB >= 100 {
		t.Errorf("assay version's peak = %d MiB while the test holds %d MiB: want its own (under 100)", q.rssMiB, len(held)>>20)
	}
	held[0] = 2
}
