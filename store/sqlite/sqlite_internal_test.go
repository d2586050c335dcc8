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
	if n != 3 || name != "0001_runs.sql" {
		t.Errorf("schema_migrations: %d rows, first %q; want 3 (0001_runs.sql, 0002_shards.sql, 0003_labels.sql), 0001_runs.sql", n, name)
	}
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode %q (%v); want wal", mode, err)
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
