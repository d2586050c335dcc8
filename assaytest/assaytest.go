package assaytest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/grade"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/harness/seam"
)

// Option adjusts Run.
type Option func(*config)

type config struct {
	trials      int
	concurrency int
	gates       []string
	storeDir    string
	subtests    bool
	checks      []grade.Custom
	newJudge    func(assay.JudgeConfig, seam.JudgeOptions) (seam.Judge, error)
}

// Trials makes n observations per case (default 1).
func Trials(n int) Option { return func(c *config) { c.trials = n } }

// Concurrency sets the cases in flight (default runner.DefaultConcurrency).
func Concurrency(n int) Option { return func(c *config) { c.concurrency = n } }

// Gates adds gate expressions to the suite's, e.g. "pass_rate >= 0.9".
func Gates(exprs ...string) Option {
	return func(c *config) { c.gates = append(c.gates, exprs...) }
}

// StoreDir records the run in the run store at dir (default: no store).
func StoreDir(dir string) Option { return func(c *config) { c.storeDir = dir } }

// Subtests makes each case its own subtest, named by its id, so that
// `go test -run 'TestGolden/q007'` runs that case alone. It needs t to be
// a *testing.T.
func Subtests() Option { return func(c *config) { c.subtests = true } }

// Check adds a check written in Go, run on every observation that did
// not fail after the suite's own expectations: fn's Check is recorded
// with the case's other checks under kind (whatever Kind fn sets), so it
// counts in the case's pass, in pass_rate and the other gates, in the
// stored run, its reports and the UI. A case with no expectation of its
// own is graded by it. fn gets the raw observation (before redaction),
// is called concurrently, and a panic in it fails its check. kind is a
// lowercase name ("cites_policy") that no built-in check has.
func Check(kind string, fn func(assay.Case, assay.Observation) assay.Check) Option {
	return func(c *config) { c.checks = append(c.checks, grade.Custom{Kind: kind, Func: fn}) }
}

// Judge makes the model judge of a suite that defines one (judge:) with
// newJudge: package opener's Judge is the one `assay run` uses. Without
// it, the judge registered (a test that imports package harness/opener,
// blank, registers opener's), else a suite with a judge: fails the test
// (a Go test that never judges does not link the judge's HTTP client).
func Judge(newJudge func(assay.JudgeConfig, seam.JudgeOptions) (seam.Judge, error)) Option {
	return func(c *config) { c.newJudge = newJudge }
}

// Run runs the suite at suitePath against tgt and returns the run, with
// its case results in Cases. The test fails when the suite is invalid
// (with its positioned message), when the run is incomplete, when a gate
// fails, and, when the suite and the options state no gate, when a graded
// case fails. Each failing case is logged with its facts, each line
// naming the case's place in the suite file
// ("testdata/golden.yaml:12: q007: answer_includes: missing \"sha-256\"").
// With Subtests, the failing cases' subtests fail exactly when the test
// does (see the package doc). Run returns nil when it could not make a
// run (the test has failed).
func Run(t testing.TB, suitePath string, tgt assay.Target, opts ...Option) *assay.Run {
	t.Helper()
	var c config // zero: harness.Plan's defaults
	for _, o := range opts {
		o(&c)
	}
	var cases []string
	var sub *subtests
	if c.subtests {
		tt, ok := t.(*testing.T)
		if !ok {
			t.Fatalf("assaytest: Subtests needs a *testing.T, got %T", t)
			return nil
		}
		ids, err := harness.CaseIDs(suitePath)
		if err != nil {
			t.Fatal(err)
			return nil
		}
		sub = startSubtests(tt, ids)
		if len(sub.selected) == 0 {
			return nil // -run selects none of the cases
		}
		if len(sub.selected) < len(ids) {
			cases = sub.selected
		}
	}
	res, err := harness.Run(context.Background(), harness.Plan{
		SuitePath: suitePath, System: tgt, Target: "go:" + fmt.Sprintf("%T", tgt),
		Cases: cases, Trials: c.trials, Concurrency: c.concurrency,
		Gates: c.gates, StoreDir: c.storeDir, Checks: c.checks,
		Judge: harness.JudgeOptions{New: c.newJudge},
	})
	if res == nil {
		if sub != nil {
			sub.finish(nil, true, "")
		}
		t.Fatal(err)
		return nil
	}
	defer res.Close()
	run := res.Runs[0]
	// The run returned holds its cases: the files they stream from go
	// with the result.
	var all []assay.CaseResult
	if eerr := run.EachCase(func(r assay.CaseResult) error { all = append(all, r); return nil }); eerr != nil && err == nil {
		err = eerr
	}
	run.Cases, run.CaseStream = all, nil

	// Why the test fails, each a line; none: it passes.
	var fails []string
	for _, g := range run.Gates {
		if !g.Pass {
			fails = append(fails, gate.Line(g))
		}
	}
	switch harness.KindOf(err) {
	case 0:
		if err != nil {
			fails = append(fails, err.Error())
		}
	case harness.GateFailed:
		// The gates are listed above.
	case harness.Incomplete:
		fails = append(fails, fmt.Sprintf("run %s is incomplete: %s", run.RunID, strings.Join(run.Warnings, "; ")))
	default:
		fails = append(fails, err.Error())
	}
	failing := 0
	for _, r := range all {
		if failed(r) {
			failing++
		}
	}
	if len(run.Gates) == 0 && failing > 0 {
		fails = append(fails, fmt.Sprintf("%d case(s) failed, and the suite states no gate (every case must pass)", failing))
	}

	if sub != nil {
		why := "the test fails"
		if len(fails) == 0 {
			why = "tolerated: the suite's gates hold"
		}
		sub.finish(all, len(fails) > 0, why)
	} else {
		for _, r := range all {
			if failed(r) {
				for _, f := range Facts(r) {
					t.Log(at(r) + f)
				}
			}
		}
	}
	for _, f := range fails {
		t.Error(f)
	}
	return run
}

