package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/grade"
)

func cases(n int) []assay.Case {
	out := make([]assay.Case, n)
	for i := range out {
		out[i] = assay.Case{ID: fmt.Sprintf("c%02d", i), Query: "q", Expect: assay.Expect{AnswerIncludes: []string{"ok"}}}
	}
	return out
}

func answer(text string) assay.TargetFunc {
	return func(ctx context.Context, c assay.Case) (assay.Observation, error) {
		return assay.Observation{Answer: text}, nil
	}
}

func TestRunGradesEveryCaseAndTrialInSuiteOrder(t *testing.T) {
	var calls atomic.Int64
	tgt := assay.TargetFunc(func(ctx context.Context, c assay.Case) (assay.Observation, error) {
		calls.Add(1)
		if assay.TrialFrom(ctx) == 1 && c.ID == "c03" {
			return assay.Observation{Answer: "nope"}, nil
		}
		return assay.Observation{Answer: "ok"}, nil
	})
	res, err := Run(context.Background(), tgt, cases(10), Options{Trials: 3, Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete || len(res.Results) != 30 || calls.Load() != 30 {
		t.Fatalf("complete=%v results=%d calls=%d, want true 30 30", res.Complete, len(res.Results), calls.Load())
	}
	for i, r := range res.Results {
		wantID, wantTrial := fmt.Sprintf("c%02d", i/3), i%3
		if r.ID != wantID || r.Trial != wantTrial {
			t.Fatalf("result %d is %s/%d, want %s/%d", i, r.ID, r.Trial, wantID, wantTrial)
		}
		if r.Observation != nil {
			t.Fatal("results must not keep observations")
		}
		wantPass := !(r.ID == "c03" && r.Trial == 1)
		if r.Passed() != wantPass {
			t.Errorf("%s/%d passed=%v, want %v", r.ID, r.Trial, r.Passed(), wantPass)
		}
	}
}

func TestRunHonoursConcurrency(t *testing.T) {
	var inFlight, peak atomic.Int64
	tgt := assay.TargetFunc(func(ctx context.Context, c assay.Case) (assay.Observation, error) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		inFlight.Add(-1)
		return assay.Observation{Answer: "ok"}, nil
	})
	if _, err := Run(context.Background(), tgt, cases(20), Options{Concurrency: 2}); err != nil {
		t.Fatal(err)
	}
	if peak.Load() > 2 {
		t.Errorf("peak concurrency %d, want <= 2", peak.Load())
	}
}

func TestRunTimeoutIsAnErrorOfClassTimeoutAndTheRunGoesOn(t *testing.T) {
	tgt := assay.TargetFunc(func(ctx context.Context, c assay.Case) (assay.Observation, error) {
		if c.ID == "c01" {
			<-ctx.Done()
			return assay.Observation{}, ctx.Err()
		}
		return assay.Observation{Answer: "ok"}, nil
	})
	res, err := Run(context.Background(), tgt, cases(3), Options{Timeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete {
		t.Fatal("a timeout must not make the run incomplete")
	}
	r := res.Results[1]
	if r.Error == nil || r.Error.Class != assay.ErrTimeout || r.Passed() {
		t.Fatalf("c01 = %+v, want a failed case with a timeout error", r)
	}
	if !res.Results[0].Passed() || !res.Results[2].Passed() {
		t.Error("the other cases must pass")
	}
}

func TestRunKeepsTheTargetsErrorClass(t *testing.T) {
	tgt := assay.TargetFunc(func(ctx context.Context, c assay.Case) (assay.Observation, error) {
		return assay.Observation{}, &assay.Error{Class: assay.ErrHTTPStatus, Status: 503, Message: "503 Service Unavailable"}
	})
	res, _ := Run(context.Background(), tgt, cases(1), Options{})
	if e := res.Results[0].Error; e == nil || e.Class != assay.ErrHTTPStatus || e.Status != 503 {
		t.Fatalf("error = %+v", e)
	}
	plain := assay.TargetFunc(func(ctx context.Context, c assay.Case) (assay.Observation, error) {
		return assay.Observation{}, errors.New("connection refused")
	})
	res, _ = Run(context.Background(), plain, cases(1), Options{})
	if e := res.Results[0].Error; e == nil || e.Class != assay.ErrTransport {
		t.Fatalf("a plain error must be classed transport, got %+v", e)
	}
}

func TestRunInterruptedIsIncompleteAndDropsCasesInFlight(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var started atomic.Int64
	tgt := assay.TargetFunc(func(c2 context.Context, c assay.Case) (assay.Observation, error) {
		if started.Add(1) == 5 {
			cancel()
		}
		if c.ID >= "c04" {
			<-c2.Done()
			return assay.Observation{}, c2.Err()
		}
		return assay.Observation{Answer: "ok"}, nil
	})
	res, err := Run(ctx, tgt, cases(50), Options{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Complete || res.Stopped != "interrupted" {
		t.Fatalf("complete=%v stopped=%q, want an interrupted run", res.Complete, res.Stopped)
	}
	if len(res.Results) != 4 {
		t.Fatalf("%d results, want the 4 finished before the interrupt", len(res.Results))
	}
	for _, r := range res.Results {
		if r.Error != nil {
			t.Errorf("%s recorded with error %v; abandoned cases must not be recorded", r.ID, r.Error)
		}
	}
}

func TestRunMaxErrorsStopsEarly(t *testing.T) {
	tgt := assay.TargetFunc(func(ctx context.Context, c assay.Case) (assay.Observation, error) {
		return assay.Observation{}, errors.New("down")
	})
	res, _ := Run(context.Background(), tgt, cases(100), Options{Concurrency: 1, MaxErrors: 3})
	if res.Complete || len(res.Results) < 3 || len(res.Results) > 5 {
		t.Fatalf("complete=%v results=%d, want an early stop after 3 errors", res.Complete, len(res.Results))
	}
}

// With several cases in flight, the record still ends exactly at the
// MaxErrors-th error in suite order, and says how many it stopped at.
func TestRunMaxErrorsEndsTheRecordAtThatError(t *testing.T) {
	tgt := assay.TargetFunc(func(ctx context.Context, c assay.Case) (assay.Observation, error) {
		if c.ID == "c03" || c.ID == "c07" || c.ID >= "c10" {
			return assay.Observation{}, errors.New("down")
		}
		return assay.Observation{Answer: "ok"}, nil
	})
	for range 20 {
		res, _ := Run(context.Background(), tgt, cases(60), Options{Concurrency: 8, MaxErrors: 3})
		if res.Complete || len(res.Results) != 11 || res.Results[10].ID != "c10" {
			t.Fatalf("complete=%v results=%d, want the 11 up to the third error (c10)", res.Complete, len(res.Results))
		}
		if res.Stopped != "stopped after 3 errors (--max-errors 3)" {
			t.Fatalf("stopped %q", res.Stopped)
		}
	}
	res, _ := Run(context.Background(), tgt, cases(60), Options{Concurrency: 8, MaxErrors: 1})
	if len(res.Results) != 4 || res.Stopped != "stopped after 1 error (--max-errors 1)" {
		t.Fatalf("results=%d stopped %q, want 4 and the singular", len(res.Results), res.Stopped)
	}
}

func TestRunTurnsAPanicIntoAnExecError(t *testing.T) {
	tgt := assay.TargetFunc(func(ctx context.Context, c assay.Case) (assay.Observation, error) {
		if c.ID == "c00" {
			panic("boom")
		}
		return assay.Observation{Answer: "ok"}, nil
	})
	res, _ := Run(context.Background(), tgt, cases(2), Options{})
	if e := res.Results[0].Error; e == nil || e.Class != assay.ErrExec {
		t.Fatalf("error = %+v, want exec", e)
	}
	if !res.Results[1].Passed() {
		t.Error("the run must go on after a panic")
	}
}

func TestRunOnResultSeesObservationsAndItsErrorStopsTheRun(t *testing.T) {
	var mu sync.Mutex
	seen := 0
	res, _ := Run(context.Background(), answer("ok"), cases(20), Options{Concurrency: 1, OnResult: func(c assay.Case, r assay.CaseResult) error {
		mu.Lock()
		defer mu.Unlock()
		if r.Observation == nil || r.Observation.Case != r.ID || c.ID != r.ID {
			t.Errorf("OnResult got no observation for %s", r.ID)
		}
		seen++
		if seen == 3 {
			return errors.New("disk full")
		}
		return nil
	}})
	if res.Complete || res.Stopped != "disk full" {
		t.Fatalf("complete=%v stopped=%q", res.Complete, res.Stopped)
	}
}

func TestRunWarnsWhenSystemVersionsDrift(t *testing.T) {
	tgt := assay.TargetFunc(func(ctx context.Context, c assay.Case) (assay.Observation, error) {
		v := "v1"
		if c.ID == "c02" {
			v = "v2"
		}
		return assay.Observation{Answer: "ok", Versions: map[string]string{"index": v}}, nil
	})
	res, _ := Run(context.Background(), tgt, cases(4), Options{Concurrency: 1})
	if res.Versions["index"] != "v1" || len(res.Warnings) != 1 {
		t.Fatalf("versions=%v warnings=%q", res.Versions, res.Warnings)
	}
}

type lifecycle struct {
	assay.TargetFunc
	setups, cleanups atomic.Int64
	setupErr         error
}

func (l *lifecycle) Setup(ctx context.Context) error { l.setups.Add(1); return l.setupErr }
func (l *lifecycle) Cleanup(ctx context.Context, c assay.Case, obs assay.Observation) error {
	l.cleanups.Add(1)
	return nil
}

func TestRunCallsSetupOnceAndCleanupPerCaseUnlessKept(t *testing.T) {
	l := &lifecycle{TargetFunc: answer("ok")}
	Run(context.Background(), l, cases(5), Options{Trials: 2})
	if l.setups.Load() != 1 || l.cleanups.Load() != 10 {
		t.Fatalf("setups=%d cleanups=%d, want 1 and 10", l.setups.Load(), l.cleanups.Load())
	}
	k := &lifecycle{TargetFunc: answer("ok")}
	Run(context.Background(), k, cases(5), Options{Keep: true})
	if k.cleanups.Load() != 0 {
		t.Fatal("--keep must skip cleanup")
	}
	bad := &lifecycle{TargetFunc: answer("ok"), setupErr: errors.New("ingest failed")}
	if _, err := Run(context.Background(), bad, cases(1), Options{}); err == nil {
		t.Fatal("a failed setup must stop the run")
	}
}

func TestRunComputesMetricsWithTheGradeOptions(t *testing.T) {
	s := &assay.Suite{Metrics: []string{"recall@2"}, Defaults: assay.Defaults{K: 10}}
	o, err := grade.NewOptions(s)
	if err != nil {
		t.Fatal(err)
	}
	tgt := assay.TargetFunc(func(ctx context.Context, c assay.Case) (assay.Observation, error) {
		return assay.Observation{Retrieved: []assay.Hit{{ID: "x"}, {ID: "a"}, {ID: "b"}}}, nil
	})
	c := []assay.Case{{ID: "j", Query: "q", Judgments: map[string]int{"a": 1, "b": 1}}}
	res, _ := Run(context.Background(), tgt, c, Options{Grade: o})
	if got := res.Results[0].Metrics["recall@2"]; got != 0.5 {
		t.Fatalf("recall@2 = %v, want 0.5", got)
	}
	if res.Results[0].Pass != nil {
		t.Fatal("a case with judgments only is not graded")
	}
}

func TestStreamHandsResultsOverInSuiteOrderThoughTheyFinishOutOfOrder(t *testing.T) {
	tgt := assay.TargetFunc(func(ctx context.Context, c assay.Case) (assay.Observation, error) {
		// later cases of each group of 8 finish first
		var n int
		fmt.Sscanf(c.ID, "c%d", &n)
		time.Sleep(time.Duration(7-n%8) * 100 * time.Microsecond)
		return assay.Observation{Answer: "ok"}, nil
	})
	var got []string
	res, err := Stream(context.Background(), tgt, Cases(cases(64)), Options{Concurrency: 8, Trials: 2,
		OnResult: func(c assay.Case, r assay.CaseResult) error {
			got = append(got, fmt.Sprintf("%s/%d", r.ID, r.Trial))
			return nil
		}})
	if err != nil || !res.Complete || res.Results != nil || res.Observed != 128 {
		t.Fatalf("err=%v complete=%v results=%d observed=%d, want a complete run that keeps no results", err, res.Complete, len(res.Results), res.Observed)
	}
	for i, g := range got {
		if want := fmt.Sprintf("c%02d/%d", i/2, i%2); g != want {
			t.Fatalf("result %d is %s, want %s (suite order, then trial)", i, g, want)
		}
	}
}

func TestStreamHoldsNoMoreThanAWindowBehindASlowCase(t *testing.T) {
	const conc = 4
	w := Window(conc)
	var started atomic.Int64
	var during int64
	tgt := assay.TargetFunc(func(ctx context.Context, c assay.Case) (assay.Observation, error) {
		started.Add(1)
		if c.ID == "c00" {
			// wait until the feeder has filled the window, then a little
			// longer to see that it sends nothing more
			deadline := time.Now().Add(10 * time.Second)
			for started.Load() < int64(w) && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(50 * time.Millisecond)
			during = started.Load()
		}
		return assay.Observation{Answer: "ok"}, nil
	})
	res, err := Stream(context.Background(), tgt, Cases(cases(3*w)), Options{Concurrency: conc})
	if err != nil || !res.Complete || res.Observed != 3*w {
		t.Fatalf("err=%v complete=%v observed=%d", err, res.Complete, res.Observed)
	}
	if during != int64(w) {
		t.Fatalf("%d observations started while the first was outstanding, want exactly the window, %d", during, w)
	}
}

func TestStreamStopsOnASourceError(t *testing.T) {
	bad := errors.New("suite.yaml: changed while the run was reading it")
	src := func(yield func(assay.Case) error) error {
		for _, c := range cases(10) {
			if c.ID == "c05" {
				return bad
			}
			if err := yield(c); err != nil {
				return err
			}
		}
		return nil
	}
	n := 0
	res, err := Stream(context.Background(), answer("ok"), src, Options{Concurrency: 2, OnResult: func(assay.Case, assay.CaseResult) error { n++; return nil }})
	if !errors.Is(err, bad) || res.Complete || res.Stopped != bad.Error() {
		t.Fatalf("err=%v complete=%v stopped=%q, want the source's error and an incomplete run", err, res.Complete, res.Stopped)
	}
	if n != 5 {
		t.Fatalf("%d results, want the 5 cases read before the error", n)
	}
}

// TestStreamReadsTheSourceFewCasesAhead: while every worker waits on its
// observation, the feeder reads at most Concurrency cases more (the jobs
// it hands over) and holds one: a case is read from the source shortly
// before it is run, not a window ahead.
func TestStreamReadsTheSourceFewCasesAhead(t *testing.T) {
	const conc = 4
	release := make(chan struct{})
	var started atomic.Int64
	tgt := assay.TargetFunc(func(ctx context.Context, c assay.Case) (assay.Observation, error) {
		started.Add(1)
		<-release
		return assay.Observation{Answer: "ok"}, nil
	})
	var read atomic.Int64
	all := cases(100)
	src := func(yield func(assay.Case) error) error {
		for _, c := range all {
			read.Add(1)
			if err := yield(c); err != nil {
				return err
			}
		}
		return nil
	}
	go func() {
		deadline := time.Now().Add(10 * time.Second)
		for started.Load() < conc && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond) // the feeder fills what it may
		if got, most := read.Load(), int64(2*conc+1); got > most || got < conc {
			t.Errorf("%d cases read while %d observations wait, want %d to %d", got, conc, conc, most)
		}
		close(release)
	}()
	res, err := Stream(context.Background(), tgt, src, Options{Concurrency: conc})
	if err != nil || !res.Complete || res.Observed != len(all) {
		t.Fatalf("err=%v complete=%v observed=%d", err, res.Complete, res.Observed)
	}
}

// A case graded without a judge keeps its result off the heap: only the
// judge, given its address, makes the result escape. With the judge the
// copy it is given is the one extra allocation.
func TestObserveWithoutAJudgeKeepsItsResultOffTheHeap(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts under the race detector include its own (22 and 22 in one CI run)")
	}
	ctx := context.Background()
	c := cases(1)[0]
	tgt := answer("ok")
	allocs := func(o Options) float64 {
		return testing.AllocsPerRun(200, func() {
			if _, _, ok := observe(ctx, tgt, c, 0, o); !ok {
				t.Fatal("observe interrupted")
			}
		})
	}
	without := allocs(Options{Timeout: time.Minute})
	with := allocs(Options{Timeout: time.Minute, Judge: func(context.Context, assay.Case, *assay.Observation, *assay.CaseResult) {}})
	if without >= with {
		t.Errorf("observe made %v allocations without a judge, %v with a judge that does nothing: the result went to the heap without one", without, with)
	}
}
