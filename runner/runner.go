package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/corpus"
	"github.com/assay-eval/assay/grade"
	"github.com/assay-eval/assay/redact"
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
	// MaxErrors stops the run, incomplete, at the MaxErrors-th errored
	// observation in suite order (0: never): the results end with it,
	// whatever else was in flight.
	MaxErrors int
	// Keep skips target cleanup.
	Keep bool
	// OnResult is called once per graded result, with its case and its
	// Observation, from one goroutine at a time, in suite order, then
	// trial. An error from it stops the run (the store could not write:
	// the run is incomplete) and it is not called again.
	OnResult func(c assay.Case, r assay.CaseResult) error
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Redactor takes secrets out of each result after it is graded, before
	// OnResult sees it (and out of warnings, versions and errors). When nil,
	// the target's own secrets are used (its Secrets() []redact.Secret).
	Redactor *redact.Redactor
	// Judge, when set, is called for each result after its deterministic
	// checks, in the worker that made it, with the redacted observation it
	// was graded on: it adds the judge's verdict, metrics and checks
	// (package judge), which are redacted in turn.
	Judge func(ctx context.Context, c assay.Case, obs *assay.Observation, r *assay.CaseResult)
	// Names, when set (the suite's corpus), resolves each observation's
	// retrieved documents and citations named by a path or title to the
	// corpus id before grading (corpus.Names.Observation), so a ranking of
	// titles scores against judgments keyed by id. What was resolved is
	// told once in the result's warnings; a name of several documents
	// fails its observation (class malformed) naming them.
	Names *corpus.Names
	// Prices prices each observation's usage into CaseResult.Usage (nil:
	// tokens only, no cost).
	Prices assay.PriceTable
	// MaxCost (US dollars) and MaxTokens (input + output) bound what the
	// system under test may spend (0: no bound); see budget.go. The cases
	// past a bound are recorded not run (error class not_run) and the run
	// is incomplete.
	MaxCost   float64
	MaxTokens int64
	// Checks are checks written in Go (grade.ApplyCustom), run on each
	// observation after the suite's expectations and before redaction; a
	// conversation's are run on its whole (grade.ConversationObservation).
	Checks []grade.Custom
}

// RedactorFor returns a Redactor of t's secrets (empty when it has none).
func RedactorFor(t assay.Target) *redact.Redactor {
	if s, ok := t.(assay.SecretHolder); ok {
		return redact.New(s.Secrets()...)
	}
	return redact.New()
}

// Result is what a run produced.
type Result struct {
	// Results in suite order, then trial; Observation is left out. Stream
	// leaves it nil: its results go to OnResult only.
	Results []assay.CaseResult
	// Observed is the number of results produced (len(Results) for Run).
	Observed int
	// Complete is false when the run was interrupted or stopped early.
	Complete bool
	// Stopped says why an incomplete run stopped.
	Stopped  string
	Warnings []string
	// Versions are the system versions the target first reported.
	Versions map[string]string
	// Measures are the run-level measures the target reported after the
	// cases (its Measures method); nil when it has none.
	Measures map[string]float64
	// Budget says which bound of the system's budget stopped the run
	// ("" when none did); the results past it are not run.
	Budget string
}

// Cases is the case sequence of a slice (assay.SliceSeq).
func Cases(cases []assay.Case) assay.Seq[assay.Case] { return assay.SliceSeq(cases) }

// job is one observation to make: the seq-th of the run, trial of c.
type job struct {
	seq   int
	c     assay.Case
	trial int
}

// Window bounds the observations a run holds at once: those in flight
// plus those finished but waiting for an earlier one, so that results
// reach OnResult in order. A case slower than Window others waits for
// itself before more are sent; the memory of a run does not grow with the
// number of cases.
func Window(concurrency int) int { return max(1024, 8*concurrency) }

