package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/storetest"
)

// saveRun stores one complete run of suite started at t (incomplete when
// done is false) and returns its id.
func saveRun(t *testing.T, st store.Store, suite string, started time.Time, done bool, shard *assay.Shard) string {
	t.Helper()
	run := storetest.NewRun(suite, started)
	run.Shard = shard
	w, err := st.Begin(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	if !done {
		return run.RunID
	}
	c := storetest.Case("q1", true, 0.5)
	if err := w.Append(c); err != nil {
		t.Fatal(err)
	}
	storetest.Complete(run, []assay.CaseResult{c})
	if err := w.Finish(run); err != nil {
		t.Fatal(err)
	}
	return run.RunID
}

func ids(entries []store.Entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.RunID)
	}
	return out
}

// --older-than deletes the runs started before now - D, never the latest
// complete run of a suite; with --keep too, a run goes only when neither
// keeps it; a dry run deletes nothing.
func TestPruneOlderThan(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	ctx := context.Background()
	t0 := time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	a1 := saveRun(t, st, "kb", t0, true, nil)
	a2 := saveRun(t, st, "kb", t0.Add(day), true, nil)
	a3 := saveRun(t, st, "kb", t0.Add(2*day), true, nil)                                          // latest complete of kb
	a4 := saveRun(t, st, "kb", t0.Add(3*day), false, nil)                                         // incomplete, newer
	s1 := saveRun(t, st, "kb", t0.Add(4*day), true, &assay.Shard{Index: 0, Count: 2, Group: "g"}) // a shard is never "latest"
	b1 := saveRun(t, st, "other", t0, true, nil)                                                  // latest complete of other
	now := t0.Add(10 * day)

	dry, err := cli.Prune(ctx, st, cli.PrunePlan{OlderThan: 7 * day, Now: now, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids(dry.Deleted), " "); got != a2+" "+a1 {
		t.Errorf("dry run would delete %s; want %s %s", got, a2, a1)
	}
	var protected []string
	for _, p := range dry.Protected {
		protected = append(protected, p.Entry.RunID+": "+p.Reason)
	}
	if want := a3 + ": the latest complete run of suite kb\n" + b1 + ": the latest complete run of suite other"; strings.Join(protected, "\n") != want {
		t.Errorf("protected:\n%s\nwant:\n%s", strings.Join(protected, "\n"), want)
	}
	if list, _ := st.List(ctx, store.Filter{}); len(list) != 6 {
		t.Fatalf("a dry run deleted runs: %d left of 6", len(list))
	}

	res, err := cli.Prune(ctx, st, cli.PrunePlan{OlderThan: 7 * day, Keep: 3, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	// Kept by --keep 3: s1, a4, a3 (and b1); older than 7 days: a1, a2, a3, b1.
	// a3 and b1 are their suite's latest complete runs.
	if got := strings.Join(ids(res.Deleted), " "); got != a2+" "+a1 {
		t.Errorf("deleted %s; want %s %s", got, a2, a1)
	}
	if len(res.Protected) != 0 {
		t.Errorf("protected %+v; want none (--keep 3 keeps the latest runs)", res.Protected)
	}
	left, err := st.List(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(ids(left), " "), strings.Join([]string{s1, a4, a3, b1}, " "); got != want {
		t.Errorf("left %s; want %s", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs", a1)); !os.IsNotExist(err) {
		t.Errorf("run %s's files are still there: %v", a1, err)
	}
}

// A run that a floors file's log names stays, whatever its age.
func TestPruneKeepsRunsAFloorsFileNames(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	ctx := context.Background()
	t0 := time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC)
	old := saveRun(t, st, "kb", t0, true, nil)
	mid := saveRun(t, st, "kb", t0.Add(time.Hour), true, nil)
	saveRun(t, st, "kb", t0.Add(2*time.Hour), true, nil)
	floors := filepath.Join(dir, "floors.json")
	body := `{"schema": "assay.floors/v1", "floors": {"pass_rate": 0.5},
	 "log": [{"date": "2026-10-01T08:00:00Z", "run_id": "` + old + `", "metric": "pass_rate", "old": null, "new": 0.5, "comment": ""}]}`
	if err := os.WriteFile(floors, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := cli.Prune(ctx, st, cli.PrunePlan{Keep: 1, Floors: []string{floors}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids(res.Deleted), " "); got != mid {
		t.Errorf("deleted %s; want %s alone", got, mid)
	}
	if len(res.Protected) != 1 || res.Protected[0].Entry.RunID != old || !strings.Contains(res.Protected[0].Reason, "named by "+floors) {
		t.Errorf("protected %+v; want %s, named by the floors file", res.Protected, old)
	}
}

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "2w": 14 * 24 * time.Hour, "36h": 36 * time.Hour, "90m": 90 * time.Minute} {
		if got, err := cli.ParseAge(in); err != nil || got != want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0d", "-1d", "d", "3x", "-5h", "1.5d"} {
		if _, err := cli.ParseAge(bad); err == nil {
			t.Errorf("ParseAge(%q) accepted it", bad)
		}
	}
}
