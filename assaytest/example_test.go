package assaytest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/assaytest"
)

// mySystem is the system under test: here, one that answers every
// question the same way.
type mySystem struct{ answer string }

func (s mySystem) Observe(_ context.Context, c assay.Case) (assay.Observation, error) {
	return assay.Observation{Case: c.ID, Answer: s.answer}, nil
}

// printTB stands in for the *testing.T of a test function, printing what
// the test would log.
type printTB struct{ testing.TB }

func (printTB) Helper()                      {}
func (printTB) Log(args ...any)              { fmt.Println(args...) }
func (printTB) Error(args ...any)            { fmt.Println(args...) }
func (printTB) Errorf(f string, args ...any) { fmt.Printf(f+"\n", args...) }
func (printTB) Fatal(args ...any)            { fmt.Println(args...) }
func (printTB) Fatalf(f string, args ...any) { fmt.Printf(f+"\n", args...) }

// In a test, Run takes the test's t:
//
//	func TestGolden(t *testing.T) {
//		run := assaytest.Run(t, "testdata/golden.yaml", mySystem{})
//		_ = run
//	}
//
// A system that names the wrong hash fails the suite's gate; the test
// logs each failing case with its facts.
func ExampleRun() {
	var t testing.TB = printTB{}
	run := assaytest.Run(t, "testdata/golden.yaml", mySystem{answer: "tokens are hashed with md5"})
	fmt.Println("passed", run.Summary.Passed, "of", run.Summary.Cases)
	// Output:
	// testdata/golden.yaml:6: q001: answer_includes: missing "sha-256"
	// testdata/golden.yaml:10: q007: answer_includes: missing "sha-256"
	// testdata/golden.yaml:10: q007: answer_excludes: found "md5"
	// ✗ pass_rate >= 1  value 0, bound 1  [testdata/golden.yaml:4]
	// passed 0 of 2
}

// A check written in Go counts like the suite's own: here every answer
// must be at most 40 bytes long. The second system's answer to q007 is
// right but too long, so the case fails, and with it the suite's gate.
func ExampleCheck() {
	short := assaytest.Check("short_answer", func(c assay.Case, o assay.Observation) assay.Check {
		if n := len(o.Answer); n > 40 {
			return assay.Check{Pass: false, Detail: fmt.Sprintf("%d bytes, want at most 40", n)}
		}
		return assay.Check{Pass: true}
	})
	var t testing.TB = printTB{}
	run := assaytest.Run(t, "testdata/golden.yaml", mySystem{answer: "SHA-256, and the rest of this answer is far too long"}, short)
	fmt.Println("passed", run.Summary.Passed, "of", run.Summary.Cases)
	for _, ch := range run.Cases[0].Checks {
		fmt.Println(run.Cases[0].ID, ch.Kind, ch.Pass)
	}
	// Output:
	// testdata/golden.yaml:6: q001: short_answer: 52 bytes, want at most 40
	// testdata/golden.yaml:10: q007: short_answer: 52 bytes, want at most 40
	// ✗ pass_rate >= 1  value 0, bound 1  [testdata/golden.yaml:4]
	// passed 0 of 2
	// q001 answer_includes true
	// q001 short_answer false
}