// Run observes and grades every case (and trial) against t and returns
// the results in Result.Results. It is Stream over a slice, keeping the
// results.
func Run(ctx context.Context, t assay.Target, cases []assay.Case, o Options) (Result, error) {
	var results []assay.CaseResult
	hook := o.OnResult
	o.OnResult = func(c assay.Case, r assay.CaseResult) error {
		var err error
		if hook != nil {
			err = hook(c, r)
		}
		r = r.WithoutObservation()
		results = append(results, r)
		return err
	}
	res, err := Stream(ctx, t, Cases(cases), o)
	res.Results = results
	return res, err
}

// errStopped ends the reading of the source when the run stops.
var errStopped = errors.New("run stopped")

// Stream observes and grades every case of src against t, each case's
// trials one after another, and hands each result to o.OnResult in suite
// order, then trial. It keeps no result: Result.Results is nil. An error
// from src stops the run, which is then incomplete, and is returned.
func Stream(ctx context.Context, t assay.Target, src assay.Seq[assay.Case], o Options) (Result, error) {
	if o.Redactor == nil {
		o.Redactor = RedactorFor(t)
	}
	res, err := stream(ctx, t, src, o)
	if red := o.Redactor; !red.Empty() {
		res.Warnings = redact.Value(red, res.Warnings)
		res.Versions = redact.Value(red, res.Versions)
		res.Stopped = red.String(res.Stopped)
		if err != nil {
			if msg := red.String(err.Error()); msg != err.Error() {
				err = errors.New(msg)
			}
		}
	}
	return res, err
}

