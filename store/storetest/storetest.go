// Package storetest is the conformance suite every store.Store passes.
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t testing.TB, root string) store.Store {
//			s, err := store.OpenSQLite(root, store.OpenOptions{})
//			if err != nil {
//				t.Fatal(err)
//			}
//			return s
//		})
//	}
//
// open is called with a fresh directory per subtest, and again with the
// same directory when a subtest needs a second handle on one store (as a
// second process would have).
package storetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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
		{"resolve_id_prefix_and_path", testResolveID},
		{"unfinished_run_keeps_appended_cases", testUnfinished},
		{"concurrent_writers_lose_nothing", testConcurrent},
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
	w, err := s.Begin(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	if !uuidV7.MatchString(run.RunID) {
		t.Errorf("run id %q is not a lowercase UUIDv7", run.RunID)
	}
	got, err := store.LoadRun(w.Dir())
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
	run := NewRun("kb", t0)
	id := save(t, s, run, Case("q1", true, 1), Case("q2", false, 0.5), Case("q3", true, 0))
	path, err := s.Resolve(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.LoadRun(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != assay.StatusComplete || len(got.Cases) != 3 {
		t.Fatalf("run.json: status %q with %d cases; want complete with 3", got.Status, len(got.Cases))
	}
	for _, c := range got.Cases {
		if c.Observation != nil {
			t.Errorf("run.json case %s embeds its observation; it belongs in cases.jsonl", c.ID)
		}
	}
	if !got.StartedAt.Equal(t0) || got.FinishedAt.IsZero() {
		t.Errorf("times: started %v finished %v", got.StartedAt, got.FinishedAt)
	}
	var n int
	err = store.ReadCases(filepath.Dir(path), func(r assay.CaseResult) error {
		n++
		if r.Observation == nil || r.Observation.Answer != "answer to "+r.ID {
			return fmt.Errorf("cases.jsonl line for %s lacks its observation", r.ID)
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Fatalf("cases.jsonl: %d lines, err %v; want 3", n, err)
	}
	list, err := s.List(context.Background(), store.Filter{})
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
	if e.Suite != "kb" || e.Path != path {
		t.Errorf("entry suite %q path %q; want kb %q", e.Suite, e.Path, path)
	}
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
	if got := mustResolve(t, s, "latest"); !strings.Contains(got, plain) {
		t.Errorf("latest = %s; want the newest run that is no shard, %s", got, plain)
	}
	if list, err := s.List(context.Background(), store.Filter{NoShards: true}); err != nil || len(list) != 1 || list[0].RunID != plain {
		t.Errorf("List NoShards = %v, %v; want run %s alone", list, err, plain)
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
	path, err := s.Resolve(ctx, "latest")
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.LoadRun(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.RunID != done {
		t.Errorf("latest = %s; want the complete run %s, not the newer incomplete one", got.RunID, done)
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
		path, err := s.Resolve(ctx, ref)
		if err != nil {
			t.Errorf("%s: %v", ref, err)
			continue
		}
		if got := filepath.Base(filepath.Dir(path)); got != want {
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
		for _, ref := range []string{id, short[id], filepath.Join(filepath.Dir(mustResolve(t, s, id)))} {
			path, err := s.Resolve(ctx, ref)
			if err != nil {
				t.Errorf("Resolve(%q): %v", ref, err)
				continue
			}
			if got := filepath.Base(filepath.Dir(path)); got != id {
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

func mustResolve(t testing.TB, s store.Store, ref string) string {
	t.Helper()
	p, err := s.Resolve(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	return p
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
	got, err := store.LoadRun(w.Dir())
	if err != nil {
		t.Fatal(err)
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

func testConcurrent(t *testing.T, open Opener) {
	root := t.TempDir()
	const writers, runs = 2, 15
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
				var cases []assay.CaseResult
				for k := range 5 {
					c := Case(fmt.Sprintf("q%d", k), (j+k)%2 == 0, 0.5)
					cases = append(cases, c)
					if err := w.Append(c); err != nil {
						errs <- err
						return
					}
				}
				Complete(run, cases)
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
	list, err := stores[0].List(context.Background(), store.Filter{Status: assay.StatusComplete})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != writers*runs {
		t.Errorf("listed %d complete runs; want %d", len(list), writers*runs)
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
// returns the bytes of its run.json.
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
	b, err := os.ReadFile(filepath.Join(w.Dir(), store.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.List(context.Background(), store.Filter{})
	if err != nil || len(list) != 1 || list[0].Cases != len(cases) || list[0].Status != assay.StatusComplete {
		t.Fatalf("List = %+v, %v; want one complete run of %d cases", list, err, len(cases))
	}
	return b
}

// testFinishStream: Finish given a run whose cases come from CaseStream
// (Cases nil) writes the same run.json, byte for byte, as given the cases.
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
// its error, and run.json is the one Begin wrote (incomplete, cases
// recoverable from cases.jsonl), with no temporary file left beside it.
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
			got, err := store.LoadRun(filepath.Join(w.Dir(), store.RunFile))
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != assay.StatusIncomplete || len(got.Cases) != len(cases) {
				t.Errorf("run.json after a failed Finish: status %q with %d cases; want incomplete with %d (from cases.jsonl)",
					got.Status, len(got.Cases), len(cases))
			}
			ents, err := os.ReadDir(w.Dir())
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ents {
				if e.Name() != store.RunFile && e.Name() != store.CasesFile && e.Name() != store.CasesGzFile {
					t.Errorf("%s left in the run directory", e.Name())
				}
			}
		})
	}
}
