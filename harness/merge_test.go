package harness_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/internal/shareddata"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/postgres/pgtest"
)

// shardSuite writes a suite of n cases in two languages, each judged and
// with an expectation, and returns its path.
func shardSuite(t testing.TB, n int, gates ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("assay: 1\nname: shards\nmetrics: [ndcg@10, recall@5, mrr]\n")
	if len(gates) > 0 {
		b.WriteString("gates:\n")
		for _, g := range gates {
			fmt.Fprintf(&b, "  - %q\n", g)
		}
	}
	b.WriteString("cases:\n")
	for i := range n {
		lang := []string{"en", "de", "fr"}[i%3]
		fmt.Fprintf(&b, "  - id: q%04d\n    query: question %d\n    tags: {lang: %s}\n", i, i, lang)
		fmt.Fprintf(&b, "    judgments: {d%d: 2, d%d: 1, d%d: 1}\n", i%17, (i+5)%17, (i+9)%17)
		fmt.Fprintf(&b, "    expect: {answer_includes: [yes]}\n")
	}
	path := filepath.Join(t.TempDir(), "suite.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// hashed returns a number in [0, 1) from s, so that the target's answers
// depend on the case and trial only, never on which process runs them.
func hashed(s string) float64 {
	sum := sha256.Sum256([]byte(s))
	return float64(uint32(sum[0])<<16|uint32(sum[1])<<8|uint32(sum[2])) / (1 << 24)
}

// shardTarget answers every case the same way wherever it runs: rankings,
// answers and latencies (with many decimals, so that a sum taken in
// another order differs) are functions of the case id and trial; one case
// in 13 errors.
var shardTarget = assay.TargetFunc(func(ctx context.Context, c assay.Case) (assay.Observation, error) {
	key := fmt.Sprintf("%s/%d", c.ID, 0)
	if hashed(key+"err") < 1.0/13 {
		return assay.Observation{}, fmt.Errorf("transport: connection refused")
	}
	lat := 1 + 97*hashed(key+"lat")
	var hits []assay.Hit
	for j := range 10 {
		hits = append(hits, assay.Hit{ID: fmt.Sprintf("d%d", int(hashed(fmt.Sprintf("%s/%d", key, j))*17)), Score: float64(10 - j)})
	}
	answer := "no"
	if hashed(key+"ans") < 0.7 {
		answer = "yes"
	}
	spans := []assay.Span{{Name: "retrieve", StartMs: 0, EndMs: lat / 3}, {Name: "answer", StartMs: lat / 3, EndMs: lat}}
	return assay.Observation{Case: c.ID, Retrieved: hits, Answer: answer, LatencyMs: &lat, Spans: spans}, nil
})

// runParts is what an unsharded run and the merge of its shards must agree
// on, as JSON.
func runParts(t testing.TB, run *assay.Run) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, v := range map[string]any{"summary": run.Summary, "segments": run.Segments, "gates": run.Gates, "trials": run.Trials, "status": run.Status} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = string(b)
	}
	var cases []string
	err := run.EachCase(func(c assay.CaseResult) error {
		b, err := json.Marshal(c.Document())
		cases = append(cases, string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	out["cases"] = strings.Join(cases, "\n")
	return out
}

func runShards(t testing.TB, suitePath, storeDir, group string, n, trials int) []*assay.Run {
	t.Helper()
	var runs []*assay.Run
	for i := range n {
		res, err := harness.Run(context.Background(), plan(harness.Plan{SuitePath: suitePath, System: shardTarget, Trials: trials, Concurrency: 3,
			StoreDir: storeDir, Shard: fmt.Sprintf("%d/%d", i, n), Group: group}))
		if err != nil {
			t.Fatalf("shard %d/%d: %v", i, n, err)
		}
		runs = append(runs, res.Runs[0])
		res.Close()
	}
	return runs
}

// The acceptance test of sharding: a suite run as 3 shards and merged
// gives the summary, metrics, segments, latency percentiles, trial
// statistics, gate results and cases (in order) of the same suite run
// unsharded on the same observations. The shards go to the file store,
// and to Postgres too when ASSAY_TEST_POSTGRES names one.
func TestMergeOfShardsEqualsUnshardedRun(t *testing.T) {
	suitePath := shardSuite(t, 120, "pass_rate >= 0.5", "p95_latency_ms <= 90", "[lang=de] ndcg@10 >= 0.1", "recall@5 >= 0.99")
	for _, trials := range []int{1, 2} {
		t.Run(fmt.Sprintf("trials_%d", trials), func(t *testing.T) {
			whole, err := harness.Run(context.Background(), plan(harness.Plan{SuitePath: suitePath, System: shardTarget, Trials: trials, Concurrency: 4, StoreDir: t.TempDir()}))
			if harness.KindOf(err) != harness.GateFailed { // recall@5 >= 0.99 fails
				t.Fatalf("unsharded run: %v; want the recall gate to fail", err)
			}
			defer whole.Close()
			want := runParts(t, whole.Runs[0])
			for _, st := range testStores(t) {
				t.Run(st.name, func(t *testing.T) {
					shards := runShards(t, suitePath, st.dir, "nightly-1", 3, trials)
					total := 0
					for _, s := range shards {
						total += s.Summary.Cases
						if s.Shard == nil || len(s.Gates) != 0 || len(s.Shard.Gates) != 4 {
							t.Fatalf("shard run: shard %+v, gates %v; want a shard with 4 gates recorded and none checked", s.Shard, s.Gates)
						}
					}
					if total != whole.Runs[0].Summary.Cases {
						t.Fatalf("the shards ran %d cases, the whole suite %d", total, whole.Runs[0].Summary.Cases)
					}
					res, err := harness.Merge(context.Background(), harness.MergePlan{Refs: []string{"nightly-1"}, Store: openStore(t, st.dir)})
					if harness.KindOf(err) != harness.GateFailed {
						t.Fatalf("merge: %v; want the recall gate to fail as it did unsharded", err)
					}
					defer res.Close()
					got := runParts(t, res.Runs[0])
					for _, part := range []string{"status", "summary", "segments", "gates", "trials", "cases"} {
						if got[part] != want[part] {
							t.Errorf("merged %s differs from the unsharded run's:\nmerged:    %.600s\nunsharded: %.600s", part, got[part], want[part])
						}
					}
					// The merged run is stored and reads back the same.
					back, _, err := harness.LoadRef(context.Background(), openStore(t, st.dir), res.Runs[0].RunID)
					if err != nil {
						t.Fatal(err)
					}
					if b := runParts(t, back); b["summary"] != want["summary"] || b["cases"] != want["cases"] {
						t.Errorf("the stored merged run differs from the unsharded run")
					}
				})
			}
		})
	}
}

type testStore struct{ name, dir string }

// testStores are the stores the acceptance test writes shards to: a file
// store, and a schema of its own in the Postgres database of
// ASSAY_TEST_POSTGRES (pgtest: skipped without it, failing under CI).
func testStores(t *testing.T) []testStore {
	stores := []testStore{{"files", t.TempDir()}}
	if os.Getenv(pgtest.EnvVar) != "" || shareddata.Required() {
		stores = append(stores, testStore{"postgres", pgtest.URL(t)})
	}
	return stores
}

func openStore(t testing.TB, dir string) store.Store {
	t.Helper()
	st, err := store.Open(dir, store.OpenOptions{Backends: backends})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// A shard that never ran makes the merged run incomplete, stored so, and
// the error names the missing shard.
func TestMergeWithAMissingShardIsIncomplete(t *testing.T) {
	suitePath := shardSuite(t, 30)
	dir := t.TempDir()
	for _, i := range []int{0, 2} {
		res, err := harness.Run(context.Background(), plan(harness.Plan{SuitePath: suitePath, System: shardTarget, StoreDir: dir, Shard: fmt.Sprintf("%d/3", i), Group: "g"}))
		if err != nil {
			t.Fatal(err)
		}
		res.Close()
	}
	res, err := harness.Merge(context.Background(), harness.MergePlan{Refs: []string{"g"}, Store: openStore(t, dir)})
	if harness.KindOf(err) != harness.Incomplete || !strings.Contains(err.Error(), "shard 1/3 is missing") {
		t.Fatalf("merge: %v; want an incomplete run naming shard 1/3", err)
	}
	defer res.Close()
	run := res.Runs[0]
	if run.Status != assay.StatusIncomplete || run.Merged.Runs[1] != "" || run.Merged.Runs[0] == "" {
		t.Errorf("merged run: status %s, merged %+v; want incomplete with no run for shard 1", run.Status, run.Merged)
	}
	if _, _, err := harness.LoadRef(context.Background(), openStore(t, dir), "latest"); err == nil {
		t.Errorf("latest named a run: the incomplete merge must never be a baseline")
	}
}

// Shards of two suites, or run with other options, are not one run.
func TestMergeRefusesShardsOfAnotherSuiteOrOptions(t *testing.T) {
	a, b := shardSuite(t, 20), shardSuite(t, 21)
	for _, tc := range []struct {
		name  string
		other harness.Plan
		want  string
	}{
		{"suite", harness.Plan{SuitePath: b}, "shards differ in their suite fingerprint"},
		{"options", harness.Plan{SuitePath: a, K: 3}, "shards differ in their options"},
		{"count", harness.Plan{SuitePath: a, Shard: "1/3"}, "group g holds shards of 3 and of 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			first := plan(harness.Plan{SuitePath: a, System: shardTarget, StoreDir: dir, Shard: "0/2", Group: "g"})
			other := plan(tc.other)
			other.System, other.StoreDir, other.Group = shardTarget, dir, "g"
			if other.Shard == "" {
				other.Shard = "1/2"
			}
			for _, p := range []harness.Plan{first, other} {
				res, err := harness.Run(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				res.Close()
			}
			res, err := harness.Merge(context.Background(), harness.MergePlan{Refs: []string{"g"}, Store: openStore(t, dir)})
			if err == nil {
				res.Close()
			}
			if harness.KindOf(err) != harness.Usage || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("merge: %v; want a usage error %q", err, tc.want)
			}
		})
	}
}

// A slice run twice (a CI job re-run) is merged from its newest complete run.
func TestMergeTakesTheNewestCompleteRunOfASlice(t *testing.T) {
	suitePath := shardSuite(t, 20)
	dir := t.TempDir()
	first := runShards(t, suitePath, dir, "g", 2, 1)
	res2, err := harness.Run(context.Background(), plan(harness.Plan{SuitePath: suitePath, System: shardTarget, StoreDir: dir, Shard: "1/2", Group: "g"}))
	if err != nil {
		t.Fatal(err)
	}
	rerun := res2.Runs[0].RunID
	res2.Close()
	m, err := harness.Merge(context.Background(), harness.MergePlan{Refs: []string{"g"}, Store: openStore(t, dir)})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if got := m.Runs[0].Merged.Runs; got[0] != first[0].RunID || got[1] != rerun {
		t.Errorf("merged runs %v; want shard 0's only run and shard 1's newer run %s", got, rerun)
	}
}

// merge RUN... takes the shard runs themselves; a run that is no shard is
// refused, and so are two runs of one slice.
func TestMergeRuns(t *testing.T) {
	suitePath := shardSuite(t, 20)
	dir := t.TempDir()
	shards := runShards(t, suitePath, dir, "", 2, 1)
	res, err := harness.Merge(context.Background(), harness.MergePlan{Refs: []string{shards[1].RunID, shards[0].RunID}, Store: openStore(t, dir)})
	if err != nil {
		t.Fatal(err)
	}
	if g := res.Runs[0].Merged.Group; !strings.HasPrefix(g, "s") || g != shards[0].Shard.Group {
		t.Errorf("merged group %q; want the default group %q", g, shards[0].Shard.Group)
	}
	res.Close()
	_, err = harness.Merge(context.Background(), harness.MergePlan{Refs: []string{shards[0].RunID, shards[0].RunID}, Store: openStore(t, dir)})
	if harness.KindOf(err) != harness.Usage || !strings.Contains(err.Error(), "are both shard 0/2") {
		t.Errorf("merge of one shard twice: %v", err)
	}
	whole, err := harness.Run(context.Background(), plan(harness.Plan{SuitePath: suitePath, System: shardTarget, StoreDir: dir}))
	if err != nil {
		t.Fatal(err)
	}
	whole.Close()
	_, err = harness.Merge(context.Background(), harness.MergePlan{Refs: []string{shards[0].RunID, whole.Runs[0].RunID}, Store: openStore(t, dir)})
	if harness.KindOf(err) != harness.Usage || !strings.Contains(err.Error(), "is not a shard run") {
		t.Errorf("merge with a run that is no shard: %v", err)
	}
}
