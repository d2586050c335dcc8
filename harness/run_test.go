package harness_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness"
	_ "github.com/assay-eval/assay/harness/opener" // registers the openers of target specs and the judge
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/postgres"
)

const quickstart = "../examples/quickstart/suite.yaml"

// backends open the Postgres stores of the tests (the CLI's map).
var backends = map[string]store.Opener{"postgres": postgres.Open, "postgresql": postgres.Open}

func plan(p harness.Plan) harness.Plan {
	if p.SuitePath == "" {
		p.SuitePath = quickstart
	}
	if p.StoreOptions.Backends == nil {
		p.StoreOptions.Backends = backends
	}
	return p
}

// Outputs attach through Plan.OnRun: the sink of each run gets every
// result with its observation and is closed once, ok, after the run is
// stored; the clock of the record is Plan.Now.
func TestRunSinkAndClock(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	sink := &countSink{}
	var runID string
	res, err := harness.Run(context.Background(), plan(harness.Plan{
		Now: func() time.Time { return at },
		OnRun: func(_ *assay.Suite, run *assay.Run) (harness.Sink, error) {
			runID = run.RunID
			return sink, nil
		},
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	run := res.Runs[0]
	if sink.added != 24 || sink.observed != 24 || sink.closed != 1 || !sink.ok || runID != run.RunID {
		t.Errorf("sink %+v of run %s; want 24 results with observations, closed once ok, of run %s", sink, runID, run.RunID)
	}
	if !run.StartedAt.Equal(at) || !run.FinishedAt.Equal(at) {
		t.Errorf("run started %v finished %v; want %v (Plan.Now)", run.StartedAt, run.FinishedAt, at)
	}
}

type countSink struct {
	added, observed, closed int
	ok                      bool
}

func (s *countSink) Add(_ assay.Case, r assay.CaseResult) error {
	s.added++
	if r.Observation != nil {
		s.observed++
	}
	return nil
}

func (s *countSink) Close(ok bool) error { s.closed++; s.ok = ok; return nil }

// Progress is data: one Started with the total, one Observed per
// observation, one Finished.
func TestRunEvents(t *testing.T) {
	var started, observed, finished, total int
	res, err := harness.Run(context.Background(), plan(harness.Plan{
		Trials: 2,
		OnEvent: func(e harness.Event) {
			switch e.Kind {
			case harness.Started:
				started++
				total = e.Total
			case harness.Observed:
				observed++
			case harness.Finished:
				finished++
			}
		},
	}))
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	if started != 1 || finished != 1 || total != 48 || observed != 48 {
		t.Errorf("started %d finished %d total %d observed %d; want 1 1 48 48", started, finished, total, observed)
	}
}

// The outcome is a typed error: a run stopped by MaxErrors is
// Incomplete, and the result is still returned.
func TestRunIncomplete(t *testing.T) {
	failing := assay.TargetFunc(func(context.Context, assay.Case) (assay.Observation, error) {
		return assay.Observation{}, os.ErrDeadlineExceeded
	})
	res, err := harness.Run(context.Background(), plan(harness.Plan{System: failing, MaxErrors: 1, Concurrency: 1}))
	if res == nil {
		t.Fatalf("no result: %v", err)
	}
	defer res.Close()
	if harness.KindOf(err) != harness.Incomplete || res.Runs[0].Status != assay.StatusIncomplete {
		t.Errorf("err %v (kind %d), status %s; want Incomplete", err, harness.KindOf(err), res.Runs[0].Status)
	}
}

// An invalid suite is an Input error with the positioned message, and no
// result.
func TestRunInvalidSuite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	os.WriteFile(path, []byte("assay: 1\nname: s\ncases:\n  - id: a\n    qurey: x\n"), 0o644)
	res, err := harness.Run(context.Background(), plan(harness.Plan{SuitePath: path}))
	if res != nil || harness.KindOf(err) != harness.Input || !strings.HasPrefix(err.Error(), path+":5:") {
		t.Errorf("res %v, err %v; want an Input error at %s:5", res, err, path)
	}
}

// A baseline that the candidate regresses against is Regressed.
func TestRunRegressed(t *testing.T) {
	dir := t.TempDir()
	res, err := harness.Run(context.Background(), plan(harness.Plan{StoreDir: dir}))
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	silent := assay.TargetFunc(func(_ context.Context, c assay.Case) (assay.Observation, error) {
		return assay.Observation{Case: c.ID, Answer: "no idea"}, nil
	})
	res, err = harness.Run(context.Background(), plan(harness.Plan{StoreDir: dir, Baseline: "latest", System: silent, Gates: nil}))
	if res == nil {
		t.Fatal(err)
	}
	defer res.Close()
	if k := harness.KindOf(err); k != harness.GateFailed && k != harness.Regressed {
		t.Errorf("err %v: want GateFailed or Regressed", err)
	}
	if c := res.Comparisons[0]; c == nil || c.Verdict != "regressed" {
		t.Errorf("comparison %+v: want regressed", c)
	}
}

// A plan may hold a suite already loaded instead of a path.
func TestRunLoadedSuite(t *testing.T) {
	s := &assay.Suite{Name: "inline", Cases: []assay.Case{
		{ID: "a", Query: "one", Expect: assay.Expect{AnswerIncludes: []string{"yes"}}},
		{ID: "b", Query: "two", Expect: assay.Expect{AnswerIncludes: []string{"yes"}}},
	}}
	yes := assay.TargetFunc(func(_ context.Context, c assay.Case) (assay.Observation, error) {
		return assay.Observation{Case: c.ID, Answer: "yes"}, nil
	})
	res, err := harness.Run(context.Background(), plan(harness.Plan{SuitePath: "unused", Suite: s, System: yes}))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if r := res.Runs[0]; r.Suite.Name != "inline" || r.Summary.Passed != 2 {
		t.Errorf("run %s: passed %d, want suite inline, 2 passed", r.Suite.Name, r.Summary.Passed)
	}
}

// With no store, the results go to a scratch directory in Plan.TempDir
// while the run goes, and Close removes it.
func TestRunScratchInTempDir(t *testing.T) {
	tmp := t.TempDir()
	var during []string
	res, err := harness.Run(context.Background(), plan(harness.Plan{
		TempDir: tmp,
		OnEvent: func(e harness.Event) {
			if e.Kind == harness.Finished {
				during, _ = filepath.Glob(filepath.Join(tmp, "assay-run-*"))
			}
		},
	}))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	res.Runs[0].EachCase(func(assay.CaseResult) error { n++; return nil })
	res.Close()
	after, _ := filepath.Glob(filepath.Join(tmp, "*"))
	if len(during) != 1 || n != 24 || len(after) != 0 {
		t.Errorf("during the run %v, %d results read back, after Close %v; want one directory, 24, none", during, n, after)
	}
}

// A run records the plan's labels; labels that break the rules are a plan
// error of the field Labels before any case runs; a baseline of another
// suite is refused with otherSuite's usage error, named by any REF.
func TestRunLabelsAndOtherSuiteBaseline(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	res, err := harness.Run(ctx, plan(harness.Plan{StoreDir: dir, Labels: map[string]string{"branch": "main", "env": "ci"}}))
	if err != nil {
		t.Fatal(err)
	}
	first := res.Runs[0]
	res.Close()
	st, err := store.Open(dir, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Load(ctx, "latest@main")
	st.Close()
	if err != nil || got.RunID != first.RunID || got.Labels["env"] != "ci" {
		t.Fatalf("latest@main = %v, %v; want run %s with its labels", got, err, first.RunID)
	}

	_, err = harness.Run(ctx, plan(harness.Plan{StoreDir: dir, Labels: map[string]string{"bad key": "x"}}))
	var pe *harness.PlanError
	if !errors.As(err, &pe) || pe.Field != "Labels" || harness.KindOf(err) != harness.Usage {
		t.Errorf("bad label key: %v; want a usage PlanError of Labels", err)
	}

	other := filepath.Join(t.TempDir(), "other.yaml")
	data, err := os.ReadFile(quickstart)
	if err != nil {
		t.Fatal(err)
	}
	renamed := strings.Replace(string(data), "name: quickstart", "name: quickstart-copy", 1)
	if renamed == string(data) {
		t.Fatal("the quickstart suite has no name: quickstart line to rename")
	}
	if err := os.WriteFile(other, []byte(renamed), 0o644); err != nil {
		t.Fatal(err)
	}
	// Copy the corpus the suite names, relative to it.
	if err := os.CopyFS(filepath.Dir(other), os.DirFS(filepath.Dir(quickstart))); err != nil {
		t.Fatal(err)
	}
	_, err = harness.Run(ctx, plan(harness.Plan{SuitePath: other, StoreDir: dir, Baseline: first.RunID}))
	if harness.KindOf(err) != harness.Usage || !strings.Contains(err.Error(), `is a run of suite "quickstart", not of suite "quickstart-copy"`) {
		t.Errorf("baseline of another suite: %v; want otherSuite's usage error", err)
	}
	// A latest REF looks among this suite's runs only: there are none.
	_, err = harness.Run(ctx, plan(harness.Plan{SuitePath: other, StoreDir: dir, Baseline: "latest@main"}))
	if !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), `no complete run of suite "quickstart-copy" labelled branch=main`) {
		t.Errorf("latest@main with only another suite's run: %v; want ErrNotFound naming this suite", err)
	}
}
