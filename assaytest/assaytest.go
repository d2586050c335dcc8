package assaytest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/harness"
)

// Option adjusts Run.
type Option func(*config)

type config struct {
	trials      int
	concurrency int
	gates       []string
	storeDir    string
	subtests    bool
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

// Run runs the suite at suitePath against tgt and returns the run, with
// its case results in Cases. The test fails when the suite is invalid
// (with its positioned message), when the run is incomplete, when a gate
// fails, and, when the suite and the options state no gate, when a graded
// case fails. Each failing case is logged with its facts
// ("q007: answer_includes: missing \"sha-256\""). Run returns nil when
// it could not make a run (the test has failed).
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
		Gates: c.gates, StoreDir: c.storeDir,
	})
	if res == nil {
		if sub != nil {
			sub.finish(nil)
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

	failing := 0
	for _, r := range all {
		if r.Passed() || (r.Pass == nil && r.Error == nil) {
			continue
		}
		failing++
		if sub == nil {
			for _, f := range Facts(r) {
				t.Log(f)
			}
		}
	}
	if sub != nil {
		sub.finish(all)
	}
	for _, g := range run.Gates {
		if !g.Pass {
			t.Error(gate.Line(g))
		}
	}
	switch harness.KindOf(err) {
	case 0:
		if err != nil {
			t.Error(err)
		}
	case harness.GateFailed:
		// The gates are listed above.
	case harness.Incomplete:
		t.Errorf("run %s is incomplete: %s", run.RunID, strings.Join(run.Warnings, "; "))
	default:
		t.Error(err)
	}
	if len(run.Gates) == 0 && failing > 0 && sub == nil {
		t.Errorf("%d case(s) failed, and the suite states no gate (every case must pass)", failing)
	}
	return run
}

// Facts are the lines a failing case is logged with: one per failing
// check ("q007: answer_includes: missing \"sha-256\""), or its error.
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
// returns, then reports its case's results.
type subtests struct {
	selected []string
	done     chan struct{}
	mu       sync.Mutex
	results  map[string][]assay.CaseResult
}

func startSubtests(t *testing.T, ids []string) *subtests {
	s := &subtests{done: make(chan struct{}), results: map[string][]assay.CaseResult{}}
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			s.selected = append(s.selected, id)
			t.Parallel()
			<-s.done
			s.mu.Lock()
			rs := s.results[id]
			s.mu.Unlock()
			for _, r := range rs {
				if r.Passed() || (r.Pass == nil && r.Error == nil) {
					continue
				}
				for _, f := range Facts(r) {
					t.Error(f)
				}
			}
		})
	}
	return s
}

// finish hands each subtest its case's results.
func (s *subtests) finish(all []assay.CaseResult) {
	s.mu.Lock()
	for _, r := range all {
		s.results[r.ID] = append(s.results[r.ID], r)
	}
	s.mu.Unlock()
	close(s.done)
}