func stream(ctx context.Context, t assay.Target, src assay.Seq[assay.Case], o Options) (Result, error) {
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.Trials <= 0 {
		o.Trials = 1
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if s, ok := t.(assay.Setupper); ok {
		if err := s.Setup(ctx); err != nil {
			return Result{}, fmt.Errorf("target setup: %w", err)
		}
	}

	runCtx, stop := context.WithCancel(ctx)
	defer stop()

	window := Window(o.Concurrency)
	slots := make(chan struct{}, window)
	for range window {
		slots <- struct{}{}
	}
	// The feeder may read up to Concurrency cases ahead of the workers
	// (each already holds its slot of the window): it is woken about once
	// per few cases instead of once per case, as an unbuffered hand-over
	// did; the cases read ahead were validated like the rest.
	jobs := make(chan job, o.Concurrency)
	type done struct {
		seq int
		c   assay.Case
		res assay.CaseResult
		ok  bool
		// resolved are the names the observation's ranking and
		// citations gave that Options.Names resolved to ids.
		resolved []corpus.Resolved
	}
	out := make(chan done, o.Concurrency)

	bud := newBudget(o)
	var wg sync.WaitGroup
	for w := 0; w < o.Concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if bud == nil {
					res, resolved, ok := observe(runCtx, t, j.c, j.trial, o)
					out <- done{j.seq, j.c, res, ok, resolved}
					continue
				}
				h, why, ok := bud.reserve(runCtx, j.seq)
				switch {
				case !ok:
					out <- done{j.seq, j.c, assay.CaseResult{}, false, nil}
				case why != "":
					out <- done{j.seq, j.c, notRun(j.c, j.trial, why, o), true, nil}
				default:
					res, resolved, ok := observe(runCtx, t, j.c, j.trial, o)
					if ok {
						bud.settle(h, &res)
					} else {
						bud.release(h)
					}
					out <- done{j.seq, j.c, res, ok, resolved}
				}
			}
		}()
	}
	// The feeder reads the source and sends the jobs; it owns srcErr and
	// total until jobs is closed.
	var (
		srcErr    error
		exhausted bool
		total     int
	)
	go func() {
		defer close(jobs)
		err := src(func(c assay.Case) error {
			for trial := 0; trial < o.Trials; trial++ {
				select {
				case <-slots:
				case <-runCtx.Done():
					return errStopped
				}
				select {
				case jobs <- job{total, c, trial}:
					total++
				case <-runCtx.Done():
					return errStopped
				}
			}
			return nil
		})
		switch {
		case err == nil:
			exhausted = true
		case !errors.Is(err, errStopped):
			srcErr = err // the cases sent still finish
		}
	}()
	go func() { wg.Wait(); close(out) }()

	var (
		res        = Result{Complete: true}
		errCount   int
		drift      = map[string]bool{}
		hookFailed bool
		pending    reorder[done]
		next       int
		maxedOut   bool
		cleanups   int // cases whose cleanup failed
		// caseMeasures are the measures observations reported: per name,
		// the last in suite order.
		caseMeasures map[string]float64
		names        resolvedNames
	)
	emit := func(d done) {
		if maxedOut {
			// Past the MaxErrors-th error in suite order: left out, as a
			// case the stop abandoned, so the record ends at that error
			// whatever else was in flight.
			return
		}
		res.Observed++
		names.add(d.resolved)
		if d.res.Error != nil && d.res.Error.Class == assay.ErrNotRun {
			if res.Budget == "" {
				n := res.Observed - 1
				res.Budget = fmt.Sprintf("%s at case %s (trial %d), after %d %s; the rest are recorded not run", strings.TrimPrefix(d.res.Error.Message, "budget: "), d.res.ID, d.res.Trial, n, plural(n, "observation", "observations"))
			}
		} else if d.res.Error != nil {
			errCount++
		}
		for _, ch := range d.res.Checks {
			if ch.Kind == CleanupCheck && !ch.Pass {
				if cleanups++; cleanups <= maxCleanupWarnings {
					res.Warnings = append(res.Warnings, fmt.Sprintf("case %s (trial %d): %s: the system under test may keep what the case made; fix the cleanup steps, or clean it up by hand", d.res.ID, d.res.Trial, ch.Detail))
				}
			}
		}
		if d.res.Observation != nil {
			res.Versions, res.Warnings = trackVersions(res.Versions, d.res.Observation.Versions, drift, res.Warnings, d.res.ID)
			caseMeasures = collectMeasures(caseMeasures, d.res.Observation.Measures)
		}
		if o.OnResult != nil && !hookFailed {
			if err := o.OnResult(d.c, d.res); err != nil {
				hookFailed = true
				res.Complete = false
				res.Stopped = err.Error()
				stop()
			}
		}
		if o.MaxErrors > 0 && errCount >= o.MaxErrors && !maxedOut {
			maxedOut = true
			if res.Stopped == "" {
				res.Complete = false
				res.Stopped = fmt.Sprintf("stopped after %d %s (--max-errors %d)", errCount, plural(errCount, "error", "errors"), o.MaxErrors)
			}
			stop()
		}
	}
	// Every job sent gets exactly one done, so the results are emitted in
	// seq order with no gap; an abandoned one (ok false: interrupted) is
	// skipped in its turn.
	for d := range out {
		pending.put(d.seq, next, d)
		for {
			p, found := pending.take(next)
			if !found {
				break
			}
			next++
			slots <- struct{}{}
			if p.ok {
				emit(p)
			}
		}
	}
	if m, ok := t.(assay.Measurer); ok {
		caseMeasures = collectMeasures(caseMeasures, m.Measures())
	}
	res.Measures, res.Warnings = finiteMeasures(caseMeasures, res.Warnings)
	if w := names.warning(); w != "" {
		res.Warnings = append(res.Warnings, w)
	}
	if more := cleanups - maxCleanupWarnings; more > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the cleanup of %d more %s failed (see their cleanup checks)", more, plural(more, "case", "cases")))
	}
	if res.Budget != "" && res.Complete {
		res.Complete = false
		res.Stopped = "budget " + res.Budget
	}
	// jobs is closed (the workers are done), so the feeder has finished.
	if srcErr != nil {
		res.Complete = false
		if res.Stopped == "" {
			res.Stopped = srcErr.Error()
		}
		return res, srcErr
	}
	if ctx.Err() != nil && res.Stopped == "" {
		res.Complete = false
		res.Stopped = "interrupted"
	}
	if (!exhausted || res.Observed < total) && res.Complete {
		res.Complete = false
		res.Stopped = "not every case was observed"
	}
	return res, nil
}

