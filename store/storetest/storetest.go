// Package storetest is the conformance suite every store.Store passes.
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t testing.TB, root string) store.Store {
//			s, err := store.OpenFiles(root, store.OpenOptions{})
//			if err != nil {
//				t.Fatal(err)
//			}
//			return s
//		})
//	}
//
// open is called with a fresh directory per subtest, and again with the
// same directory when a subtest needs a second handle on one store (as a
// second process would have). A store without files (Postgres) maps the
// directory to a store of its own (a schema, say): the same directory, the
// same store. The subtests read runs back through the Store interface
// (Load, Cases), and check files only for a store that has them
// (store.RunFiler).
package storetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
)

// Opener opens the store rooted at root; the store is closed by the suite.
type Opener func(t testing.TB, root string) store.Store

// Run runs the conformance subtests.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(*testing.T, Opener)
	}{
		{"begin_writes_incomplete_run", testBegin},
		{"finish_writes_complete_run", testFinish},
		{"finish_twice_fails", testFinishTwice},
		{"finish_reads_case_stream", testFinishStream},
		{"finish_stream_error_keeps_run_incomplete", testFinishStreamError},
		{"finish_after_cancel_records_incomplete", testFinishAfterCancel},
		{"list_newest_first_with_filters", testList},
		{"list_by_shard_group", testListShardGroup},
		{"latest_skips_incomplete", testLatestSkipsIncomplete},
		{"latest_tilde_same_suite", testLatestTilde},
		{"labels_round_trip_and_select_latest", testLabels},
		{"resolve_id_prefix_and_path", testResolveID},
		{"list_prefix_is_list_of_those_ids", testListPrefix},
		{"unfinished_run_keeps_appended_cases", testUnfinished},
		{"concurrent_writers_lose_nothing", testConcurrent},
		{"load_resolves_every_ref_form", testLoad},
		{"cases_stream_with_and_without_observations", testCases},
		{"trend_complete_runs_oldest_first", testTrend},
		{"delete_removes_run_and_its_cases", testDelete},
		{"copy_round_trip_through_files", testCopy},
		{"delete_refuses_run_being_written", testDeleteInProgress},
		{"copy_redoes_a_truncated_copy", testCopyRedoesTruncated},
		{"text_postgres_cannot_hold_round_trips", testHostileText},
		{"suite_cases_kept_with_the_run", testSuiteCases},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open) })
	}
}

var uuidV7 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func openStore(t testing.TB, open Opener, root string) store.Store {
	t.Helper()
	s := open(t, root)
	t.Cleanup(func() { s.Close() })
	return s
}

// NewRun returns a run record of suite with the given start time and no
// cases, as a run command would pass to Begin.
func NewRun(suite string, started time.Time) *assay.Run {
	return &assay.Run{
		Suite:     assay.SuiteRef{Name: suite, Fingerprint: "sha256:" + suite},
		Target:    assay.TargetInfo{Kind: "replay", Spec: "replay:trace.jsonl"},
		StartedAt: started,
		Options:   assay.RunOptions{K: 10, Trials: 1, Concurrency: 2},
	}
}

// Case returns a graded case result with an observation and one metric.
func Case(id string, pass bool, ndcg float64) assay.CaseResult {
	lat := 12.5
	return assay.CaseResult{
		ID: id, Pass: &pass,
		Checks:    []assay.Check{{Kind: "answer_includes", Pass: pass}},
		Metrics:   map[string]float64{"ndcg@10": ndcg},
		LatencyMs: &lat, Retrieved: 1,
		Observation: &assay.Observation{Case: id, Answer: "answer to " + id,
			Retrieved: []assay.Hit{{ID: "doc-" + id, Score: 1}}, LatencyMs: &lat},
	}
}

// Complete fills the summary of run from cases and marks it complete.
func Complete(run *assay.Run, cases []assay.CaseResult) {
	run.Status = assay.StatusComplete
	run.Cases = cases
	run.FinishedAt = run.StartedAt.Add(time.Second)
	var sum float64
	s := assay.Summary{Cases: len(cases)}
	for _, c := range cases {
		s.Graded++
		if c.Passed() {
			s.Passed++
		} else {
			s.Failed++
		}
		sum += c.Metrics["ndcg@10"]
	}
	if s.Graded > 0 {
		pr := float64(s.Passed) / float64(s.Graded)
		s.PassRate = &pr
	}
	if len(cases) > 0 {
		s.Metrics = map[string]assay.MetricAgg{"ndcg@10": {Mean: sum / float64(len(cases)), N: len(cases)}}
	}
	run.Summary = s
}

// save begins, appends and finishes one complete run.
func save(t testing.TB, s store.Store, run *assay.Run, cases ...assay.CaseResult) string {
	t.Helper()
	w, err := s.Begin(context.Background(), run)
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	for _, c := range cases {
		if err := w.Append(c); err != nil {
			t.Fatalf("Append: %v", err)
		}
	}
	Complete(run, cases)
	if err := w.Finish(run); err != nil {
		t.Fatalf("Finish: %v", err)
	}
	return run.RunID
}

var t0 = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)

