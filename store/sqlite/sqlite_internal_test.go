package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/sqlite"
	"github.com/assay-eval/assay/store/storetest"
	_ "modernc.org/sqlite"
)

func TestMigrationsAreRecorded(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for range 2 { // the second Open applies nothing new
		s, err := sqlite.OpenStore(root, store.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	db, err := sql.Open("sqlite", filepath.Join(root, "assay.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	var name, mode string
	if err := db.QueryRow(`SELECT count(*), min(name) FROM schema_migrations`).Scan(&n, &name); err != nil {
		t.Fatal(err)
	}
	if n != 4 || name != "0001_runs.sql" {
		t.Errorf("schema_migrations: %d rows, first %q; want 4 (0001_runs.sql to 0004_case_rows.sql), 0001_runs.sql", n, name)
	}
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode %q (%v); want wal", mode, err)
	}
	var page int
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&page); err != nil || page != 2048 {
		t.Errorf("page_size %d (%v); want 2048 for a new index", page, err)
	}
}

func TestIndexRebuiltFromFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s, err := sqlite.OpenStore(root, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run := storetest.NewRun("kb", time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
	w, err := s.Begin(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	c := storetest.Case("q1", true, 0.75)
	w.Append(c)
	storetest.Complete(run, nil)
	run.Cases = nil
	storetest.Complete(run, append(run.Cases, c))
	if err := w.Finish(run); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, f := range []string{"assay.db", "assay.db-wal", "assay.db-shm"} {
		os.Remove(filepath.Join(root, f))
	}
	// A run directory with a corrupt run.json is skipped, not fatal.
	writeFile(t, filepath.Join(root, "runs", "broken", "run.json"), "{")

	s, err = sqlite.OpenStore(root, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	list, err := s.List(context.Background(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].RunID != run.RunID || list[0].HeadlineValue == nil || *list[0].HeadlineValue != 0.75 {
		t.Fatalf("after deleting the index: %+v; want run %s with ndcg@10 0.75", list, run.RunID)
	}
	if _, err := s.Resolve(context.Background(), "broken"); err == nil {
		t.Error("the broken run resolved by id")
	}
}

func TestReindexReconcilesWithFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s, err := sqlite.OpenStore(root, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	t0 := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	gone := storetest.NewRun("kb", t0)
	if _, err := s.Begin(ctx, gone); err != nil {
		t.Fatal(err)
	}
	// A run whose process died after writing run.json but before the index
	// heard of it: the index says incomplete, the file says complete.
	late := storetest.NewRun("kb", t0.Add(time.Minute))
	w, err := s.Begin(ctx, late)
	if err != nil {
		t.Fatal(err)
	}
	storetest.Complete(late, []assay.CaseResult{storetest.Case("q1", true, 1)})
	b, err := store.EncodeRun(late)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(w.Dir(), "run.json"), string(b))
	s.Close()
	if err := os.RemoveAll(filepath.Join(root, "runs", gone.RunID)); err != nil {
		t.Fatal(err)
	}

	s, err = sqlite.OpenStore(root, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	list, err := s.List(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].RunID != late.RunID || list[0].Status != assay.StatusComplete {
		t.Errorf("after reopening: %+v; want only run %s, complete (the deleted run dropped)", list, late.RunID)
	}
}

func TestOpenOddDirectoryNames(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"with space", "hash#mark", "question?mark", "per%25cent", "colon:x"} {
		root := filepath.Join(t.TempDir(), name, "store")
		s, err := sqlite.OpenStore(root, store.OpenOptions{})
		if err != nil {
			t.Fatalf("Open(%q): %v", root, err)
		}
		s.Close()
		if _, err := os.Stat(filepath.Join(root, "assay.db")); err != nil {
			t.Errorf("Open(%q) did not put assay.db in the store: %v", root, err)
		}
	}
}

func TestCorruptIndexIsRebuilt(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s, err := sqlite.OpenStore(root, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run := storetest.NewRun("kb", time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
	w, err := s.Begin(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	storetest.Complete(run, []assay.CaseResult{storetest.Case("q1", true, 1)})
	if err := w.Finish(run); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, f := range []string{"assay.db-wal", "assay.db-shm"} {
		os.Remove(filepath.Join(root, f))
	}
	writeFile(t, filepath.Join(root, "assay.db"), "this is not a database, but it is long enough to look like a header......................................................")

	s, err = sqlite.OpenStore(root, store.OpenOptions{})
	if err != nil {
		t.Fatalf("Open with a corrupt index: %v", err)
	}
	defer s.Close()
	if len(s.Warnings()) != 1 || !strings.Contains(s.Warnings()[0], "rebuilt from the run files") {
		t.Errorf("warnings %q; want one saying the index was rebuilt", s.Warnings())
	}
	list, err := s.List(context.Background(), store.Filter{})
	if err != nil || len(list) != 1 || list[0].RunID != run.RunID || list[0].Status != assay.StatusComplete {
		t.Errorf("List after rebuild = %+v, %v; want the one complete run", list, err)
	}
	aside, _ := filepath.Glob(filepath.Join(root, "assay.db.corrupt-*"))
	if len(aside) != 1 {
		t.Errorf("corrupt index kept aside as %v; want one file", aside)
	}
}

// TestIndexCutHalfWayIsRedone: the index's case rows are written in
// batches of their own transactions; a Finish whose index writing stops
// after the first batch (its case stream fails on the second pass, as a
// kill would stop it) leaves the run out of every REF, its row
// incomplete, and the next open indexes it again from run.json, whole.
func TestIndexCutHalfWayIsRedone(t *testing.T) {
	root := t.TempDir()
	s, err := sqlite.OpenStore(root, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const n = 12000 // three batches of the index's
	cases := make([]assay.CaseResult, n)
	for i := range cases {
		cases[i] = storetest.Case(fmt.Sprintf("q%05d", i), i%4 != 0, 0.5)
		cases[i].Observation = nil
	}
	run := storetest.NewRun("kb", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	w, err := s.Begin(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	storetest.Complete(run, cases)
	pass := 0
	run.Cases = nil
	run.CaseStream = func(yield func(assay.CaseResult) error) error {
		pass++
		for i, c := range cases {
			if pass == 2 && i == 6000 {
				return errors.New("killed")
			}
			if err := yield(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := w.Finish(run); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("Finish with the index cut: %v; want its error", err)
	}
	if _, err := s.Resolve(ctx, "latest"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("latest with the index cut half-way: %v; want no run (it is not complete in the index)", err)
	}
	count := func() (int, error) {
		db, err := sql.Open("sqlite", filepath.Join(root, "assay.db"))
		if err != nil {
			return 0, err
		}
		defer db.Close()
		var rows int
		err = db.QueryRow(`SELECT count(*) FROM case_results WHERE run_id = ?`, run.RunID).Scan(&rows)
		return rows, err
	}
	if rows, err := count(); err != nil || rows != 5000 {
		t.Errorf("case rows after the cut: %d, %v; want the first batch, 5000", rows, err)
	}
	s.Close()

	s, err = sqlite.OpenStore(root, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if id, err := s.Resolve(ctx, "latest"); err != nil || id != run.RunID {
		t.Errorf("latest after reopening = %q, %v; want the run, indexed again", id, err)
	}
	if rows, err := count(); err != nil || rows != n {
		t.Errorf("case rows after reopening: %d, %v; want %d", rows, err, n)
	}
}

// TestIndexTakesTheAppendedCases: a run that carries its writer's encoded
// cases (the harness's streamed run) is indexed from the cases as they
// were appended: a full batch is in the index while the run goes (its row
// incomplete), and Finish writes the rest without reading a case back
// (the run's case stream fails the test when it is read).
func TestIndexTakesTheAppendedCases(t *testing.T) {
	root := t.TempDir()
	s, err := sqlite.OpenStore(root, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const n = 5300 // a batch of the index's, and then some
	cases := make([]assay.CaseResult, n)
	for i := range cases {
		cases[i] = storetest.Case(fmt.Sprintf("q%05d", i), i%4 != 0, 0.5)
	}
	run := storetest.NewRun("kb", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	w, err := s.Begin(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(root, "assay.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := func() (rows int, status string) {
		t.Helper()
		if err := db.QueryRow(`SELECT count(*) FROM case_results WHERE run_id = ?`, run.RunID).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow(`SELECT status FROM runs WHERE run_id = ?`, run.RunID).Scan(&status); err != nil {
			t.Fatal(err)
		}
		return rows, status
	}
	for i, c := range cases {
		if err := w.Append(c); err != nil {
			t.Fatal(err)
		}
		if i == 5000 {
			if rows, status := count(); rows != 5000 || status != "incomplete" {
				t.Errorf("while the run goes: %d case rows, status %s; want the first batch, 5000, incomplete", rows, status)
			}
		}
	}
	storetest.Complete(run, cases)
	run.Cases = nil
	run.CaseStream = func(func(assay.CaseResult) error) error {
		t.Error("Finish read the cases back")
		return errors.New("read back")
	}
	run.CaseDocuments = w.(store.CaseDocumenter).CaseDocuments()
	if err := w.Finish(run); err != nil {
		t.Fatal(err)
	}
	if rows, status := count(); rows != n || status != "complete" {
		t.Errorf("after Finish: %d case rows, status %s; want %d, complete", rows, status, n)
	}
	hist, err := s.CaseHistory(ctx, "kb", "q00005", 0)
	if err != nil || len(hist) != 1 || hist[0].Pass == nil || !*hist[0].Pass || hist[0].Metrics["ndcg@10"] != 0.5 {
		t.Errorf("history of q00005 = %+v, %v; want one passing row with ndcg@10 0.5", hist, err)
	}
}

// TestCaseRowsMigrated: an index written before the case rows were keyed
// by run_key (schema version 3) keeps its rows through migration 0004:
// case_results reads the same, CaseHistory finds them, and a run written
// after it gets the next key.
func TestCaseRowsMigrated(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(root, "assay.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"0001_runs.sql", "0002_shards.sql", "0003_labels.sql"} {
		body, err := os.ReadFile(filepath.Join("migrations", name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(string(body)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO schema_migrations VALUES (?, ?, '2026-12-01T00:00:00Z')`, i+1, name); err != nil {
			t.Fatal(err)
		}
	}
	// An old run whose files are gone would be dropped by Reindex: the
	// run is given a directory.
	run := storetest.NewRun("kb", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	run.RunID = store.NewRunID()
	storetest.Complete(run, []assay.CaseResult{storetest.Case("q1", true, 0.5), storetest.Case("q2", false, 0.25)})
	b, err := store.EncodeRun(run)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "runs", run.RunID, "run.json"), string(b))
	if _, err := db.Exec(`INSERT INTO runs (run_id, status, suite_name, started_at, dir) VALUES (?, 'complete', 'kb', '2026-12-01T00:00:00.000000000Z', ?)`,
		run.RunID, "runs/"+run.RunID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO case_results (run_id, case_id, trial, pass, latency_ms, metrics) VALUES (?, 'q1', 0, 1, 3.5, '{"ndcg@10":0.5}'), (?, 'q2', 0, 0, 4, '{}')`,
		run.RunID, run.RunID); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err := sqlite.OpenStore(root, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var page int
	if err := s2db(t, root).QueryRow(`PRAGMA page_size`).Scan(&page); err != nil || page != 4096 {
		t.Errorf("page_size of the index made before %d (%v); want 4096, as it was made", page, err)
	}
	if applied, v := s.Migrations(); v != 4 || len(applied) != 1 || applied[0] != "0004_case_rows.sql" {
		t.Errorf("migrations applied %v, version %d; want 0004_case_rows.sql, 4", applied, v)
	}
	hist, err := s.CaseHistory(context.Background(), "kb", "q1", 0)
	if err != nil || len(hist) != 1 || hist[0].RunID != run.RunID || hist[0].Metrics["ndcg@10"] != 0.5 || *hist[0].LatencyMs != 3.5 {
		t.Errorf("history of q1 after the migration = %+v, %v; want the old row", hist, err)
	}
	later := storetest.NewRun("kb", time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC))
	if got := save(t, s, later, storetest.Case("q1", false, 0.1)); got != later.RunID {
		t.Fatal(got)
	}
	db, err = sql.Open("sqlite", filepath.Join(root, "assay.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM case_results WHERE case_id = 'q1'`).Scan(&n); err != nil || n != 2 {
		t.Errorf("case_results rows of q1: %d, %v; want 2 (the old run's and the new one's)", n, err)
	}
	var keys string
	if err := db.QueryRow(`SELECT group_concat(run_key, ',') FROM (SELECT run_key FROM runs ORDER BY started_at)`).Scan(&keys); err != nil || keys != "1,2" {
		t.Errorf("run keys %q, %v; want 1,2", keys, err)
	}
}

func save(t *testing.T, s store.Store, run *assay.Run, cases ...assay.CaseResult) string {
	t.Helper()
	w, err := s.Begin(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if err := w.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	storetest.Complete(run, cases)
	if err := w.Finish(run); err != nil {
		t.Fatal(err)
	}
	return run.RunID
}

// s2db opens the index of the store at root beside the store's own
// connection; the test closes it.
func s2db(t *testing.T, root string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(root, "assay.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