// reorder holds the observations that finished before an earlier one,
// each at its sequence number modulo the length of a ring that grows (by
// doubling) to hold the widest span between the next to emit and the
// latest finished: at most Window, and a few slots while observations
// finish about in order. It replaces a map, whose inserts and deletes of
// ever larger keys allocated about a kilobyte per case.
type reorder[T any] struct {
	ring []T
	seqs []int // the sequence number held in each slot; -1 when empty
}

// put holds v, finished as number seq, while next is the next to emit
// (next <= seq).
func (r *reorder[T]) put(seq, next int, v T) {
	for seq-next >= len(r.ring) {
		r.grow()
	}
	i := seq % len(r.ring)
	r.ring[i], r.seqs[i] = v, seq
}

// take removes and returns the observation numbered seq, if held.
func (r *reorder[T]) take(seq int) (T, bool) {
	var zero T
	if len(r.ring) == 0 {
		return zero, false
	}
	i := seq % len(r.ring)
	if r.seqs[i] != seq {
		return zero, false
	}
	v := r.ring[i]
	r.ring[i], r.seqs[i] = zero, -1
	return v, true
}

func (r *reorder[T]) grow() {
	n := max(8, 2*len(r.ring))
	ring, seqs := make([]T, n), make([]int, n)
	for i := range seqs {
		seqs[i] = -1
	}
	for i, seq := range r.seqs {
		if seq >= 0 {
			ring[seq%n], seqs[seq%n] = r.ring[i], seq
		}
	}
	r.ring, r.seqs = ring, seqs
}

// collectMeasures adds got to ms (allocating it), a later value replacing
// an earlier one.
func collectMeasures(ms, got map[string]float64) map[string]float64 {
	if len(got) == 0 {
		return ms
	}
	if ms == nil {
		ms = make(map[string]float64, len(got))
	}
	for k, v := range got {
		ms[k] = v
	}
	return ms
}

// finiteMeasures copies the reported measures, leaving out (with a
// warning) a value that is not a finite number, or a name that cannot name
// a measure (assay.IsMeasureName): such a measure is not reported, so its
// gates fail as undefined.
func finiteMeasures(got map[string]float64, warnings []string) (map[string]float64, []string) {
	if len(got) == 0 {
		return nil, warnings
	}
	out := make(map[string]float64, len(got))
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := got[k]
		if !assay.IsMeasureName(k) {
			warnings = append(warnings, fmt.Sprintf("measure %q: left out of the run (a measure name is a lowercase letter, then lowercase letters, digits and _)", k))
			continue
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			warnings = append(warnings, fmt.Sprintf("measure %s is %v: left out of the run (a measure must be a finite number)", k, v))
			continue
		}
		out[k] = v
	}
	return out, warnings
}

// CleanupCheck is the kind of the check a case gets when its target's
// cleanup failed: recorded failed (Pass false), with the error as detail,
// without changing the case's verdict (its answer was graded before the
// cleanup ran). The run's warnings name the first few such cases.
const CleanupCheck = "cleanup"

// maxCleanupWarnings is how many failed cleanups the warnings name one by
// one; the rest are counted in one more warning.
const maxCleanupWarnings = 5

