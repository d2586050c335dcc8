package ui

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/assay-eval/assay/target"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/store"
)

// fixture is a store holding real runs made through harness.Run: the
// quickstart suite against the builtin engine and builtin:rm3, an
// incomplete quickstart run (a replay trace missing cases, stopped after
// the first error), and two runs of the hostile suite (testdata/hostile:
// answers, titles, tags and a case id full of markup) from replay traces.
type fixture struct {
	dir      string
	st       store.Store
	qsBase   string // quickstart builtin (complete)
	qsCand   string // quickstart builtin:rm3 (complete, the latest)
	qsStop   string // quickstart, incomplete
	hBase    string // hostile, base trace
	hCand    string // hostile, cand trace (the hostile answer)
	qsSuite  string
	hosSuite string
}

const quickstart = "../examples/quickstart/suite.yaml"

var (
	fixOnce sync.Once
	fix     *fixture
	fixErr  error
	fixTmp  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	stopSharedBrowser()
	removeLarge()
	removeSynth()
	if fix != nil {
		fix.st.Close()
	}
	if fixTmp != "" {
		os.RemoveAll(fixTmp)
	}
	os.Exit(code)
}

func getFixture(t testing.TB) *fixture {
	t.Helper()
	fixOnce.Do(func() { fix, fixErr = makeFixture() })
	if fixErr != nil {
		t.Fatal(fixErr)
	}
	return fix
}

func makeFixture() (*fixture, error) {
	tmp, err := os.MkdirTemp("", "assay-ui-test-")
	if err != nil {
		return nil, err
	}
	fixTmp = tmp
	f := &fixture{dir: filepath.Join(tmp, "store"), qsSuite: quickstart, hosSuite: "testdata/hostile/suite.yaml"}
	trace := filepath.Join(tmp, "trace.jsonl")
	run := func(p harness.Plan) (*assay.Run, error) {
		p.StoreDir, p.Trials, p.Concurrency, p.Timeout = f.dir, 1, max(p.Concurrency, 4), time.Minute
		res, err := harness.Run(context.Background(), opened(p))
		if res == nil {
			return nil, err
		}
		defer res.Close()
		return res.Runs[0], nil
	}
	r, err := run(harness.Plan{SuitePath: quickstart, OnRun: recordTo(trace)})
	if r == nil {
		return nil, err
	}
	f.qsBase = r.RunID
	// A replay of the first three recorded cases: the fourth is missing,
	// and the run stops at that first error (incomplete).
	short := filepath.Join(tmp, "short.jsonl")
	if err := headLines(trace, short, 3); err != nil {
		return nil, err
	}
	r, _ = run(harness.Plan{SuitePath: quickstart, Target: "replay:" + short, MaxErrors: 1, Concurrency: 1})
	if r == nil || r.Status != assay.StatusIncomplete {
		return nil, fmt.Errorf("the stopped quickstart run is not incomplete: %+v", r)
	}
	f.qsStop = r.RunID
	if r, err = run(harness.Plan{SuitePath: quickstart, Target: "builtin:rm3"}); r == nil {
		return nil, err
	}
	f.qsCand = r.RunID
	if r, err = run(harness.Plan{SuitePath: f.hosSuite, Target: "replay:testdata/hostile/base.jsonl"}); r == nil {
		return nil, err
	}
	f.hBase = r.RunID
	if r, err = run(harness.Plan{SuitePath: f.hosSuite, Target: "replay:testdata/hostile/cand.jsonl"}); r == nil {
		return nil, err
	}
	f.hCand = r.RunID
	f.st, err = store.Open(f.dir, store.OpenOptions{ForReading: true})
	return f, err
}

func headLines(src, dst string, n int) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for i := 0; i < n && sc.Scan(); i++ {
		out.Write(append(sc.Bytes(), '\n'))
	}
	return out.Close()
}

// recordTo writes the observations of a run to the trace at path, as
// assay run --record does.
func recordTo(path string) func(*assay.Suite, *assay.Run) (harness.Sink, error) {
	return func(*assay.Suite, *assay.Run) (harness.Sink, error) {
		rec, err := target.NewRecorder(path)
		if err != nil {
			return nil, err
		}
		return recSink{rec}, nil
	}
}

type recSink struct{ rec *target.Recorder }

func (s recSink) Add(_ assay.Case, r assay.CaseResult) error {
	if r.Observation == nil {
		return nil
	}
	return s.rec.Write(*r.Observation)
}

func (s recSink) Close(bool) error { return s.rec.Close() }

// synthStore is a store of synthetic runs (synthRun, with observations)
// that several tests read and none writes, made once per test binary:
// two of 300 cases (variants 0 and 3), a static report's large run when
// staticFullCases is lowered, and two of 1,000 (variants 0 and 3), the
// size TestStaticReportUnder5MB's bound is for.
type synthStore struct {
	once     sync.Once
	err      error
	dir      string
	st       store.Store
	base300  string
	cand300  string
	base1000 string
	cand1000 string
}

var synth synthStore

// synthRuns returns the shared store of synthetic runs, making it on
// first use.
func synthRuns(t *testing.T) *synthStore {
	t.Helper()
	synth.once.Do(func() {
		synth.dir, synth.err = os.MkdirTemp("", "assay-ui-synth-")
		if synth.err != nil {
			return
		}
		synth.st, synth.err = store.Open(filepath.Join(synth.dir, "store"), store.OpenOptions{})
		if synth.err != nil {
			return
		}
		// synthRun fails the test that makes the store; the next test
		// to ask finds the store incomplete (err).
		synth.err = errors.New("the shared synthetic runs were not all stored")
		synth.base300 = synthRun(t, synth.st, 300, 0, true)
		synth.cand300 = synthRun(t, synth.st, 300, 3, true)
		synth.base1000 = synthRun(t, synth.st, 1000, 0, true)
		synth.cand1000 = synthRun(t, synth.st, 1000, 3, true)
		synth.err = nil
	})
	if synth.err != nil {
		t.Fatal(synth.err)
	}
	return &synth
}

// removeSynth closes and removes the shared store of synthetic runs
// (TestMain).
func removeSynth() {
	if synth.st != nil {
		synth.st.Close()
	}
	if synth.dir != "" {
		os.RemoveAll(synth.dir)
	}
}
