package harness

import (
	"context"
	"errors"
	"fmt"

	"iter"
	"maps"

	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/report"

	"github.com/assay-eval/assay/runner"
	"github.com/assay-eval/assay/store"
)

// MergePlan is the merge of a sharded run's shards into one run (what
// `assay merge` does).
type MergePlan struct {
	// Refs are a shard group's name (one REF that names no run but a
	// group of the store) or the shard runs themselves (run REFs).
	Refs []string
	// Baseline is the run REF the merged run is compared with: the delta,
	// ratio and no_new_failures gates the shards recorded are checked
	// against it.
	Baseline string
	// Store is where the shards are read from and the merged run is
	// stored; the caller opens and closes it.
	Store store.Store
	// Version is the assay version recorded (default assay.Version).
	Version string
	// Labels are recorded with the merged run, over the labels every
	// shard carries with one value (the branch and commit of the CI run
	// its jobs share): a label given here replaces a shard's.
	Labels map[string]string
	// AllowNoBaseline lets a merge without Baseline whose every recorded
	// gate compares with a baseline pass; otherwise
	// it fails, since no gate was checked.
	AllowNoBaseline bool
	// Names names the plan's fields in the warnings of the merged run
	// (Plan.Names; nil: the Go names).
	Names func(field string) string
}

// shardRun is the run picked for one slice of the group.
type shardRun struct {
	run  *assay.Run
	path string
	// others counts the runs of the same slice that were not picked.
	others int
}

// Merge makes one run of the shards of a sharded run (package shard;
// docs/shards.md) and stores it. The merged run is what running the suite
// unsharded on the same observations would have recorded: its cases are
// put back in suite order (CaseResult.Position) and aggregated by the
// runner's aggregation, so that summary, metrics, segments, latency
// percentiles, trial statistics and gates are the same, bit for bit; no
// shard summary is averaged.
//
// For a group, the run of each slice is the newest complete one (a
// slice run again, such as a CI job re-run, replaces the earlier run),
// else the newest incomplete one. The merged run is incomplete, and is
// never a baseline, when a slice has no run or its run is incomplete;
// Merge then returns the Result with an Incomplete error that names each
// such slice. Shards of different suites, options, targets, gates or
// shard counts are refused (a Usage error naming the difference). The
// gates the shards recorded (Run.Shard.Gates) are checked on the merged
// run; those that compare with a baseline need Baseline.
func Merge(ctx context.Context, p MergePlan) (*Result, error) {
	if p.Version == "" {
		p.Version = assay.Version
	}
	if len(p.Refs) == 0 {
		return nil, usageError("usage: assay merge GROUP | assay merge RUN...", "give a shard group or the shard runs to merge")
	}
	st := p.Store
	if st == nil {
		return nil, planError("Store", "", "{Store}: no store to merge in")
	}
	res := &Result{}
	var unchecked error
	run, verdict, base, cmp, err := merge(ctx, st, p, &unchecked)
	if err != nil {
		res.Close()
		return nil, err
	}
	res.Runs, res.Verdicts, res.Comparisons = []*assay.Run{run}, []gate.Verdict{verdict}, []*compare.Report{cmp}
	res.Baseline, res.Baselines = base, []*assay.Run{base}
	res.NoBaseline = unchecked != nil
	if p.AllowNoBaseline {
		unchecked = nil
	}
	switch {
	case run.Status != assay.StatusComplete:
		return res, &Error{Kind: Incomplete, Err: errors.New(mergeIncomplete(run))}
	case len(verdict.Errors) > 0:
		return res, gateErrors(verdict.Errors)
	case AllErrored(run) != nil:
		return res, AllErrored(run)
	case !verdict.Pass:
		return res, &Error{Kind: GateFailed}
	case cmp != nil && cmp.Verdict == compare.Regressed:
		return res, &Error{Kind: Regressed}
	case unchecked != nil:
		return res, unchecked
	}
	return res, nil
}