// observe makes and grades one observation. ok is false when the run was
// interrupted before the observation finished.
func observe(ctx context.Context, t assay.Target, c assay.Case, trial int, o Options) (assay.CaseResult, []corpus.Resolved, bool) {
	if ctx.Err() != nil {
		return assay.CaseResult{}, nil, false
	}
	var (
		obs assay.Observation
		r   assay.CaseResult
		jc  = c // the case the judge reads
		// resolved are the names Options.Names resolved to corpus ids,
		// over every turn of a conversation.
		resolved []corpus.Resolved
	)
	if c.IsConversation() {
		// The turns one after another, each with the history so far;
		// every turn is run and recorded, also after one failed.
		turns := make([]assay.Observation, len(c.Turns))
		var history []assay.Message
		for i := range c.Turns {
			tc := c.TurnCase(i, history)
			tobs, rs, ok := observeOnce(ctx, t, tc, trial, o)
			if !ok {
				return assay.CaseResult{}, nil, false
			}
			resolved = append(resolved, rs...)
			turns[i] = tobs
			history = grade.History(history, tc.Query, tobs)
			jc = tc
		}
		r = grade.Conversation(c, turns, o.Grade)
		r.Usage = conversationUsage(turns, o.Prices)
		obs = grade.ConversationObservation(turns)
		obs.Case, obs.Trial = c.ID, trial
		// The judge reads the last turn, with the history before it, and
		// the conversation's bounds when it states any.
		if c.Expect.Judge != nil {
			jc.Expect.Judge = c.Expect.Judge
		}
	} else {
		var ok bool
		if obs, resolved, ok = observeOnce(ctx, t, c, trial, o); !ok {
			return assay.CaseResult{}, nil, false
		}
		r = grade.Case(c, obs, o.Grade)
		if u, ok, err := assay.UsageOf(&obs); ok && err == nil {
			u = o.Prices.Cost(u)
			r.Usage = &u
		}
	}
	if r.Error == nil {
		grade.ApplyCustom(&r, c, obs, o.Checks)
	}
	if cl, ok := t.(assay.Cleaner); ok && !o.Keep {
		if err := cl.Cleanup(context.WithoutCancel(ctx), c, obs); err != nil {
			// Recorded as a failed check, and told in the run's warnings;
			// the case was graded before its cleanup and keeps its verdict.
			r.Checks = append(r.Checks, assay.Check{Kind: CleanupCheck, Pass: false, Detail: "cleanup failed: " + err.Error()})
		}
	}
	if r.Observation == nil {
		cp := obs
		r.Observation = &cp
	}
	// Graded on the raw observation; what is kept or shown is redacted.
	r = redact.Value(o.Redactor, r)
	if o.Judge != nil {
		// The judge is given a copy's address, so that r itself does not
		// go to the heap in a run without a judge (the usual one).
		jr := r
		o.Judge(ctx, jc, jr.Observation, &jr)
		r = jr
		r.Judge, r.Checks = redact.Value(o.Redactor, r.Judge), redact.Value(o.Redactor, r.Checks)
	}
	return r, resolved, true
}

// resolvedNames gathers the names Options.Names resolved across a run,
// each once, for one warning.
type resolvedNames struct {
	seen   map[string]bool
	first  []corpus.Resolved
	n      int
	capped bool // more names than maxResolvedSeen: n is a lower bound
}

// maxResolvedSeen bounds the memory of the names counted.
const maxResolvedSeen = 10000

// maxResolvedNamed is how many resolved names the warning spells out.
const maxResolvedNamed = 5

func (rn *resolvedNames) add(rs []corpus.Resolved) {
	for _, r := range rs {
		if rn.seen == nil {
			rn.seen = map[string]bool{}
		}
		if rn.seen[r.Name] {
			continue
		}
		if len(rn.seen) >= maxResolvedSeen {
			rn.capped = true
			continue
		}
		rn.seen[r.Name] = true
		rn.n++
		if len(rn.first) < maxResolvedNamed {
			rn.first = append(rn.first, r)
		}
	}
}

// warning names what was resolved; "" when nothing was.
func (rn *resolvedNames) warning() string {
	if rn.n == 0 {
		return ""
	}
	parts := make([]string, len(rn.first))
	for i, r := range rn.first {
		parts[i] = strconv.Quote(r.Name) + " -> " + strconv.Quote(r.ID)
	}
	s := strings.Join(parts, ", ")
	if more := rn.n - len(rn.first); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	at := ""
	if rn.capped {
		at = "at least "
	}
	return fmt.Sprintf("the target named %s%d retrieved or cited %s by path or title, not by corpus id: resolved %s; return ids to skip this step", at, rn.n, plural(rn.n, "document", "documents"), s)
}

