package assaytest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay/internal/shareddata"
)

// TestSeparateModule is the acceptance test of package assaytest: a Go
// module of its own (a user's) imports it, with a replace to this
// repository, and runs `go test` offline (GOPROXY=off: every dependency
// comes from the module cache, the go.sum from this repository). Its test
// passes with a target that satisfies the suite's gates, and fails, naming
// the failing case and its fact, with one that does not.
func TestSeparateModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a separate module (-short)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("testdata/golden.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":               "module example.com/golden\n\ngo 1.26\n\nrequire github.com/assay-eval/assay v0.0.0\n\nreplace github.com/assay-eval/assay => " + root + "\n",
		"go.sum":               string(sum),
		"testdata/golden.yaml": string(golden),
		"golden_test.go":       userTest,
		"system.go":            userSystem,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The user's test binary is built once by go test -c and run twice,
	// once with each answer (two go test runs linked it twice).
	build := exec.Command(goBin, "test", "-c", "-o", "golden.test", ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		if strings.Contains(string(out), "module lookup disabled by GOPROXY=off") {
			if shareddata.Required() {
				t.Fatalf("CI must have every dependency in the module cache (.ci/run runs go mod download):\n%s", out)
			}
			t.Skipf("a dependency is not in the module cache (run go mod download in the repository first):\n%s", out)
		}
		t.Fatalf("go test -c of the user's module: %v\n%s", err, out)
	}
	gotest := func(answer string) (string, error) {
		cmd := exec.Command(filepath.Join(dir, "golden.test"), "-test.count=1", "-test.v")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "ANSWER="+answer)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := gotest("SHA-256")
	if err != nil {
		t.Fatalf("go test with a target that satisfies the gates failed: %v\n%s", err, out)
	}
	if !strings.Contains(out, "--- PASS: TestGolden") {
		t.Errorf("no passing TestGolden in:\n%s", out)
	}
	out, err = gotest("MD5")
	if err == nil {
		t.Fatalf("go test with a target that fails the gates passed:\n%s", out)
	}
	for _, want := range []string{"--- FAIL: TestGolden", `q007: answer_includes: missing "sha-256"`, "✗ pass_rate >= 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

const userTest = `package golden

import (
	"testing"

	"github.com/assay-eval/assay/assaytest"
)

func TestGolden(t *testing.T) {
	run := assaytest.Run(t, "testdata/golden.yaml", System{})
	if run != nil && run.Summary.Cases != 2 {
		t.Errorf("cases = %d", run.Summary.Cases)
	}
}
`

// The user's system under test: it answers every question with $ANSWER
// (read in the test process, where the environment is the user's).
const userSystem = `package golden

import (
	"context"
	"os"

	"github.com/assay-eval/assay"
)

type System struct{}

func (System) Observe(_ context.Context, c assay.Case) (assay.Observation, error) {
	return assay.Observation{Case: c.ID, Answer: "hashed with " + os.Getenv("ANSWER")}, nil
}
`