// failed says whether r is a graded case that did not pass (or errored).
func failed(r assay.CaseResult) bool {
	return !r.Passed() && (r.Pass != nil || r.Error != nil)
}

// at is the case's place in its suite file as a prefix ("golden.yaml:12: "),
// "" when the suite's format keeps none.
func at(r assay.CaseResult) string {
	if r.Source == "" {
		return ""
	}
	return r.Source + ": "
}

// Facts are the lines a failing case is logged with: one per failing
// check ("q007: answer_includes: missing \"sha-256\""), or its error.
// Run writes each after the case's place in the suite file.
func Facts(r assay.CaseResult) []string {
	id := r.ID
	if r.Trial > 0 {
		id = fmt.Sprintf("%s (trial %d)", r.ID, r.Trial)
	}
	if r.Error != nil {
		return []string{fmt.Sprintf("%s: error: %s: %s", id, r.Error.Class, r.Error.Message)}
	}
	var out []string
	for _, c := range r.Checks {
		if !c.Pass {
			out = append(out, fmt.Sprintf("%s: %s: %s", id, c.Kind, c.Detail))
		}
	}
	return out
}

// subtests runs one parallel subtest per case: each registers itself
// (so -run decides which cases run), pauses until the parent's function
// returns, then reports its case's results: a failing case's facts are
// errors when the test fails, and logs when the gates tolerate them.
type subtests struct {
	selected []string
	done     chan struct{}
	mu       sync.Mutex
	results  map[string][]assay.CaseResult
	fail     bool   // the test fails: failing cases fail their subtest
	why      string // told by each failing case's subtest
}

func startSubtests(t *testing.T, ids []string) *subtests {
	t.Helper()
	s := &subtests{done: make(chan struct{}), results: map[string][]assay.CaseResult{}}
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			t.Helper() // failure lines name the test's call of Run
			s.selected = append(s.selected, id)
			t.Parallel()
			<-s.done
			s.mu.Lock()
			rs, fail, why := s.results[id], s.fail, s.why
			s.mu.Unlock()
			if len(rs) == 0 {
				t.Skip("the run has no result of this case")
			}
			for _, r := range rs {
				if !failed(r) {
					continue
				}
				for _, f := range Facts(r) {
					if fail {
						t.Error(at(r) + f)
					} else {
						t.Log(at(r) + f)
					}
				}
			}
			if !t.Failed() && slices.ContainsFunc(rs, failed) {
				t.Log(why)
			}
		})
	}
	return s
}

// finish hands each subtest its case's results, and whether failing cases
// fail their subtest.
func (s *subtests) finish(all []assay.CaseResult, fail bool, why string) {
	s.mu.Lock()
	for _, r := range all {
		s.results[r.ID] = append(s.results[r.ID], r)
	}
	s.fail, s.why = fail, why
	s.mu.Unlock()
	close(s.done)
}
