package assaytest_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/assaytest"
	"github.com/assay-eval/assay/store"
)

// answers is a target that answers each case with a fixed text.
type answers map[string]string

func (a answers) Observe(_ context.Context, c assay.Case) (assay.Observation, error) {
	return assay.Observation{Case: c.ID, Answer: a[c.ID]}, nil
}

var good = answers{"q001": "They are hashed with SHA-256.", "q007": "SHA-256 as well."}
var bad = answers{"q001": "They are hashed with SHA-256.", "q007": "MD5, sadly."}

func TestRunPasses(t *testing.T) {
	run := assaytest.Run(t, "testdata/golden.yaml", good)
	if run == nil || run.Summary.Passed != 2 || len(run.Cases) != 2 {
		t.Fatalf("run = %+v", run)
	}
}

// recorder is a testing.TB that keeps what a test reports.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	logs   []string
	failed bool
}

func (r *recorder) Helper() {}
func (r *recorder) Log(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprint(args...))
}
func (r *recorder) Errorf(f string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
	r.logs = append(r.logs, fmt.Sprintf(f, args...))
}
func (r *recorder) Error(args ...any) { r.Errorf("%s", fmt.Sprint(args...)) }
func (r *recorder) Fatal(args ...any) { r.Error(args...); panic(fatal{}) }
func (r *recorder) Fatalf(f string, args ...any) {
	r.Errorf(f, args...)
	panic(fatal{})
}

type fatal struct{}

func record(t *testing.T, fn func(tb testing.TB)) (logs string, failed bool) {
	r := &recorder{TB: t}
	func() {
		defer func() {
			if v := recover(); v != nil && v != (fatal{}) {
				panic(v)
			}
		}()
		fn(r)
	}()
	return strings.Join(r.logs, "\n"), r.failed
}

func TestRunFailsNamingTheCaseAndItsFact(t *testing.T) {
	logs, failed := record(t, func(tb testing.TB) { assaytest.Run(tb, "testdata/golden.yaml", bad) })
	if !failed {
		t.Fatalf("a failing gate did not fail the test; logs:\n%s", logs)
	}
	for _, want := range []string{`q007: answer_includes: missing "sha-256"`, `q007: answer_excludes: found "md5"`, "✗ pass_rate >= 1"} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, "q001:") {
		t.Errorf("a passing case was logged:\n%s", logs)
	}
}

func TestRunInvalidSuiteIsPositioned(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/bad.yaml"
	writeFile(t, path, "assay: 1\nname: bad\ncases:\n  - id: q1\n    query: x\n    expect: {answer_include: [y]}\n")
	logs, failed := record(t, func(tb testing.TB) { assaytest.Run(tb, path, good) })
	if !failed || !strings.Contains(logs, path+":6:") {
		t.Fatalf("failed=%v, want a positioned error naming %s:6:\n%s", failed, path, logs)
	}
}

func TestRunExtraGate(t *testing.T) {
	logs, failed := record(t, func(tb testing.TB) {
		assaytest.Run(tb, "testdata/golden.yaml", good, assaytest.Gates("p95_latency_ms <= -1"))
	})
	if !failed || !strings.Contains(logs, "p95_latency_ms") {
		t.Fatalf("an extra failing gate did not fail the test (failed=%v):\n%s", failed, logs)
	}
}

func TestRunStoreDir(t *testing.T) {
	dir := t.TempDir()
	run := assaytest.Run(t, "testdata/golden.yaml", good, assaytest.StoreDir(dir), assaytest.Trials(2), assaytest.Concurrency(1))
	if run == nil || len(run.Cases) != 4 {
		t.Fatalf("run = %+v", run)
	}
	if _, err := readFile(dir + "/runs/" + run.RunID + "/run.json"); err != nil {
		t.Fatalf("the run was not stored: %v", err)
	}
}

func TestRunSubtests(t *testing.T) {
	run := assaytest.Run(t, "testdata/golden.yaml", good, assaytest.Subtests())
	if run == nil || len(run.Cases) != 2 {
		t.Fatalf("run = %+v", run)
	}
}

func TestRunPassesWhenTheGatesTolerateAFailingCase(t *testing.T) {
	logs, failed := record(t, func(tb testing.TB) { assaytest.Run(tb, "testdata/tolerant.yaml", bad) })
	if failed {
		t.Fatalf("pass_rate 0.5 >= 0.5 holds and the test failed:\n%s", logs)
	}
	if !strings.Contains(logs, `testdata/tolerant.yaml:10: q007: answer_includes: missing "sha-256"`) {
		t.Errorf("the tolerated failing case was not logged at its line:\n%s", logs)
	}
}

// short fails every answer longer than 20 bytes.
var short = assaytest.Check("short_answer", func(_ assay.Case, o assay.Observation) assay.Check {
	if len(o.Answer) > 20 {
		return assay.Check{Pass: false, Detail: fmt.Sprintf("%d bytes", len(o.Answer))}
	}
	return assay.Check{Pass: true}
})

func TestCheckCountsInGatesAndTheStoredRun(t *testing.T) {
	dir := t.TempDir()
	var run *assay.Run
	logs, failed := record(t, func(tb testing.TB) {
		run = assaytest.Run(tb, "testdata/golden.yaml", good, short, assaytest.StoreDir(dir))
	})
	// q001's answer (29 bytes) is too long, q007's (16) is not.
	if !failed || !strings.Contains(logs, "testdata/golden.yaml:6: q001: short_answer: 29 bytes") || !strings.Contains(logs, "✗ pass_rate >= 1  value 0.5") {
		t.Fatalf("failed=%v, want the Go check to fail q001 and the gate:\n%s", failed, logs)
	}
	if run == nil || run.Summary.Passed != 1 {
		t.Fatalf("run = %+v", run)
	}
	var stored []assay.Check
	err := store.ReadCases(dir+"/runs/"+run.RunID, func(r assay.CaseResult) error {
		stored = append(stored, r.Checks...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := assay.Check{Kind: "short_answer", Pass: false, Detail: "29 bytes"}
	if !slices.Contains(stored, want) {
		t.Errorf("the stored cases lack %+v: %+v", want, stored)
	}
}

func TestCheckGradesACaseWithoutExpectations(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/plain.yaml"
	writeFile(t, path, "assay: 1\nname: plain\ncases:\n  - id: q001\n    query: x\n")
	long := answers{"q001": "an answer far longer than twenty bytes"}
	logs, failed := record(t, func(tb testing.TB) { assaytest.Run(tb, path, long, short) })
	if !failed || !strings.Contains(logs, path+":4: q001: short_answer: 38 bytes") {
		t.Fatalf("failed=%v, want the ungraded case graded (and failed) by the Go check:\n%s", failed, logs)
	}
}

func TestCheckWithABuiltInKindIsRefused(t *testing.T) {
	clash := assaytest.Check("answer_includes", func(assay.Case, assay.Observation) assay.Check { return assay.Check{Pass: true} })
	logs, failed := record(t, func(tb testing.TB) { assaytest.Run(tb, "testdata/golden.yaml", good, clash) })
	if !failed || !strings.Contains(logs, `check kind "answer_includes" is a built-in check's`) {
		t.Fatalf("failed=%v, want the clash refused:\n%s", failed, logs)
	}
}
