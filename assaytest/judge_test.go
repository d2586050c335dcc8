package assaytest_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/assaytest"
	"github.com/assay-eval/assay/harness/seam"
)

const judgedSuite = `assay: 1
name: judged
judge:
  url: http://127.0.0.1:19540/v1
  model: grader-1
cases:
  - {id: q001, query: How are invitation tokens hashed?, expect: {answer_includes: [sha-256]}}
  - {id: q007, query: Which hash does the session store use?, expect: {answer_includes: [sha-256]}}
`

// fakeJudge counts the observations it is asked to grade.
type fakeJudge struct{ graded *atomic.Int64 }

func (j fakeJudge) Grade(_ context.Context, _ assay.Case, _ *assay.Observation, _ map[string]float64, _ *assay.CaseResult) {
	j.graded.Add(1)
}
func (fakeJudge) AssignNuggets(context.Context, assay.Case, *assay.Observation, *assay.CaseResult) bool {
	return false
}
func (fakeJudge) Rubric() []assay.JudgeCriterion { return nil }
func (fakeJudge) MetricNames() []string          { return nil }
func (fakeJudge) NewTally(bool) seam.JudgeTally  { return fakeTally{} }
func (fakeJudge) Warnings() []string             { return nil }
func (fakeTally) Add(*assay.CaseResult)          {}
func (fakeTally) Summary() *assay.JudgeSummary   { return &assay.JudgeSummary{Model: "fake"} }

type fakeTally struct{}

// A suite with a judge: is judged by what Judge makes, once per
// observation, and its totals are the run's.
func TestRunJudgesWithTheJudgeGiven(t *testing.T) {
	path := t.TempDir() + "/judged.yaml"
	writeFile(t, path, judgedSuite)
	var graded atomic.Int64
	var model string
	newJudge := func(cfg assay.JudgeConfig, _ seam.JudgeOptions) (seam.Judge, error) {
		model = cfg.Model
		return fakeJudge{&graded}, nil
	}
	run := assaytest.Run(t, path, good, assaytest.Judge(newJudge))
	if run == nil || run.Summary.Judge == nil || run.Summary.Judge.Model != "fake" {
		t.Fatalf("run's judge summary = %+v; want the fake tally's", run)
	}
	if model != "grader-1" || graded.Load() != 2 {
		t.Fatalf("judge made for model %q graded %d observations; want grader-1 and 2", model, graded.Load())
	}
}

// Without Judge, a suite with a judge: fails the test, saying so.
func TestRunJudgeSuiteWithoutJudgeFails(t *testing.T) {
	path := t.TempDir() + "/judged.yaml"
	writeFile(t, path, judgedSuite)
	logs, failed := record(t, func(tb testing.TB) { assaytest.Run(tb, path, good) })
	if !failed || !strings.Contains(logs, "defines a judge") {
		t.Fatalf("failed=%v; want the test failed because nothing makes the judge:\n%s", failed, logs)
	}
}