// observeOnce makes one observation of c (a case, or a turn of a
// conversation) within the timeout, a failure recorded as its Error. ok
// is false when the run was interrupted before it finished.
//
// With Options.Names, a ranking or citation that names documents by path
// or title is resolved to corpus ids (what was resolved is returned); a
// name that cannot be resolved makes the observation malformed.
func observeOnce(ctx context.Context, t assay.Target, c assay.Case, trial int, o Options) (assay.Observation, []corpus.Resolved, bool) {
	cctx := assay.WithTrial(ctx, trial)
	var cancel context.CancelFunc = func() {}
	if o.Timeout > 0 {
		cctx, cancel = context.WithTimeout(cctx, o.Timeout)
	}
	obs, err := safeObserve(cctx, t, c)
	timedOut := errors.Is(cctx.Err(), context.DeadlineExceeded)
	cancel()
	if ctx.Err() != nil {
		return assay.Observation{}, nil, false
	}
	if err != nil {
		e := assay.AsError(err)
		switch {
		case timedOut && e.Class != assay.ErrTimeout:
			e = assay.Errorf(assay.ErrTimeout, "no observation after %s", o.Timeout)
		case errors.Is(err, context.Canceled) && e.Class == assay.ErrTransport:
			e = assay.Errorf(assay.ErrCanceled, "%s", err.Error())
		}
		obs = assay.Observation{Error: e, LatencyMs: obs.LatencyMs, Attempts: obs.Attempts, LatencyTotalMs: obs.LatencyTotalMs, Versions: obs.Versions}
	}
	obs.Case = c.ID
	obs.Trial = trial
	obs.Turn = c.Turn
	var resolved []corpus.Resolved
	if o.Names != nil && obs.Error == nil {
		var rerr error
		if resolved, rerr = o.Names.Observation(&obs); rerr != nil {
			obs.Error = assay.Errorf(assay.ErrMalformed, "%v: return the document's id", rerr)
		}
	}
	return obs, resolved, true
}

// notRun is the result of a case the budget did not let be sent: an
// error of class not_run (graded: never a pass), nothing observed.
func notRun(c assay.Case, trial int, why string, o Options) assay.CaseResult {
	obs := assay.Observation{Case: c.ID, Trial: trial, Error: assay.Errorf(assay.ErrNotRun, "budget: %s", why)}
	r := grade.Case(c, obs, o.Grade)
	cp := obs
	r.Observation = &cp
	return redact.Value(o.Redactor, r)
}

// conversationUsage is the usage of a conversation: the sum of its turns',
// each priced by its own model. It is nil (unknown) when a turn reported no
// usage, and its cost is nil when a turn's tokens had no price: a part is
// never counted as the whole.
func conversationUsage(turns []assay.Observation, p assay.PriceTable) *assay.Usage {
	var sum assay.Usage
	cost, priced := 0.0, true
	for i := range turns {
		u, ok, err := assay.UsageOf(&turns[i])
		if !ok || err != nil {
			return nil
		}
		u = p.Cost(u)
		sum.InputTokens += u.InputTokens
		sum.OutputTokens += u.OutputTokens
		sum.CachedTokens += u.CachedTokens
		if i == 0 {
			sum.Model = u.Model
		} else if sum.Model != u.Model {
			sum.Model = ""
		}
		if u.CostUSD == nil {
			if priced {
				sum.Unpriced = fmt.Sprintf("turn %d: %s", i+1, u.Unpriced)
			}
			priced = false
			continue
		}
		cost += *u.CostUSD
	}
	if priced {
		sum.CostUSD = &cost
	}
	return &sum
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

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