// mergeIncomplete is the message of an incomplete merge: the warnings
// that name the missing and incomplete slices.
func mergeIncomplete(run *assay.Run) string {
	var parts []string
	for _, w := range run.Warnings {
		if strings.HasPrefix(w, "shard ") && (strings.Contains(w, " is missing") || strings.Contains(w, " is incomplete")) {
			parts = append(parts, w)
		}
	}
	return "the merged run is incomplete: " + strings.Join(parts, "; ")
}

// merge makes and stores the merged run; it sets *unchecked to
// baselineOnly's failure when the recorded gates all need the baseline p
// lacks.
func merge(ctx context.Context, st store.Store, p MergePlan, unchecked *error) (run *assay.Run, verdict gate.Verdict, base *assay.Run, cmp *compare.Report, err error) {
	shards, group, err := pickShards(ctx, st, p.Refs)
	if err != nil {
		return nil, gate.Verdict{}, nil, nil, err
	}
	first := firstShard(shards)
	if err := sameShards(shards, first); err != nil {
		return nil, gate.Verdict{}, nil, nil, err
	}
	if err := checkLabels(p.Labels); err != nil {
		return nil, gate.Verdict{}, nil, nil, err
	}
	var firstWarning string
	if p.Baseline != "" {
		if base, _, err = LoadBaseline(ctx, st, p.Baseline, first.run.Suite.Name); err != nil {
			if !firstRun(p.Baseline, p.AllowNoBaseline, err) {
				return nil, gate.Verdict{}, nil, nil, err
			}
			// A first merge: nothing to compare with yet (warned below).
			firstWarning = fmt.Sprintf(fill("{Baseline} %s names no run yet, so nothing was compared ({AllowNoBaseline}): %v", p.Names), p.Baseline, err)
			base = nil
		}
	}
	f := first.run
	count := f.Shard.Count
	run = &assay.Run{
		Schema:       assay.RunSchema,
		RunID:        store.NewRunID(),
		Status:       assay.StatusIncomplete,
		Suite:        f.Suite,
		Target:       f.Target,
		AssayVersion: p.Version,
		// The shards graded the cases: the merged run records their rules.
		GradingVersion: f.GradingVersion,
		Git:            f.Git,
		Options:        f.Options,
		Merged:         &assay.Merged{Group: group, Runs: make([]string, count)},
		Gain:           f.Gain,
		TieRule:        f.TieRule,
		Measures:       f.Measures,
		Labels:         mergedLabels(shards, p.Labels),
	}
	var warnings []string
	seen := map[string]bool{}
	warn := func(w string) {
		if !seen[w] {
			seen[w] = true
			warnings = append(warnings, w)
		}
	}
	if firstWarning != "" {
		warn(firstWarning)
	}
	complete := true
	for i, s := range shards {
		if s == nil {
			complete = false
			warn(fmt.Sprintf(fill("shard %d/%d is missing: no run of it in group %s (run it with {Shard} %d/%d {Group} %s)", p.Names), i, count, group, i, count, group))
			continue
		}
		r := s.run
		run.Merged.Runs[i] = r.RunID
		if r.Status != assay.StatusComplete {
			complete = false
			warn(fmt.Sprintf(fill("shard %d/%d is incomplete: its run %s stopped before it finished (run it again with {Shard} %d/%d {Group} %s)", p.Names), i, count, report.ShortID(r.RunID), i, count, r.Shard.Group))
		}
		if s.others > 0 {
			warn(fmt.Sprintf("shard %d/%d: merged its newest %s run %s; %d other run(s) of it left out", i, count, r.Status, report.ShortID(r.RunID), s.others))
		}
		if run.StartedAt.IsZero() || r.StartedAt.Before(run.StartedAt) {
			run.StartedAt = r.StartedAt
		}
		run.Options.Concurrency = max(run.Options.Concurrency, r.Options.Concurrency)
		if !reflect.DeepEqual(r.Target.Versions, f.Target.Versions) {
			warn(fmt.Sprintf("system versions differ between shards %d and %d: the merged run records shard %d's", f.Shard.Index, i, f.Shard.Index))
		}
		if r.GradingVersion != f.GradingVersion {
			warn(fmt.Sprintf("shards %d and %d were graded by different grading rules (versions %d and %d): the merged run records shard %d's; run every shard with one assay", f.Shard.Index, i, f.GradingVersion, r.GradingVersion, f.Shard.Index))
		}
		if !reflect.DeepEqual(r.Measures, f.Measures) {
			run.Measures = nil
			warn("the shards' run-level measures differ: the merged run records none")
		}
		for _, w := range r.Warnings {
			warn(w)
		}
	}
	if !complete {
		warn("the merged run is incomplete, so it is never a baseline: merge again once every shard has a complete run")
	}

	// The gates the shards recorded, checked as the unsharded run would
	// have: those that compare with a baseline only with one.
	exprs, err := gate.ParseAll(f.Shard.Gates)
	if err != nil {
		return nil, gate.Verdict{}, nil, nil, inputError(err)
	}
	if base == nil {
		*unchecked = baselineOnly(exprs)
		var skipped []string
		exprs, skipped, err = WithoutBaseline(exprs, "", p.Names)
		if err != nil {
			return nil, gate.Verdict{}, nil, nil, err
		}
		for _, w := range skipped {
			warn(w)
		}
	}
	keep := base != nil || run.Options.Trials > 1
	for _, e := range exprs {
		if e.NeedsCases() {
			keep = true
		}
	}

	rw, err := st.Begin(ctx, run)
	if err != nil {
		return nil, gate.Verdict{}, nil, nil, inputError(fmt.Errorf("store: %w", err))
	}
	agg := runner.NewAggregator(run.Options.Metrics)
	// The results are kept in memory when something needs them all (keep)
	// and, to spare reading them back twice while the run is stored, while
	// they are few (mergeKeep); past that they are read back from the store.
	var kept []assay.CaseResult
	held := true
	err = mergeCases(ctx, st, shards, func(r assay.CaseResult) error {
		r.Position = 0
		if err := rw.Append(r); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		r = r.WithoutObservation()
		agg.Add(&r)
		if held && !keep && len(kept) >= mergeKeep {
			held, kept = false, nil
		}
		if held {
			kept = append(kept, r)
		}
		return nil
	})
	if sw, ok := rw.(store.SuiteCaseWriter); ok && err == nil {
		// The cases the shards kept as the suite stated them go with the
		// merged run, so its case pages need no suite file either.
		for _, s := range shards {
			if s == nil {
				continue
			}
			if err = keptSuiteCases(ctx, st, s.run, s.path, sw.AppendSuiteCase); err != nil {
				err = fmt.Errorf("run %s: %w", report.ShortID(s.run.RunID), err)
				break
			}
		}
	}
	if err != nil {
		run.FinishedAt = time.Now().UTC()
		rw.Finish(run)
		return nil, gate.Verdict{}, nil, nil, inputError(err)
	}
	for _, s := range shards {
		if s != nil && s.run.FinishedAt.After(run.FinishedAt) {
			run.FinishedAt = s.run.FinishedAt
		}
	}
	if run.FinishedAt.IsZero() {
		run.FinishedAt = time.Now().UTC()
	}
	if complete {
		run.Status = assay.StatusComplete
	}
	run.Summary = agg.Summary()
	run.Segments = agg.Segments()
	for _, w := range runner.CoverageWarnings(run.Summary, run.Options.Metrics, run.Options.K) {
		warn(w)
	}
	dir := rw.Dir()
	if held && len(kept) > 0 {
		run.Cases = kept
	} else {
		run.CaseStream = readBack(rw, dir)
		if dir == "" { // a store without files: read the results back from it
			id := run.RunID
			run.CaseStream = func(yield func(assay.CaseResult) error) error {
				return st.Cases(context.WithoutCancel(ctx), id, false, yield)
			}
		}
	}
	if run.Options.Trials > 1 {
		st := runner.Trials(run.Cases)
		run.Trials = &st
	}
	verdict = gate.EvaluateExprs(exprs, run, base)
	run.Gates = verdict.Results
	if base != nil && len(exprs) > 0 {
		run.Baseline = base.RunID
	}
	for _, w := range verdict.Warnings {
		warn(w)
	}
	run.Warnings = warnings
	documentCases(rw, run)
	if err := rw.Finish(run); err != nil {
		return nil, gate.Verdict{}, nil, nil, inputError(fmt.Errorf("store: %w", err))
	}
	if base != nil {
		rep := compare.Runs(base, run, compare.Options{})
		cmp = &rep
	}
	return run, verdict, base, cmp, nil
}

