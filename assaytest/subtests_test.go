package assaytest_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/assaytest"
)

// childEnv names the scenario TestSubtestsChild plays when this test
// binary runs itself: Subtests needs a real *testing.T, and whether that
// test fails is seen only from outside it.
const childEnv = "ASSAYTEST_CHILD"

// TestSubtestsChild is the test a child process runs (it does nothing in
// a normal run): Run with Subtests on the scenario's suite and target.
func TestSubtestsChild(t *testing.T) {
	var suite string
	var opts []assaytest.Option
	tgt := bad
	switch os.Getenv(childEnv) {
	case "":
		t.Skip("run by the tests of Subtests in a child process")
	case "gates-hold":
		suite = "testdata/tolerant.yaml"
	case "gates-fail":
		suite = "testdata/golden.yaml"
	case "no-gate":
		suite = "testdata/nogate.yaml"
	case "custom-check":
		// The answers pass the suite's expectations; the Go check fails
		// q007, which the gate pass_rate >= 1 does not tolerate.
		suite, tgt = "testdata/golden.yaml", good
		opts = append(opts, assaytest.Check("no_as_well", func(_ assay.Case, o assay.Observation) assay.Check {
			return assay.Check{Pass: !strings.Contains(o.Answer, "as well"), Detail: "says \"as well\""}
		}))
	default:
		t.Fatalf("unknown scenario %q", os.Getenv(childEnv))
	}
	assaytest.Run(t, suite, tgt, append(opts, assaytest.Subtests())...)
}

// child runs TestSubtestsChild (and the subtests -run selects) in a child
// process playing scenario; it returns the output of go test -v and
// whether the child test passed.
func child(t *testing.T, scenario, run string) (string, bool) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the test binary again (-short)")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestSubtestsChild$"+run, "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+scenario)
	out, err := cmd.CombinedOutput()
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		t.Fatal(err)
	}
	return string(out), err == nil
}

// contains fails t for each pattern (a regexp) out does not match.
func contains(t *testing.T, out string, patterns ...string) {
	t.Helper()
	for _, p := range patterns {
		if !regexp.MustCompile(p).MatchString(out) {
			t.Errorf("output does not match %q:\n%s", p, out)
		}
	}
}

func TestSubtestsPassWhenTheGatesHold(t *testing.T) {
	out, ok := child(t, "gates-hold", "")
	if !ok {
		t.Fatalf("the gates hold (pass_rate 0.5 >= 0.5) and the test failed:\n%s", out)
	}
	contains(t, out,
		`--- PASS: TestSubtestsChild/q007 `,
		`(?m)^\s+subtests_test\.go:\d+: testdata/tolerant\.yaml:10: q007: answer_includes: missing "sha-256"$`,
		`tolerated: the suite's gates hold`,
		`--- PASS: TestSubtestsChild/q001 `,
		`(?m)^--- PASS: TestSubtestsChild `)
}

func TestSubtestsFailWhenTheGatesFail(t *testing.T) {
	out, ok := child(t, "gates-fail", "")
	if ok {
		t.Fatalf("the gate pass_rate >= 1 fails and the test passed:\n%s", out)
	}
	contains(t, out,
		`--- FAIL: TestSubtestsChild/q007 `,
		// The failure line names the test's call of Run, then the case's
		// place in the suite file.
		`(?m)^\s+subtests_test\.go:\d+: testdata/golden\.yaml:10: q007: answer_includes: missing "sha-256"$`,
		`(?m)^\s+subtests_test\.go:\d+: testdata/golden\.yaml:10: q007: answer_excludes: found "md5"$`,
		`--- PASS: TestSubtestsChild/q001 `,
		`✗ pass_rate >= 1  value 0\.5, bound 1  \[testdata/golden\.yaml:4\]`,
		`(?m)^--- FAIL: TestSubtestsChild `)
	if strings.Contains(out, "assaytest.go:") {
		t.Errorf("a line points into assaytest.go, not at the test:\n%s", out)
	}
}

func TestSubtestsNoGateEveryCaseMustPass(t *testing.T) {
	out, ok := child(t, "no-gate", "")
	if ok {
		t.Fatalf("a suite without gates passed with a failing case:\n%s", out)
	}
	contains(t, out, `--- FAIL: TestSubtestsChild/q007 `, `1 case\(s\) failed, and the suite states no gate`)
}

func TestSubtestsRunSelectsOneCase(t *testing.T) {
	// q001 alone passes the gate pass_rate >= 1: the gates apply to the
	// cases selected.
	out, ok := child(t, "gates-fail", "/q001$")
	if !ok {
		t.Fatalf("the case selected passes and the test failed:\n%s", out)
	}
	contains(t, out, `--- PASS: TestSubtestsChild/q001 `)
	if strings.Contains(out, "q007") {
		t.Errorf("q007 ran although -run selects q001:\n%s", out)
	}
}

func TestSubtestsCustomCheckFailsItsCase(t *testing.T) {
	out, ok := child(t, "custom-check", "")
	if ok {
		t.Fatalf("a failing Go check did not fail the test:\n%s", out)
	}
	contains(t, out,
		`--- FAIL: TestSubtestsChild/q007 `,
		`testdata/golden\.yaml:10: q007: no_as_well: says "as well"`,
		`--- PASS: TestSubtestsChild/q001 `)
}
