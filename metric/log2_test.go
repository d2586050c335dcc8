package metric

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/assay-eval/assay/internal/shareddata"
)

// The discount of rank 2 is glibc's log2(3), 0x3ff95c01a39fbd68; Go's
// math.Log2(3) is one unit in the last place above it (...563), which
// rounded one exact 4-decimal tie of nDCG the other way from trec_eval.
func TestDiscountOfRank2IsGlibcsLog2Of3(t *testing.T) {
	if got := math.Float64bits(disc(1)); got != 0x3ff95c01a39fbd68 {
		t.Errorf("disc(1) = %#x (%v), want glibc's log2(3) 0x3ff95c01a39fbd68", got, disc(1))
	}
	if got := math.Float64bits(log2(9)); got != 0x40095c01a39fbd68 {
		t.Errorf("log2(9) = %#x, want glibc's 0x40095c01a39fbd68", got)
	}
}

// Every discount of the table equals glibc's log2 on this machine, bit for
// bit: a C program compiled with gcc prints them. Without gcc the test is
// skipped (it fails under CI=true).
func TestDiscountsAreGlibcsLog2(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		if shareddata.Required() {
			t.Fatal("CI needs gcc to check the log2 table against glibc")
		}
		t.Skip("no gcc to compare log2 with glibc's")
	}
	src, _ := os.ReadFile("gen_log2.go")
	_, prog, ok := bytes.Cut(src, []byte("const program = `"))
	prog, _, _ = bytes.Cut(prog, []byte("`"))
	if !ok {
		t.Fatal("gen_log2.go has no C program")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "log2.c"), prog, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "log2")
	if out, err := exec.Command(gcc, "-O0", "-fno-builtin", "-o", bin, filepath.Join(dir, "log2.c"), "-lm").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, strconv.Itoa(len(discTab)+1)).Output()
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	n, bad := 2, 0
	for sc.Scan() {
		want, err := strconv.ParseUint(sc.Text(), 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := math.Float64bits(log2(float64(n))); got != want || math.Float64bits(disc(n-2)) != want {
			if bad++; bad <= 10 {
				t.Errorf("log2(%d) = %#x, glibc %#x (go generate ./metric rewrites the table)", n, got, want)
			}
		}
		n++
	}
	if n != len(discTab)+2 {
		t.Errorf("compared %d values, want %d", n-2, len(discTab))
	}
}
