package runner

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/grade"
)

// Defaults.
const (
	DefaultConcurrency = 4
	DefaultTimeout     = 60 * time.Second
)

// Options control a run.
type Options struct {
	// Concurrency is the number of cases in flight (DefaultConcurrency when 0).
	Concurrency int
	// Trials is how many times each case is observed (1 when 0).
	Trials int
	// Timeout bounds one observation (DefaultTimeout when 0; negative: none).
	Timeout time.Duration
	// Grade are the grading options resolved from the suite.
	Grade grade.Options
	// MaxErrors stops the run, incomplete, after that many errored
	// observations (0: never).
	MaxErrors int
	// Keep skips target cleanup.
	Keep bool
	// OnResult is called once per graded result, with its Observation, from
	// one goroutine at a time, in completion order. An error from it stops
	// the run (the store could not write: the run is incomplete).
	OnResult func(assay.CaseResult) error
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Result is what a run produced.
type Result struct {
	// Results in suite order, then trial; Observation is left out.
	Results []assay.CaseResult
	// Complete is false when the run was interrupted or stopped early.
	Complete bool
	// Stopped says why an incomplete run stopped.
	Stopped  string
	Warnings []string
	// Versions are the system versions the target first reported.
	Versions map[string]string
}

type setupper interface {
	Setup(ctx context.Context) error
}

type cleaner interface {
	Cleanup(ctx context.Context, c assay.Case, obs assay.Observation) error
}

type job struct {
	idx   int
	trial int
}

// Run observes and grades every case (and trial) against t.
func Run(ctx context.Context, t assay.Target, cases []assay.Case, o Options) (Result, error) {
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.Trials <= 0 {
		o.Trials = 1
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if s, ok := t.(setupper); ok {
		if err := s.Setup(ctx); err != nil {
			return Result{}, fmt.Errorf("target setup: %w", err)
		}
	}

	runCtx, stop := context.WithCancel(ctx)
	defer stop()

	total := len(cases) * o.Trials
	jobs := make(chan job)
	type done struct {
		job
		res assay.CaseResult
		ok  bool
	}
	out := make(chan done, o.Concurrency)

	var wg sync.WaitGroup
	for w := 0; w < o.Concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				res, ok := observe(runCtx, t, cases[j.idx], j.trial, o)
				out <- done{j, res, ok}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for trial := 0; trial < o.Trials; trial++ {
			for i := range cases {
				select {
				case jobs <- job{i, trial}:
				case <-runCtx.Done():
					return
				}
			}
		}
	}()
	go func() { wg.Wait(); close(out) }()

	results := make([]assay.CaseResult, 0, total)
	order := make([]job, 0, total)
	var (
		res      = Result{Complete: true}
		errCount int
		drift    = map[string]bool{}
	)
	for d := range out {
		if !d.ok {
			continue // abandoned by an interrupt: not observed
		}
		if d.res.Error != nil {
			errCount++
		}
		if d.res.Observation != nil {
			res.Versions, res.Warnings = trackVersions(res.Versions, d.res.Observation.Versions, drift, res.Warnings, d.res.ID)
		}
		if o.OnResult != nil && res.Stopped == "" {
			if err := o.OnResult(d.res); err != nil {
				res.Complete = false
				res.Stopped = err.Error()
				stop()
			}
		}
		d.res.Observation = nil
		results = append(results, d.res)
		order = append(order, d.job)
		if o.MaxErrors > 0 && errCount >= o.MaxErrors && res.Stopped == "" {
			res.Complete = false
			res.Stopped = fmt.Sprintf("stopped after %d errors (--max-errors %d)", errCount, o.MaxErrors)
			stop()
		}
	}
	if ctx.Err() != nil && res.Stopped == "" {
		res.Complete = false
		res.Stopped = "interrupted"
	}
	if len(results) < total && res.Complete {
		res.Complete = false
		res.Stopped = "not every case was observed"
	}
	sort.Sort(byCaseTrial{results, order})
	res.Results = results
	return res, nil
}

// byCaseTrial sorts results (and their jobs, in step) into suite order,
// then trial, in place.
type byCaseTrial struct {
	r []assay.CaseResult
	j []job
}

func (b byCaseTrial) Len() int { return len(b.r) }
func (b byCaseTrial) Less(x, y int) bool {
	if b.j[x].idx != b.j[y].idx {
		return b.j[x].idx < b.j[y].idx
	}
	return b.j[x].trial < b.j[y].trial
}
func (b byCaseTrial) Swap(x, y int) {
	b.r[x], b.r[y] = b.r[y], b.r[x]
	b.j[x], b.j[y] = b.j[y], b.j[x]
}

// observe makes and grades one observation. ok is false when the run was
// interrupted before the observation finished.
func observe(ctx context.Context, t assay.Target, c assay.Case, trial int, o Options) (assay.CaseResult, bool) {
	if ctx.Err() != nil {
		return assay.CaseResult{}, false
	}
	cctx := assay.WithTrial(ctx, trial)
	var cancel context.CancelFunc = func() {}
	if o.Timeout > 0 {
		cctx, cancel = context.WithTimeout(cctx, o.Timeout)
	}
	obs, err := safeObserve(cctx, t, c)
	timedOut := errors.Is(cctx.Err(), context.DeadlineExceeded)
	cancel()
	if ctx.Err() != nil {
		return assay.CaseResult{}, false
	}
	if err != nil {
		e := assay.AsError(err)
		switch {
		case timedOut && e.Class != assay.ErrTimeout:
			e = assay.Errorf(assay.ErrTimeout, "no observation after %s", o.Timeout)
		case errors.Is(err, context.Canceled) && e.Class == assay.ErrTransport:
			e = assay.Errorf(assay.ErrCanceled, "%s", err.Error())
		}
		obs = assay.Observation{Error: e, LatencyMs: obs.LatencyMs, Versions: obs.Versions}
	}
	obs.Case = c.ID
	obs.Trial = trial
	r := grade.Case(c, obs, o.Grade)
	if cl, ok := t.(cleaner); ok && !o.Keep {
		if err := cl.Cleanup(context.WithoutCancel(ctx), c, obs); err != nil {
			r.Checks = append(r.Checks, assay.Check{Kind: "cleanup", Pass: true, Detail: "cleanup failed: " + err.Error()})
		}
	}
	if r.Observation == nil {
		cp := obs
		r.Observation = &cp
	}
	return r, true
}

// safeObserve turns a target's panic into an error of class exec so one bad
// case never stops a run.
func safeObserve(ctx context.Context, t assay.Target, c assay.Case) (obs assay.Observation, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = assay.Errorf(assay.ErrExec, "target panicked: %v", p)
		}
	}()
	return t.Observe(ctx, c)
}

func trackVersions(first, got map[string]string, warned map[string]bool, warnings []string, caseID string) (map[string]string, []string) {
	if len(got) == 0 {
		return first, warnings
	}
	if first == nil {
		first = make(map[string]string, len(got))
		for k, v := range got {
			first[k] = v
		}
		return first, warnings
	}
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := got[k]
		old, seen := first[k]
		if !seen {
			first[k] = v
			continue
		}
		if old != v && !warned[k] {
			warned[k] = true
			warnings = append(warnings, fmt.Sprintf("system version %q changed during the run (%s → %s at case %s): pin the system under test before comparing runs", k, old, v, caseID))
		}
	}
	return first, warnings
}