// mergeKeep is how many results a merge holds in memory when nothing
// needs them all (about 10 MB): a larger run is read back from the store.
const mergeKeep = 20000

// mergeCases calls fn with the cases of every shard (observations
// included) in suite order, then trial: a k-way merge on
// (CaseResult.Position, Trial) of the shards' streams, each in that order
// already, holding one case per shard.
func mergeCases(ctx context.Context, st store.Store, shards []*shardRun, fn func(assay.CaseResult) error) error {
	type head struct {
		next func() (assay.CaseResult, error, bool)
		stop func()
		cur  assay.CaseResult
		run  string
	}
	var heads []*head
	defer func() {
		for _, h := range heads {
			h.stop()
		}
	}()
	for _, s := range shards {
		if s == nil {
			continue
		}
		seq := func(yield func(assay.CaseResult, error) bool) {
			stop := errors.New("stop")
			err := RefCases(ctx, st, s.run, s.path, true, func(r assay.CaseResult) error {
				if !yield(r, nil) {
					return stop
				}
				return nil
			})
			if err != nil && err != stop {
				yield(assay.CaseResult{}, err)
			}
		}
		next, stop := iter.Pull2(seq)
		h := &head{next: next, stop: stop, run: s.run.RunID}
		heads = append(heads, h)
	}
	// advance loads h's next case; false at the end of its stream.
	advance := func(h *head) (bool, error) {
		prev := h.cur
		r, err, ok := h.next()
		if !ok {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if r.Position < 1 {
			return false, fmt.Errorf("run %s: case %q has no position: it was not recorded by a shard run", report.ShortID(h.run), r.ID)
		}
		if prev.ID != "" && (r.Position < prev.Position || r.Position == prev.Position && r.Trial <= prev.Trial) {
			return false, fmt.Errorf("run %s: case %q (position %d, trial %d) comes after position %d, trial %d: the shard's cases are out of order", report.ShortID(h.run), r.ID, r.Position, r.Trial, prev.Position, prev.Trial)
		}
		h.cur = r
		return true, nil
	}
	live := heads[:0:0]
	for _, h := range heads {
		ok, err := advance(h)
		if err != nil {
			return err
		}
		if ok {
			live = append(live, h)
		}
	}
	for len(live) > 0 {
		// A handful of shards: a linear scan for the least head.
		least := 0
		for i, h := range live[1:] {
			m := live[least].cur
			if h.cur.Position == m.Position && h.cur.Trial == m.Trial {
				return fmt.Errorf("runs %s and %s both hold position %d, trial %d (cases %q and %q): they are not shards of one run", report.ShortID(live[least].run), report.ShortID(h.run), m.Position, m.Trial, m.ID, h.cur.ID)
			}
			if h.cur.Position < m.Position || h.cur.Position == m.Position && h.cur.Trial < m.Trial {
				least = i + 1
			}
		}
		h := live[least]
		if err := fn(h.cur); err != nil {
			return err
		}
		ok, err := advance(h)
		if err != nil {
			return err
		}
		if !ok {
			live = slices.Delete(live, least, least+1)
		}
	}
	return nil
}

// firstShard is the lowest slice that has a run.
func firstShard(shards []*shardRun) *shardRun {
	for _, s := range shards {
		if s != nil {
			return s
		}
	}
	return nil
}

// pickShards finds the shard runs of refs, by slice: a group name (one
// ref that is no run of the store), else run refs. A slice with no run is
// nil.
func pickShards(ctx context.Context, st store.Store, refs []string) ([]*shardRun, string, error) {
	if len(refs) == 1 && !store.IsPathRef(refs[0]) {
		entries, err := st.List(ctx, store.Filter{ShardGroup: refs[0]})
		if err != nil {
			return nil, "", inputError(err)
		}
		if len(entries) > 0 {
			return groupShards(ctx, st, entries, refs[0])
		}
		if _, rerr := st.Resolve(ctx, refs[0]); rerr != nil {
			return nil, "", usageError("list the runs with 'assay runs': a shard run's group is in 'assay runs show RUN'", "%q names no shard group and no run of the store %s", refs[0], storeName(st))
		}
	}
	var shards []*shardRun
	group := ""
	for _, ref := range refs {
		run, path, err := LoadRef(ctx, st, ref)
		if err != nil {
			return nil, "", inputError(err)
		}
		if run.Shard == nil {
			return nil, "", planError("Refs", "merge shard runs ({RunShard} I/N)", "run %s (%s) is not a shard run", report.ShortID(run.RunID), ref)
		}
		if shards == nil {
			shards = make([]*shardRun, run.Shard.Count)
			group = run.Shard.Group
		}
		if run.Shard.Count != len(shards) {
			return nil, "", usageError("merge the shards of one sharded run", "run %s is shard %d/%d, and run %s is one of %d shards", report.ShortID(run.RunID), run.Shard.Index, run.Shard.Count, report.ShortID(firstShard(shards).run.RunID), len(shards))
		}
		if prev := shards[run.Shard.Index]; prev != nil {
			return nil, "", usageError("give one run of each shard", "runs %s and %s are both shard %d/%d", report.ShortID(prev.run.RunID), report.ShortID(run.RunID), run.Shard.Index, run.Shard.Count)
		}
		if run.Shard.Group != group {
			group = ""
		}
		shards[run.Shard.Index] = &shardRun{run: run, path: path}
	}
	return shards, group, nil
}

// groupShards picks the run of each slice of a group: the newest complete
// one, else the newest (entries are newest first).
func groupShards(ctx context.Context, st store.Store, entries []store.Entry, group string) ([]*shardRun, string, error) {
	for _, e := range entries {
		if e.Shard == nil {
			return nil, "", inputError(fmt.Errorf("run %s is listed in shard group %s but records no shard: the store's index is out of step", report.ShortID(e.RunID), group))
		}
	}
	count := entries[0].Shard.Count
	for _, e := range entries {
		if e.Shard.Count != count {
			return nil, "", usageError("give the shard runs to merge: assay merge RUN...", "group %s holds shards of %d and of %d: runs %s and %s", group, count, e.Shard.Count, report.ShortID(entries[0].RunID), report.ShortID(e.RunID))
		}
	}
	picked := make([]*store.Entry, count)
	others := make([]int, count)
	for i := range entries {
		e := &entries[i]
		idx := e.Shard.Index
		if idx < 0 || idx >= count {
			continue
		}
		switch prev := picked[idx]; {
		case prev == nil:
			picked[idx] = e
		case prev.Status != assay.StatusComplete && e.Status == assay.StatusComplete:
			picked[idx] = e
			others[idx]++
		default:
			others[idx]++
		}
	}
	shards := make([]*shardRun, count)
	for i, e := range picked {
		if e == nil {
			continue
		}
		run, path, err := LoadRef(ctx, st, e.RunID)
		if err != nil {
			return nil, "", inputError(err)
		}
		shards[i] = &shardRun{run: run, path: path, others: others[i]}
	}
	return shards, group, nil
}

// sameShards refuses shards that are not slices of one run: another
// suite (name or fingerprint), other options (k, trials, timeout, case
// and tag filters, metrics), gain or tie rule, target, gates or count.
func sameShards(shards []*shardRun, first *shardRun) error {
	f := first.run
	optionsOf := func(r *assay.Run) assay.RunOptions {
		o := r.Options
		o.Concurrency = 0 // each machine its own
		return o
	}
	for _, s := range shards {
		if s == nil || s == first {
			continue
		}
		r := s.run
		var what, a, b string
		switch {
		case r.Suite.Name != f.Suite.Name:
			what, a, b = "suite", f.Suite.Name, r.Suite.Name
		case r.Suite.Fingerprint != f.Suite.Fingerprint:
			what, a, b = "suite fingerprint", f.Suite.Fingerprint, r.Suite.Fingerprint
		case !reflect.DeepEqual(optionsOf(r), optionsOf(f)):
			what, a, b = "options", optionsText(optionsOf(f)), optionsText(optionsOf(r))
		case r.Gain != f.Gain || r.TieRule != f.TieRule:
			what, a, b = "gain and tie rule", string(f.Gain)+", "+f.TieRule, string(r.Gain)+", "+r.TieRule
		case r.Target.Kind != f.Target.Kind || r.Target.Spec != f.Target.Spec:
			what, a, b = "target", f.Target.Spec, r.Target.Spec
		case !reflect.DeepEqual(r.Shard.Gates, f.Shard.Gates) && r.Status == assay.StatusComplete && f.Status == assay.StatusComplete:
			// An incomplete shard's gates are not compared: a record
			// written before its gates were (by an older assay, killed)
			// has none, and an incomplete merge judges no gate anyway.
			what, a, b = "gates", gatesText(f.Shard.Gates), gatesText(r.Shard.Gates)
		default:
			continue
		}
		return usageError("merge the shards of one sharded run: the same suite, options, target and gates",
			"shards differ in their %s: shard %d/%d (run %s) has %s, shard %d/%d (run %s) has %s",
			what, f.Shard.Index, f.Shard.Count, report.ShortID(f.RunID), a, r.Shard.Index, r.Shard.Count, report.ShortID(r.RunID), b)
	}
	return nil
}

func optionsText(o assay.RunOptions) string {
	return fmt.Sprintf("k %d, trials %d, timeout %s, cases %v, tags %v, metrics %v", o.K, o.Trials, o.Timeout, o.Cases, o.Tags, o.Metrics)
}

func gatesText(gs []assay.Gate) string {
	if len(gs) == 0 {
		return "none"
	}
	var out []string
	for _, g := range gs {
		out = append(out, fmt.Sprintf("%q", g.Expr))
	}
	return strings.Join(out, ", ")
}

// storeName is what a message calls the store.
func storeName(st store.Store) string {
	if r, ok := st.(interface{ Root() string }); ok {
		return r.Root()
	}
	return "given"
}

// mergedLabels are the labels every shard run carries with the same value,
// with given added over them; nil when none.
func mergedLabels(shards []*shardRun, given map[string]string) map[string]string {
	var common map[string]string
	first := true
	for _, s := range shards {
		if s == nil {
			continue
		}
		if first {
			common, first = maps.Clone(s.run.Labels), false
			continue
		}
		for k, v := range common {
			if s.run.Labels[k] != v {
				delete(common, k)
			}
		}
	}
	if len(given) > 0 && common == nil {
		common = map[string]string{}
	}
	maps.Copy(common, given)
	if len(common) == 0 {
		return nil
	}
	return common
}