func testBegin(t *testing.T, open Opener) {
	s := openStore(t, open, t.TempDir())
	run := NewRun("kb", t0)
	_, err := s.Begin(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	if !uuidV7.MatchString(run.RunID) {
		t.Errorf("run id %q is not a lowercase UUIDv7", run.RunID)
	}
	got, err := s.Load(context.Background(), run.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != assay.StatusIncomplete || got.Schema != assay.RunSchema || got.RunID != run.RunID {
		t.Errorf("after Begin run.json = status %q schema %q id %q; want incomplete %s %s",
			got.Status, got.Schema, got.RunID, assay.RunSchema, run.RunID)
	}
	if got.AssayVersion == "" {
		t.Error("assay_version is empty")
	}
	list, err := s.List(context.Background(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Status != assay.StatusIncomplete {
		t.Fatalf("List after Begin = %+v; want one incomplete run", list)
	}
}

func testFinish(t *testing.T, open Opener) {
	s := openStore(t, open, t.TempDir())
	ctx := context.Background()
	run := NewRun("kb", t0)
	id := save(t, s, run, Case("q1", true, 1), Case("q2", false, 0.5), Case("q3", true, 0))
	got, err := s.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != assay.StatusComplete || len(got.Cases) != 3 {
		t.Fatalf("run record: status %q with %d cases; want complete with 3", got.Status, len(got.Cases))
	}
	for _, c := range got.Cases {
		if c.Observation != nil {
			t.Errorf("run record case %s embeds its observation; it belongs with the case lines", c.ID)
		}
	}
	if !got.StartedAt.Equal(t0) || got.FinishedAt.IsZero() {
		t.Errorf("times: started %v finished %v", got.StartedAt, got.FinishedAt)
	}
	var n int
	err = s.Cases(ctx, id, true, func(r assay.CaseResult) error {
		n++
		if r.Observation == nil || r.Observation.Answer != "answer to "+r.ID {
			return fmt.Errorf("case line for %s lacks its observation", r.ID)
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Fatalf("case lines: %d, err %v; want 3", n, err)
	}
	list, err := s.List(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("List = %d entries; want 1", len(list))
	}
	e := list[0]
	if e.Status != assay.StatusComplete || e.Cases != 3 || e.PassRate == nil || *e.PassRate < 0.66 || *e.PassRate > 0.67 {
		t.Errorf("entry = %+v; want complete, 3 cases, pass rate 2/3", e)
	}
	if e.Headline != "ndcg@10" || e.HeadlineValue == nil || *e.HeadlineValue != 0.5 {
		t.Errorf("headline = %q %v; want ndcg@10 0.5", e.Headline, e.HeadlineValue)
	}
	if e.Suite != "kb" || e.RunID != id || e.Path != runFile(s, id) {
		t.Errorf("entry suite %q id %s path %q; want kb %s %q", e.Suite, e.RunID, e.Path, id, runFile(s, id))
	}
	if f, ok := s.(store.RunFiler); ok {
		// A store with files: run.json reads with no store at all.
		onDisk, err := store.LoadRun(f.RunFile(id))
		if err != nil || onDisk.RunID != id || len(onDisk.Cases) != 3 {
			t.Errorf("LoadRun(%s) = %v; want the run with 3 cases", f.RunFile(id), err)
		}
	}
}

// runFile is the run.json of id in a store with files, else "".
func runFile(s store.Store, id string) string {
	if f, ok := s.(store.RunFiler); ok {
		return f.RunFile(id)
	}
	return ""
}

func testFinishTwice(t *testing.T, open Opener) {
	s := openStore(t, open, t.TempDir())
	run := NewRun("kb", t0)
	w, err := s.Begin(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	Complete(run, nil)
	if err := w.Finish(run); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(run); !errors.Is(err, store.ErrFinished) {
		t.Errorf("second Finish: %v; want ErrFinished", err)
	}
	if err := w.Append(Case("late", true, 1)); !errors.Is(err, store.ErrFinished) {
		t.Errorf("Append after Finish: %v; want ErrFinished", err)
	}
}

func testList(t *testing.T, open Opener) {
	s := openStore(t, open, t.TempDir())
	a := save(t, s, NewRun("kb", t0), Case("q1", true, 1))
	b := save(t, s, NewRun("other", t0.Add(time.Minute)), Case("q1", true, 1))
	c := save(t, s, NewRun("kb", t0.Add(2*time.Minute)), Case("q1", false, 0))
	ctx := context.Background()
	ids := func(f store.Filter) []string {
		list, err := s.List(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range list {
			out = append(out, e.RunID)
		}
		return out
	}
	if got, want := fmt.Sprint(ids(store.Filter{})), fmt.Sprint([]string{c, b, a}); got != want {
		t.Errorf("List = %s; want newest first %s", got, want)
	}
	if got, want := fmt.Sprint(ids(store.Filter{Suite: "kb"})), fmt.Sprint([]string{c, a}); got != want {
		t.Errorf("List suite kb = %s; want %s", got, want)
	}
	if got, want := fmt.Sprint(ids(store.Filter{Limit: 1})), fmt.Sprint([]string{c}); got != want {
		t.Errorf("List limit 1 = %s; want %s", got, want)
	}
	if got := ids(store.Filter{Status: assay.StatusIncomplete}); len(got) != 0 {
		t.Errorf("List incomplete = %v; want none", got)
	}
}

// testListShardGroup: List with a ShardGroup lists the shard runs of that
// group only, each Entry with its shard (no gates); other runs have none.
func testListShardGroup(t *testing.T, open Opener) {
	s := openStore(t, open, t.TempDir())
	shardRun := func(group string, index int, started time.Time) *assay.Run {
		run := NewRun("kb", started)
		run.Shard = &assay.Shard{Index: index, Count: 2, Group: group, Gates: []assay.Gate{{Expr: "pass_rate >= 0.5"}}}
		return run
	}
	a := save(t, s, shardRun("g1", 0, t0), Case("q1", true, 1))
	save(t, s, shardRun("g2", 0, t0.Add(time.Minute)), Case("q1", true, 1))
	b := save(t, s, shardRun("g1", 1, t0.Add(2*time.Minute)), Case("q2", true, 1))
	plain := save(t, s, NewRun("kb", t0.Add(3*time.Minute)), Case("q1", true, 1))
	save(t, s, shardRun("g3", 0, t0.Add(4*time.Minute)), Case("q1", true, 1))
	if got, err := s.Resolve(context.Background(), "latest"); err != nil || got != plain {
		t.Errorf("latest = %s, %v; want the newest run that is no shard, %s", got, err, plain)
	}
	if list, err := s.List(context.Background(), store.Filter{NoShards: true}); err != nil || len(list) != 1 || list[0].RunID != plain {
		t.Errorf("List NoShards = %v, %v; want run %s alone", list, err, plain)
	}
	if trend, err := s.Trend(context.Background(), "kb", "ndcg@10", 0); err != nil || len(trend) != 1 || trend[0].RunID != plain {
		t.Errorf("Trend = %v, %v; want run %s alone: a shard is a slice of a run", trend, err, plain)
	}
	list, err := s.List(context.Background(), store.Filter{ShardGroup: "g1"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range list {
		got = append(got, e.RunID)
		if e.Shard == nil || e.Shard.Group != "g1" || e.Shard.Count != 2 || (e.RunID == b) != (e.Shard.Index == 1) {
			t.Errorf("entry %s: shard %+v; want group g1, count 2, its index", e.RunID, e.Shard)
		}
	}
	if want := fmt.Sprint([]string{b, a}); fmt.Sprint(got) != want {
		t.Errorf("List shard group g1 = %v; want %s", got, want)
	}
	all, err := s.List(context.Background(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range all {
		if e.RunID == plain && e.Shard != nil {
			t.Errorf("a run that is no shard lists shard %+v", e.Shard)
		}
	}
}

func testLatestSkipsIncomplete(t *testing.T, open Opener) {
	s := openStore(t, open, t.TempDir())
	ctx := context.Background()
	if _, err := s.Resolve(ctx, "latest"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("latest in an empty store: %v; want ErrNotFound", err)
	}
	done := save(t, s, NewRun("kb", t0), Case("q1", true, 1))
	if _, err := s.Begin(ctx, NewRun("kb", t0.Add(time.Minute))); err != nil {
		t.Fatal(err)
	}
	id, err := s.Resolve(ctx, "latest")
	if err != nil {
		t.Fatal(err)
	}
	if id != done {
		t.Errorf("Resolve(latest) = %s; want the complete run %s", id, done)
	}
	got, err := s.Load(ctx, "latest")
	if err != nil {
		t.Fatal(err)
	}
	if got.RunID != done {
		t.Errorf("latest = %s; want the complete run %s, not the newer incomplete one", got.RunID, done)
	}
}

// labelled is NewRun with labels.
func labelled(suite string, started time.Time, labels map[string]string) *assay.Run {
	run := NewRun(suite, started)
	run.Labels = labels
	return run
}

func testLabels(t *testing.T, open Opener) {
	root := t.TempDir()
	s := openStore(t, open, root)
	ctx := context.Background()
	main1 := save(t, s, labelled("kb", t0, map[string]string{"branch": "main", "env": "staging", "commit": "abc"}), Case("q1", true, 1))
	main2 := save(t, s, labelled("kb", t0.Add(time.Minute), map[string]string{"branch": "main", "env": "prod"}), Case("q1", true, 1))
	pr := save(t, s, labelled("kb", t0.Add(2*time.Minute), map[string]string{"branch": "feature/x,y", "env": "staging"}), Case("q1", true, 1))
	other := save(t, s, labelled("other", t0.Add(3*time.Minute), map[string]string{"branch": "main", "env": "staging"}), Case("q1", true, 1))
	plain := save(t, s, NewRun("kb", t0.Add(4*time.Minute)), Case("q1", true, 1))
	// An incomplete run on main is never latest.
	if _, err := s.Begin(ctx, labelled("kb", t0.Add(5*time.Minute), map[string]string{"branch": "main"})); err != nil {
		t.Fatal(err)
	}

	// The labels come back with the run, from this handle and a second one.
	for i, h := range []store.Store{s, openStore(t, open, root)} {
		got, err := h.Load(ctx, main1)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]string{"branch": "main", "env": "staging", "commit": "abc"}; !reflect.DeepEqual(got.Labels, want) {
			t.Errorf("handle %d: Load labels = %v; want %v", i, got.Labels, want)
		}
		list, err := h.List(ctx, store.Filter{Labels: map[string]string{"env": "staging"}})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range list {
			ids = append(ids, e.RunID)
			if e.Labels["env"] != "staging" {
				t.Errorf("handle %d: entry %s lists labels %v; want env=staging among them", i, e.RunID, e.Labels)
			}
		}
		if want := fmt.Sprint([]string{other, pr, main1}); fmt.Sprint(ids) != want {
			t.Errorf("handle %d: List env=staging = %v; want %s", i, ids, want)
		}
	}
	for _, c := range []struct{ ref, suite, want string }{
		{"latest", "kb", plain},
		{"latest", "", plain},
		{"latest", "other", other},
		{"latest@main", "kb", main2},
		{"latest@main", "", other},
		{"latest@main~1", "kb", main1},
		{"latest{branch=main,env=staging}", "kb", main1},
		{"latest{branch=main,env=staging}", "", other},
		{"latest{ env = staging }~1", "kb", main1},
		{`latest{branch="feature/x,y"}`, "kb", pr},
		{"latest@feature/x,y", "kb", pr},
	} {
		e, err := store.ResolveEntryIn(ctx, s, c.ref, c.suite)
		if err != nil {
			t.Errorf("%s in suite %q: %v", c.ref, c.suite, err)
			continue
		}
		if e.RunID != c.want {
			t.Errorf("%s in suite %q = %s; want %s", c.ref, c.suite, e.RunID, c.want)
		}
	}
	for _, c := range []struct{ ref, suite string }{
		{"latest@main~2", "kb"},
		{"latest@release", "kb"},
		{"latest{env=prod}", "other"},
	} {
		if _, err := store.ResolveEntryIn(ctx, s, c.ref, c.suite); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s in suite %q: %v; want ErrNotFound", c.ref, c.suite, err)
		}
	}
}

func testLatestTilde(t *testing.T, open Opener) {
	s := openStore(t, open, t.TempDir())
	ctx := context.Background()
	k1 := save(t, s, NewRun("kb", t0), Case("q1", true, 1))
	k2 := save(t, s, NewRun("kb", t0.Add(time.Minute)), Case("q1", true, 1))
	save(t, s, NewRun("other", t0.Add(2*time.Minute)), Case("q1", true, 1))
	k3 := save(t, s, NewRun("kb", t0.Add(3*time.Minute)), Case("q1", true, 1))
	if _, err := s.Begin(ctx, NewRun("kb", t0.Add(4*time.Minute))); err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]string{"latest": k3, "latest~0": k3, "latest~1": k2, "latest~2": k1} {
		got, err := s.Resolve(ctx, ref)
		if err != nil {
			t.Errorf("%s: %v", ref, err)
			continue
		}
		if got != want {
			t.Errorf("%s = %s; want %s", ref, got, want)
		}
	}
	if _, err := s.Resolve(ctx, "latest~3"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("latest~3 with three runs of the suite: %v; want ErrNotFound", err)
	}
	if _, err := s.Resolve(ctx, "latest~x"); err == nil {
		t.Error("latest~x resolved; want an error")
	}
}

func testResolveID(t *testing.T, open Opener) {
	s := openStore(t, open, t.TempDir())
	ctx := context.Background()
	a := save(t, s, NewRun("kb", t0), Case("q1", true, 1))
	b := save(t, s, NewRun("kb", t0.Add(time.Minute)), Case("q1", true, 1))
	short := store.ShortIDs([]store.Entry{{RunID: a}, {RunID: b}}, 8)
	for _, id := range []string{a, b} {
		refs := []string{id, short[id], strings.ToUpper(short[id])}
		if f := runFile(s, id); f != "" {
			refs = append(refs, f, filepath.Dir(f))
		}
		for _, ref := range refs {
			got, err := s.Resolve(ctx, ref)
			if err != nil {
				t.Errorf("Resolve(%q): %v", ref, err)
				continue
			}
			if got != id {
				t.Errorf("Resolve(%q) = %s; want %s", ref, got, id)
			}
		}
	}
	if _, err := s.Resolve(ctx, "0"); !errors.Is(err, store.ErrAmbiguous) {
		t.Errorf("prefix 0 of two ids: %v; want ErrAmbiguous", err)
	}
	if _, err := s.Resolve(ctx, "ffffffff"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown id: %v; want ErrNotFound", err)
	}
	if _, err := s.Resolve(ctx, filepath.Join(t.TempDir(), "nope", "run.json")); err == nil {
		t.Error("missing path resolved; want an error naming it")
	}
}

// testListPrefix: a store.PrefixLister's ListPrefix is List with no
// filter kept to the ids starting with the prefix, in List's order (what
// ResolveEntry reads in its place); a store without it is skipped.
func testListPrefix(t *testing.T, open Opener) {
	s := openStore(t, open, t.TempDir())
	pl, ok := s.(store.PrefixLister)
	if !ok {
		t.Skipf("%T has no ListPrefix", s)
	}
	ctx := context.Background()
	a := save(t, s, NewRun("kb", t0), Case("q1", true, 1))
	b := save(t, s, NewRun("kb", t0.Add(time.Minute)), Case("q1", true, 1))
	c := save(t, s, NewRun("other", t0.Add(2*time.Minute)), Case("q1", false, 0))
	all, err := s.List(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"", "0", a, b[:len(b)-1], c[:9], strings.ToUpper(a), "%", "_", "ffffffff"} {
		var want []string
		for _, e := range all {
			if strings.HasPrefix(e.RunID, p) {
				want = append(want, e.RunID)
			}
		}
		es, err := pl.ListPrefix(ctx, p)
		if err != nil {
			t.Errorf("ListPrefix(%q): %v", p, err)
			continue
		}
		var got []string
		for _, e := range es {
			got = append(got, e.RunID)
		}
		if !slices.Equal(got, want) {
			t.Errorf("ListPrefix(%q) = %v; want %v", p, got, want)
		}
	}
}

func testUnfinished(t *testing.T, open Opener) {
	root := t.TempDir()
	s := openStore(t, open, root)
	run := NewRun("kb", t0)
	w, err := s.Begin(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"q1", "q2"} {
		if err := w.Append(Case(id, true, 1)); err != nil {
			t.Fatal(err)
		}
	}
	// Like a killed process: the writer is abandoned, never finished.
	// A second handle (another process) reads what it recorded, within
	// the time a store may hold appended cases before they are kept (a
	// second or two: a batch's).
	other := openStore(t, open, root)
	var got *assay.Run
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got, err = other.Load(context.Background(), run.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Cases) >= 2 || time.Now().After(deadline) {
			break
		}
	}
	if got.Status != assay.StatusIncomplete || len(got.Cases) != 2 {
		t.Fatalf("abandoned run: status %q with %d cases; want incomplete with 2", got.Status, len(got.Cases))
	}
	// A second handle (another process) sees it listed as incomplete.
	s2 := openStore(t, open, root)
	list, err := s2.List(context.Background(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Status != assay.StatusIncomplete {
		t.Errorf("List = %+v; want the abandoned run, incomplete", list)
	}
}

// testConcurrent: eight writers, each with its own handle on one store (as
// eight processes would have), write runs at once; every run is listed
// complete with every case it appended.
func testConcurrent(t *testing.T, open Opener) {
	root := t.TempDir()
	const writers, runs, cases = 8, 4, 5
	stores := make([]store.Store, writers)
	for i := range stores {
		stores[i] = openStore(t, open, root)
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers*runs)
	for i, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range runs {
				run := NewRun(fmt.Sprintf("suite-%d", i), time.Now().UTC())
				w, err := s.Begin(context.Background(), run)
				if err != nil {
					errs <- err
					return
				}
				var done []assay.CaseResult
				var mu sync.Mutex
				var cw sync.WaitGroup
				for k := range cases {
					cw.Go(func() { // cases of one run are appended at once too
						c := Case(fmt.Sprintf("q%d", k), (j+k)%2 == 0, 0.5)
						if err := w.Append(c); err != nil {
							errs <- err
							return
						}
						mu.Lock()
						done = append(done, c)
						mu.Unlock()
					})
				}
				cw.Wait()
				Complete(run, done)
				if err := w.Finish(run); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	ctx := context.Background()
	list, err := stores[0].List(ctx, store.Filter{Status: assay.StatusComplete})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != writers*runs {
		t.Errorf("listed %d complete runs; want %d", len(list), writers*runs)
	}
	for _, e := range list {
		run, err := stores[1].Load(ctx, e.RunID)
		if err != nil {
			t.Errorf("Load(%s): %v", e.RunID, err)
			continue
		}
		n := 0
		if err := stores[2].Cases(ctx, e.RunID, true, func(r assay.CaseResult) error {
			if r.Observation == nil {
				return fmt.Errorf("case %s without its observation", r.ID)
			}
			n++
			return nil
		}); err != nil {
			t.Errorf("Cases(%s): %v", e.RunID, err)
		}
		if len(run.Cases) != cases || n != cases || e.Cases != cases {
			t.Errorf("run %s: %d cases in the record, %d case lines, %d in the index; want %d of each", e.RunID, len(run.Cases), n, e.Cases, cases)
		}
	}
	dirs, _ := os.ReadDir(filepath.Join(root, "runs"))
	if len(dirs) != writers*runs && len(dirs) != 0 {
		t.Errorf("%d run directories; want %d", len(dirs), writers*runs)
	}
}

func testFinishAfterCancel(t *testing.T, open Opener) {
	s := openStore(t, open, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	run := NewRun("kb", t0)
	w, err := s.Begin(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	c := Case("q1", true, 1)
	if err := w.Append(c); err != nil {
		t.Fatal(err)
	}
	cancel() // Ctrl-C: the run stops, and Finish records it as incomplete
	Complete(run, []assay.CaseResult{c})
	run.Status = assay.StatusIncomplete
	if err := w.Finish(run); err != nil {
		t.Fatalf("Finish after the run's context was canceled: %v", err)
	}
	list, err := s.List(context.Background(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Status != assay.StatusIncomplete || list[0].Cases != 1 {
		t.Errorf("List = %+v; want the interrupted run, incomplete, 1 case", list)
	}
}

// Streamed returns run with its cases given by CaseStream instead of Cases
// (the form a run whose results were spilled to disk has): each call
// yields cases afresh, in order; after failAfter cases (when failAfter >=
// 0) the stream fails with err.
func Streamed(run *assay.Run, cases []assay.CaseResult, failAfter int, err error) *assay.Run {
	s := *run
	s.Cases = nil
	s.CaseStream = func(yield func(assay.CaseResult) error) error {
		for i, c := range cases {
			if i == failAfter {
				return err
			}
			if err := yield(c); err != nil {
				return err
			}
		}
		if failAfter >= len(cases) {
			return err
		}
		return nil
	}
	return &s
}

// finishStreamed saves run in a fresh store rooted at root, Finish reading
// its cases from CaseStream when stream is set (else from Cases), and
// returns the bytes of its run.json (for a store without files, the
// run.json form of the run it loads back).
func finishStreamed(t *testing.T, open Opener, root string, cases []assay.CaseResult, stream bool) []byte {
	t.Helper()
	s := openStore(t, open, root)
	run := NewRun("kb", t0)
	run.RunID = "019ad3c1-7f2e-7c4d-9a55-3b8d2f0c1e77"
	w, err := s.Begin(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if err := w.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	Complete(run, cases)
	run.Warnings = []string{"a warning after the cases"}
	fin := run
	if stream {
		fin = Streamed(run, cases, -1, nil)
	}
	if err := w.Finish(fin); err != nil {
		t.Fatalf("Finish: %v", err)
	}
	loaded, err := s.Load(context.Background(), run.RunID)
	if err != nil {
		t.Fatal(err)
	}
	b, err := store.EncodeRun(loaded)
	if err != nil {
		t.Fatal(err)
	}
	if f := runFile(s, run.RunID); f != "" {
		// The file itself, as written.
		if b, err = os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	list, err := s.List(context.Background(), store.Filter{})
	if err != nil || len(list) != 1 || list[0].Cases != len(cases) || list[0].Status != assay.StatusComplete {
		t.Fatalf("List = %+v, %v; want one complete run of %d cases", list, err, len(cases))
	}
	return b
}

// testFinishStream: Finish given a run whose cases come from CaseStream
// (Cases nil) records the same run, byte for byte, as given the cases.
func testFinishStream(t *testing.T, open Opener) {
	cases := []assay.CaseResult{Case("q1", true, 1), Case("q2", false, 0.5), Case("q3", true, 0)}
	want := finishStreamed(t, open, t.TempDir(), cases, false)
	got := finishStreamed(t, open, t.TempDir(), cases, true)
	if string(got) != string(want) {
		t.Errorf("run.json from the stream differs:\n got %s\nwant %s", got, want)
	}
	if n := regexp.MustCompile(`(?m)^    \{"id":`).FindAll(got, -1); len(n) != len(cases) {
		t.Errorf("run.json lists %d cases; want %d:\n%s", len(n), len(cases), got)
	}
	// No cases: the stream yields nothing, as a run with none.
	want = finishStreamed(t, open, t.TempDir(), nil, false)
	got = finishStreamed(t, open, t.TempDir(), nil, true)
	if string(got) != string(want) {
		t.Errorf("run.json from an empty stream differs:\n got %s\nwant %s", got, want)
	}
}

// testFinishStreamError: when the run's CaseStream fails, Finish returns
// its error, and the run is the one Begin recorded (incomplete, its
// appended cases recoverable), with no temporary file left beside it.
func testFinishStreamError(t *testing.T, open Opener) {
	for _, after := range []int{0, 2} {
		t.Run(fmt.Sprintf("after_%d", after), func(t *testing.T) {
			s := openStore(t, open, t.TempDir())
			run := NewRun("kb", t0)
			w, err := s.Begin(context.Background(), run)
			if err != nil {
				t.Fatal(err)
			}
			cases := []assay.CaseResult{Case("q1", true, 1), Case("q2", false, 0.5), Case("q3", true, 0)}
			for _, c := range cases {
				if err := w.Append(c); err != nil {
					t.Fatal(err)
				}
			}
			Complete(run, cases)
			errSpill := errors.New("spill: read error")
			if err := w.Finish(Streamed(run, cases, after, errSpill)); !errors.Is(err, errSpill) {
				t.Fatalf("Finish: %v; want the stream's error", err)
			}
			got, err := s.Load(context.Background(), run.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != assay.StatusIncomplete || len(got.Cases) != len(cases) {
				t.Errorf("run after a failed Finish: status %q with %d cases; want incomplete with %d (the appended ones)",
					got.Status, len(got.Cases), len(cases))
			}
			list, err := s.List(context.Background(), store.Filter{})
			if err != nil || len(list) != 1 || list[0].Status != assay.StatusIncomplete {
				t.Errorf("List after a failed Finish = %+v, %v; want the run, incomplete", list, err)
			}
			if w.Dir() == "" {
				return
			}
			ents, err := os.ReadDir(w.Dir())
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ents {
				if e.Name() != store.RunFile && e.Name() != store.CasesFile && e.Name() != store.CasesGzFile && e.Name() != store.CaseIndexFile && e.Name() != store.SuiteCasesFile {
					t.Errorf("%s left in the run directory", e.Name())
				}
			}
		})
	}
}

// testLoad: Load takes every REF form (id, prefix, latest, latest~N, and a
// path to a run.json, which any store reads with no index) and says
// ErrNotFound and ErrAmbiguous as Resolve does.
func testLoad(t *testing.T, open Opener) {
	s := openStore(t, open, t.TempDir())
	ctx := context.Background()
	a := save(t, s, NewRun("kb", t0), Case("q1", true, 1), Case("q2", false, 0))
	b := save(t, s, NewRun("kb", t0.Add(time.Minute)), Case("q1", true, 1))
	for ref, want := range map[string]string{a: a, a[:13]: a, b: b, "latest": b, "latest~1": a} {
		run, err := s.Load(ctx, ref)
		if err != nil {
			t.Errorf("Load(%q): %v", ref, err)
			continue
		}
		if run.RunID != want || run.Status != assay.StatusComplete || run.Suite.Name != "kb" {
			t.Errorf("Load(%q) = run %s status %q suite %q; want %s complete kb", ref, run.RunID, run.Status, run.Suite.Name, want)
		}
	}
	run, err := s.Load(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Cases) != 2 || run.Cases[0].ID != "q1" || run.Cases[1].ID != "q2" || run.Cases[1].Metrics["ndcg@10"] != 0 || !run.Cases[0].Passed() {
		t.Errorf("Load(%s) cases = %+v; want q1 (pass) and q2 in order", a, run.Cases)
	}
	if run.Summary.Cases != 2 || run.Summary.PassRate == nil || *run.Summary.PassRate != 0.5 || run.Options.K != 10 {
		t.Errorf("Load(%s) summary %+v options %+v; want 2 cases, pass rate 0.5, k 10", a, run.Summary, run.Options)
	}
	// A run.json outside the store (assay run --json): a path REF.
	ext := NewRun("elsewhere", t0)
	ext.RunID = "019ad3c1-0000-7000-8000-000000000001"
	Complete(ext, []assay.CaseResult{Case("x1", true, 1)})
	ext.Schema = assay.RunSchema
	body, err := store.EncodeRun(ext)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "cand.json")
	if err := os.WriteFile(file, body, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Load(ctx, file); err != nil || got.RunID != ext.RunID || len(got.Cases) != 1 {
		t.Errorf("Load(%s) = %v; want the run of that file", file, err)
	}
	if _, err := s.Load(ctx, "ffffffff"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Load of an unknown id: %v; want ErrNotFound", err)
	}
	if _, err := s.Load(ctx, "0"); !errors.Is(err, store.ErrAmbiguous) {
		t.Errorf("Load of prefix 0 of two ids: %v; want ErrAmbiguous", err)
	}
}

// testCases: Cases yields the appended case lines in order, with their
// observations or without, ends at fn's error, and says ErrNotFound for a
// run the store does not have.
func testCases(t *testing.T, open Opener) {
	s := openStore(t, open, t.TempDir())
	ctx := context.Background()
	in := []assay.CaseResult{Case("q1", true, 1), Case("q2", false, 0.5), Case("q3", true, 0)}
	in[1].Trial = 1
	in[2].Error = &assay.Error{Class: assay.ErrTimeout, Message: "after 30s"}
	in[2].Observation.Answer = "a\x00nul and é and \u2028"
	id := save(t, s, NewRun("kb", t0), in...)
	for _, obs := range []bool{true, false} {
		var got []assay.CaseResult
		if err := s.Cases(ctx, id, obs, func(r assay.CaseResult) error { got = append(got, r); return nil }); err != nil {
			t.Fatalf("Cases(obs %v): %v", obs, err)
		}
		if len(got) != len(in) {
			t.Fatalf("Cases(obs %v) = %d cases; want %d", obs, len(got), len(in))
		}
		for i, r := range got {
			w := in[i]
			if r.ID != w.ID || r.Trial != w.Trial || r.Passed() != w.Passed() || r.Metrics["ndcg@10"] != w.Metrics["ndcg@10"] || (r.Error == nil) != (w.Error == nil) {
				t.Errorf("Cases(obs %v)[%d] = %+v; want %+v", obs, i, r, w)
			}
			switch {
			case obs && (r.Observation == nil || r.Observation.Answer != w.Observation.Answer):
				t.Errorf("Cases(obs true)[%d] observation = %+v; want answer %q", i, r.Observation, w.Observation.Answer)
			case !obs && r.Observation != nil:
				t.Errorf("Cases(obs false)[%d] has an observation", i)
			}
		}
	}
	stop := errors.New("stop here")
	n := 0
	err := s.Cases(ctx, id, false, func(assay.CaseResult) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("Cases with fn failing on the first case: %d calls, %v; want 1 call and fn's error", n, err)
	}
	if err := s.Cases(ctx, "019ad3c1-0000-7000-8000-00000000ffff", true, func(assay.CaseResult) error { return nil }); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Cases of an unknown run: %v; want ErrNotFound", err)
	}
}

// testTrend: Trend reads a metric (or pass_rate) over the complete runs of
// one suite, oldest first, the newest limit of them.
func testTrend(t *testing.T, open Opener) {
	s := openStore(t, open, t.TempDir())
	ctx := context.Background()
	var ids []string
	for i, v := range []float64{0.25, 0.5, 0.75} {
		ids = append(ids, save(t, s, NewRun("kb", t0.Add(time.Duration(i)*time.Minute)), Case("q1", i%2 == 0, v)))
	}
	save(t, s, NewRun("other", t0.Add(10*time.Minute)), Case("q1", true, 0.9))
	if _, err := s.Begin(ctx, NewRun("kb", t0.Add(20*time.Minute))); err != nil {
		t.Fatal(err)
	}
	pts, err := s.Trend(ctx, "kb", "ndcg@10", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 3 {
		t.Fatalf("Trend = %+v; want the 3 complete runs of kb", pts)
	}
	for i, p := range pts {
		if p.RunID != ids[i] || p.Value != []float64{0.25, 0.5, 0.75}[i] || p.N != 1 || !p.StartedAt.Equal(t0.Add(time.Duration(i)*time.Minute)) {
			t.Errorf("Trend[%d] = %+v; want run %s value %v n 1, oldest first", i, p, ids[i], []float64{0.25, 0.5, 0.75}[i])
		}
	}
	pts, err = s.Trend(ctx, "kb", "ndcg@10", 2)
	if err != nil || len(pts) != 2 || pts[0].RunID != ids[1] || pts[1].RunID != ids[2] {
		t.Errorf("Trend limit 2 = %+v, %v; want the newest two, oldest first", pts, err)
	}
	pts, err = s.Trend(ctx, "kb", "pass_rate", 0)
	if err != nil || len(pts) != 3 || pts[0].Value != 1 || pts[1].Value != 0 || pts[1].N != 1 {
		t.Errorf("Trend pass_rate = %+v, %v; want 1, 0, 1", pts, err)
	}
	if pts, err := s.Trend(ctx, "kb", "recall@5", 0); err != nil || len(pts) != 0 {
		t.Errorf("Trend of a metric no run has = %+v, %v; want none", pts, err)
	}
}

// testDelete: a deleted run is gone from every reading (List, Load, Cases,
// Trend, a second handle) and the other runs stay; deleting it again, or
// an id the store never had, says ErrNotFound.
func testDelete(t *testing.T, open Opener) {
	root := t.TempDir()
	s := openStore(t, open, root)
	ctx := context.Background()
	a := save(t, s, NewRun("kb", t0), Case("q1", true, 1), Case("q2", true, 1))
	b := save(t, s, NewRun("kb", t0.Add(time.Minute)), Case("q1", false, 0))
	if err := s.Delete(ctx, a); err != nil {
		t.Fatalf("Delete(%s): %v", a, err)
	}
	for i, h := range []store.Store{s, openStore(t, open, root)} {
		list, err := h.List(ctx, store.Filter{})
		if err != nil || len(list) != 1 || list[0].RunID != b {
			t.Errorf("handle %d: List after Delete = %+v, %v; want only %s", i, list, err, b)
		}
		if _, err := h.Load(ctx, a); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("handle %d: Load of the deleted run: %v; want ErrNotFound", i, err)
		}
		if err := h.Cases(ctx, a, true, func(assay.CaseResult) error { return nil }); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("handle %d: Cases of the deleted run: %v; want ErrNotFound", i, err)
		}
		if pts, err := h.Trend(ctx, "kb", "ndcg@10", 0); err != nil || len(pts) != 1 || pts[0].RunID != b {
			t.Errorf("handle %d: Trend after Delete = %+v, %v; want only %s", i, pts, err, b)
		}
		if run, err := h.Load(ctx, b); err != nil || len(run.Cases) != 1 {
			t.Errorf("handle %d: Load of the other run = %v; want it whole", i, err)
		}
	}
	if err := s.Delete(ctx, a); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Delete of a deleted run: %v; want ErrNotFound", err)
	}
	if err := s.Delete(ctx, a[:8]); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Delete of a prefix: %v; want ErrNotFound (Delete takes a full id)", err)
	}
}

// testCopy: runs copied from a files store into this one, and from this
// one into a second files store, are the runs they were: records byte for
// byte, listings, case lines with observations; copying again skips them.
func testCopy(t *testing.T, open Opener) {
	ctx := context.Background()
	files := func() store.Store {
		f, err := store.OpenFiles(filepath.Join(t.TempDir(), "files"), store.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	src, back := files(), files()
	s := openStore(t, open, t.TempDir())
	ids := saveRuns(t, src, t0)
	for _, step := range []struct {
		name     string
		dst, src store.Store
	}{{"into the store", s, src}, {"back out", back, s}} {
		res, err := store.Copy(ctx, step.dst, step.src)
		if err != nil {
			t.Fatalf("copy %s: %v", step.name, err)
		}
		if fmt.Sprint(res.Copied) != fmt.Sprint(ids) || len(res.Skipped) != 0 {
			t.Fatalf("copy %s = %+v; want every run copied, oldest first: %v", step.name, res, ids)
		}
		sameRuns(t, step.dst, src, ids)
		res, err = store.Copy(ctx, step.dst, step.src)
		if err != nil || len(res.Copied) != 0 || len(res.Skipped) != len(ids) {
			t.Errorf("copy %s again = %+v, %v; want every run skipped", step.name, res, err)
		}
	}
}

// saveRuns records two complete runs and one stopped (never finished) in
// s and returns their ids, oldest first.
func saveRuns(t *testing.T, s store.Store, t0 time.Time) []string {
	t.Helper()
	ctx := context.Background()
	var ids []string
	for i := range 2 {
		run := NewRun("kb", t0.Add(time.Duration(i)*time.Minute))
		w, err := s.Begin(ctx, run)
		if err != nil {
			t.Fatal(err)
		}
		cases := []assay.CaseResult{Case("q1", true, 1), Case("q2", i == 0, 0.5)}
		for _, c := range cases {
			if err := w.Append(c); err != nil {
				t.Fatal(err)
			}
			appendSuiteCase(t, w, c.ID)
		}
		Complete(run, cases)
		if err := w.Finish(run); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, run.RunID)
	}
	run := NewRun("kb", t0.Add(5*time.Minute))
	w, err := s.Begin(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(Case("q1", true, 1)); err != nil {
		t.Fatal(err)
	}
	appendSuiteCase(t, w, "q1")
	// Stopped: its writer lets go as a killed process's would.
	if r, ok := w.(store.Releaser); ok {
		if err := r.Release(); err != nil {
			t.Fatal(err)
		}
	}
	return append(ids, run.RunID)
}

// sameRuns checks that got holds each run of want as want has it: the
// record (in its run.json form), the listing and the case lines with
// their observations.
func sameRuns(t *testing.T, got, want store.Store, ids []string) {
	t.Helper()
	ctx := context.Background()
	gl, err := got.List(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	wl, err := want.List(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(gl) != len(wl) {
		t.Fatalf("listed %d runs; want %d", len(gl), len(wl))
	}
	for i := range gl {
		g, w := gl[i], wl[i]
		g.Path, w.Path = "", ""
		g.StartedAt, w.StartedAt = g.StartedAt.Truncate(time.Microsecond), w.StartedAt.Truncate(time.Microsecond)
		g.FinishedAt, w.FinishedAt = g.FinishedAt.Truncate(time.Microsecond), w.FinishedAt.Truncate(time.Microsecond)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("entry %d = %+v; want %+v", i, g, w)
		}
	}
	for _, id := range ids {
		gr, err := got.Load(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		wr, err := want.Load(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		gb, _ := store.EncodeRun(gr)
		wb, _ := store.EncodeRun(wr)
		if string(gb) != string(wb) {
			t.Errorf("run %s record:\n got %s\nwant %s", id, gb, wb)
		}
		var gc, wc []assay.CaseResult
		got.Cases(ctx, id, true, func(r assay.CaseResult) error { gc = append(gc, r); return nil })
		want.Cases(ctx, id, true, func(r assay.CaseResult) error { wc = append(wc, r); return nil })
		if len(wc) == 0 || !reflect.DeepEqual(gc, wc) {
			t.Errorf("run %s case lines:\n got %+v\nwant %+v", id, gc, wc)
		}
		if gs, ws := suiteCases(t, got, id), suiteCases(t, want, id); len(ws) == 0 || !reflect.DeepEqual(gs, ws) {
			t.Errorf("run %s suite cases:\n got %+v\nwant %+v", id, gs, ws)
		}
	}
}

// SuiteCase is the case id as a run keeps it (store.SuiteCaseWriter): a
// query, judgments and an expectation.
func SuiteCase(id string) assay.Case {
	cs := false
	return assay.Case{ID: id, Query: "what is " + id + "?", Judgments: map[string]int{"doc-" + id: 2, "other": 1},
		Expect: assay.Expect{AnswerIncludes: []string{id}, CaseSensitive: &cs}}
}

// appendSuiteCase keeps SuiteCase(id) with the run w writes; every store
// of this module keeps them.
func appendSuiteCase(t testing.TB, w store.RunWriter, id string) {
	t.Helper()
	sw, ok := w.(store.SuiteCaseWriter)
	if !ok {
		t.Fatalf("the run writer %T does not keep the suite's cases (store.SuiteCaseWriter)", w)
	}
	if err := sw.AppendSuiteCase(SuiteCase(id)); err != nil {
		t.Fatalf("AppendSuiteCase: %v", err)
	}
}

// suiteCases is every case the run id keeps in s (store.SuiteCaseReader).
func suiteCases(t testing.TB, s store.Store, id string) []assay.Case {
	t.Helper()
	sr, ok := s.(store.SuiteCaseReader)
	if !ok {
		t.Fatalf("the store %T does not read the suite's cases a run keeps (store.SuiteCaseReader)", s)
	}
	var out []assay.Case
	if err := sr.SuiteCases(context.Background(), id, func(c assay.Case) error { out = append(out, c); return nil }); err != nil {
		t.Fatalf("SuiteCases: %v", err)
	}
	return out
}

// testSuiteCases: the cases a run keeps as its suite stated them are read
// by a second handle (another machine), one by its id or all in the order
// written, while the run goes (once its batch is kept) and once it
// finished; a case it does not keep is nil, an unknown run ErrNotFound.
func testSuiteCases(t *testing.T, open Opener) {
	ctx := context.Background()
	root := t.TempDir()
	s := openStore(t, open, root)
	other := openStore(t, open, root)
	sr, ok := other.(store.SuiteCaseReader)
	if !ok {
		t.Fatalf("the store %T does not read the suite's cases a run keeps (store.SuiteCaseReader)", other)
	}
	run := NewRun("kb", t0)
	w, err := s.Begin(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{"q1", "q2", "q3"}
	var cases []assay.CaseResult
	for _, id := range ids {
		c := Case(id, id != "q2", 1)
		if err := w.Append(c); err != nil {
			t.Fatal(err)
		}
		appendSuiteCase(t, w, id)
		cases = append(cases, c)
	}
	// While the run goes: kept within a batch's time.
	var c *assay.Case
	for deadline := time.Now().Add(10 * time.Second); c == nil && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err = sr.SuiteCase(ctx, run.RunID, "q2"); err != nil {
			t.Fatalf("SuiteCase of a run being written: %v", err)
		}
	}
	if want := SuiteCase("q2"); !reflect.DeepEqual(c, &want) {
		t.Errorf("SuiteCase(q2) of a run being written = %+v; want %+v", c, want)
	}
	Complete(run, cases)
	if err := w.Finish(run); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		c, err := sr.SuiteCase(ctx, run.RunID, id)
		if want := SuiteCase(id); err != nil || !reflect.DeepEqual(c, &want) {
			t.Errorf("SuiteCase(%s) = %+v, %v; want %+v", id, c, err, want)
		}
	}
	if c, err := sr.SuiteCase(ctx, run.RunID, "nope"); c != nil || err != nil {
		t.Errorf("SuiteCase(nope) = %+v, %v; want nil, nil", c, err)
	}
	var got []string
	for _, c := range suiteCases(t, other, run.RunID) {
		got = append(got, c.ID)
	}
	if !reflect.DeepEqual(got, ids) {
		t.Errorf("SuiteCases = %v; want %v in the order written", got, ids)
	}
	unknown := "0190a000-0000-7000-8000-000000000000"
	if _, err := sr.SuiteCase(ctx, unknown, "q1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SuiteCase of an unknown run: %v; want ErrNotFound", err)
	}
	if err := sr.SuiteCases(ctx, unknown, func(assay.Case) error { return nil }); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SuiteCases of an unknown run: %v; want ErrNotFound", err)
	}
	// A run that keeps none (written before runs kept them).
	bare := save(t, s, NewRun("kb", t0.Add(time.Minute)), Case("q1", true, 1))
	if c, err := sr.SuiteCase(ctx, bare, "q1"); c != nil || err != nil {
		t.Errorf("SuiteCase of a run that keeps none = %+v, %v; want nil, nil", c, err)
	}
}

// testDeleteInProgress: a run another handle (another process) is still
// writing is not deleted, whatever its age: Delete says ErrInProgress and
// the run keeps every case; once finished it can be deleted.
func testDeleteInProgress(t *testing.T, open Opener) {
	root := t.TempDir()
	writer := openStore(t, open, root)
	pruner := openStore(t, open, root)
	ctx := context.Background()
	run := NewRun("kb", t0)
	w, err := writer.Begin(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(Case("q1", true, 1)); err != nil {
		t.Fatal(err)
	}
	if err := pruner.Delete(ctx, run.RunID); !errors.Is(err, store.ErrInProgress) {
		t.Fatalf("Delete of a run being written: %v; want ErrInProgress", err)
	}
	if err := w.Append(Case("q2", true, 1)); err != nil {
		t.Fatalf("Append after the refused Delete: %v", err)
	}
	cases := []assay.CaseResult{Case("q1", true, 1), Case("q2", true, 1)}
	Complete(run, cases)
	if err := w.Finish(run); err != nil {
		t.Fatalf("Finish after the refused Delete: %v", err)
	}
	got, err := pruner.Load(ctx, run.RunID)
	if err != nil || got.Status != assay.StatusComplete || len(got.Cases) != 2 {
		t.Fatalf("Load after the refused Delete = %+v, %v; want the complete run with 2 cases", got, err)
	}
	if err := pruner.Delete(ctx, run.RunID); err != nil {
		t.Errorf("Delete of the finished run: %v", err)
	}
}

// testHostileText: NUL bytes and invalid UTF-8 in what a system or a suite
// returns (error class, case id, suite name, target spec) are recorded,
// not refused (PostgreSQL text cannot hold either): the index lists them
// as store.IndexText has them, a filter written as the record has it finds
// the run, and the record and case lines give them back as JSON does.
func testHostileText(t *testing.T, open Opener) {
	ctx := context.Background()
	s := openStore(t, open, t.TempDir())
	suite := "kb\x00-\xff-é"
	suite = strings.NewReplacer(`\x00`, "\x00", `\xff`, "\xff").Replace(suite)
	run := NewRun(suite, t0)
	run.Target.Spec = "command:sh\x00x"
	c := Case("q\x001", false, 0)
	c.Error = &assay.Error{Class: assay.ErrorClass("boom\x00\xfe"), Message: "bad \x00 byte"}
	c.Metrics = map[string]float64{"ndcg@10": 0, "x\x00": 1}
	id := save(t, s, run, c)
	list, err := s.List(ctx, store.Filter{Suite: suite})
	if err != nil || len(list) != 1 || list[0].RunID != id {
		t.Fatalf("List by the suite name = %+v, %v; want run %s", list, err, id)
	}
	if want := store.IndexText(suite); list[0].Suite != want || strings.ContainsRune(want, 0) {
		t.Errorf("listed suite %q; want %q (IndexText)", list[0].Suite, want)
	}
	if want := store.IndexText(run.Target.Spec); list[0].Target != want {
		t.Errorf("listed target %q; want %q", list[0].Target, want)
	}
	got, err := s.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	// The record is JSON: NUL comes back, an invalid byte as U+FFFD.
	if want := strings.ToValidUTF8(suite, "\uFFFD"); got.Suite.Name != want {
		t.Errorf("loaded suite name %q; want %q", got.Suite.Name, want)
	}
	if len(got.Cases) != 1 || got.Cases[0].ID != "q\x001" || got.Cases[0].Error == nil || got.Cases[0].Error.Class != "boom\x00\uFFFD" {
		t.Errorf("loaded cases %+v; want case q\\x001 with error class boom\\x00\\uFFFD", got.Cases)
	}
	var lines []assay.CaseResult
	if err := s.Cases(ctx, id, true, func(r assay.CaseResult) error { lines = append(lines, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || lines[0].Error == nil || lines[0].Error.Message != "bad \x00 byte" {
		t.Errorf("case lines %+v; want the error message with its NUL", lines)
	}
	if pts, err := s.Trend(ctx, suite, "ndcg@10", 0); err != nil || len(pts) != 1 {
		t.Errorf("Trend of the suite = %+v, %v; want one point", pts, err)
	}
}

// testCopyRedoesTruncated: a copy killed half-way leaves in this store a
// run with the source's id but not all of it (incomplete, one case line of
// two). Copying again does not skip it as already there: it is verified,
// deleted and copied again, and then the same as its source; a third copy
// skips everything.
func testCopyRedoesTruncated(t *testing.T, open Opener) {
	ctx := context.Background()
	src, err := store.OpenFiles(filepath.Join(t.TempDir(), "files"), store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	ids := saveRuns(t, src, t0)
	s := openStore(t, open, t.TempDir())

	// What a killed copy of the first run leaves: Begin with its record,
	// one case line, no Finish.
	run, err := src.Load(ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	run.Cases = nil
	w, err := s.Begin(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(Case("q1", true, 1)); err != nil {
		t.Fatal(err)
	}
	if r, ok := w.(store.Releaser); ok {
		r.Release()
	}

	res, err := store.Copy(ctx, s, src)
	if err != nil {
		t.Fatalf("copy over a truncated copy: %v", err)
	}
	if fmt.Sprint(res.Redone) != fmt.Sprint(ids[:1]) || fmt.Sprint(res.Copied) != fmt.Sprint(ids[1:]) || len(res.Skipped) != 0 {
		t.Fatalf("copy = %+v; want %s redone and the others copied", res, ids[0])
	}
	sameRuns(t, s, src, ids)
	res, err = store.Copy(ctx, s, src)
	if err != nil || len(res.Skipped) != len(ids) || len(res.Copied)+len(res.Redone) != 0 {
		t.Errorf("copy again = %+v, %v; want every run skipped", res, err)
	}
}
