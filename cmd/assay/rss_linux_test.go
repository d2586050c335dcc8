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
// child that holds 48 MiB is seen to, and an assay command that ends
// before the first sample reports its own.
//
// The test process holds 112 MiB, so its peak is at least that plus its
// own (about 20 MiB): above the 100 MiB a small child must stay under and
// above what the 48 MiB child reaches (its own 48 and Python's 10), so a
// peak taken from the rusage fails each check. The pages held are touched
// one by one, which costs CPU: the sizes are as small as keep those
// margins.
func TestRunMeasuredCountsTheChildOnly(t *testing.T) {
	// Debian's python3 where it is (a python3 earlier on PATH may be a
	// version manager's shell script that starts a dozen processes).
	py := pyoracle.Python
	if _, err := os.Stat(py); err != nil {
		if py, err = exec.LookPath("python3"); err != nil {
			t.Skip("no python3")
		}
	}
	held := make([]byte, 112<<20)
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
	big, err := runMeasured(exec.Command(py, "-c", "import time; b = bytearray(48 << 20); time.sleep(0.3)"))
	if err != nil {
		t.Fatal(err)
	}
	if big.rssMiB < 48 || big.rssMiB >= len(held)>>20 {
		t.Errorf("a child holding 48 MiB peaked at %d MiB, want 48 to %d", big.rssMiB, len(held)>>20)
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
