package assaytest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/assay-eval/assay/internal/largetest"
)

// maxProgramBytes bounds the binary of a program that imports only
// assaytest: half of what it was when the harness linked every kind of
// target, the model judge and their HTTP client (21.7 MB).
const maxProgramBytes = 10_800_000

// probeProgram runs a Go value with assaytest.Run, so that the linker
// keeps everything Run can reach.
const probeProgram = `package main

import (
	"context"
	"os"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/assaytest"
)

func main() {
	if len(os.Args) > 1 {
		silent := assay.TargetFunc(func(_ context.Context, c assay.Case) (assay.Observation, error) {
			return assay.Observation{Case: c.ID}, nil
		})
		assaytest.Run(&testing.T{}, os.Args[1], silent)
	}
}
`

// A program importing only assaytest builds, with a plain go build, to at
// most maxProgramBytes: the harness reaches the kinds of target and the
// judge through its seams (package harness/opener), and the loader and
// the grader reach the JSON Schema validator through theirs (package
// grade/jsonschema), so a program that runs a Go value links no HTTP
// client, no templates, no search engine's target and no JSON Schema
// library.
//
// Linking the program is most of this package's test CPU, so this is one
// of the large tests (internal/largetest): it runs when ASSAY_TEST_LARGE=1,
// as in the first go test pass of .ci/run. TestNoCommandLineDependencies
// and the root package's import-arrow test, which run every time, keep
// the known heavy modules (pgx, modernc's SQLite, the progress bar, the
// HTTP client, templates, the JSON Schema library) out of assaytest's
// dependencies; this test also catches anything else heavy.
func TestProgramImportingOnlyAssaytestIsSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	largetest.Skip(t, "builds and links a program")
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte(probeProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "probe")
	// Built from this package's directory, the file's imports resolve in
	// this module.
	if out, err := exec.Command("go", "build", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	fi, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a program importing only assaytest: %d bytes (at most %d)", fi.Size(), maxProgramBytes)
	if fi.Size() > maxProgramBytes {
		t.Errorf("a program importing only assaytest is %d bytes, more than %d: something heavy is linked again (go tool nm -size -sort size)", fi.Size(), maxProgramBytes)
	}
}
