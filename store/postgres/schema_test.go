package postgres_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/postgres"
	"github.com/assay-eval/assay/store/postgres/pgtest"
	"github.com/assay-eval/assay/store/storetest"
)

func openErr(u string, o store.OpenOptions) error {
	s, err := postgres.OpenStore(context.Background(), u, o)
	if err == nil {
		s.Close()
	}
	return err
}

// TestOpenWithoutTablesSaysMigrate: opening a store whose schema has no
// tables creates none; it says to run `assay store migrate`.
func TestOpenWithoutTablesSaysMigrate(t *testing.T) {
	u := pgtest.EmptyURL(t)
	err := openErr(u, store.OpenOptions{})
	if !errors.Is(err, store.ErrSchema) || !strings.Contains(err.Error(), "assay store migrate --store URL") {
		t.Fatalf("open of an empty schema: %v; want ErrSchema naming assay store migrate", err)
	}
	if err := pgtest.Exec(u, `SELECT 1 FROM schema_migrations`); err == nil {
		t.Errorf("opening (without Migrate) created schema_migrations")
	}
}

// TestOlderSchemaSaysMigrate: a schema behind this assay is not changed by
// opening it; the error says which version it is and what to run.
func TestOlderSchemaSaysMigrate(t *testing.T) {
	u := pgtest.URL(t)
	downgrade(t, u)
	err := openErr(u, store.OpenOptions{})
	if !errors.Is(err, store.ErrSchema) || !strings.Contains(err.Error(), "this assay needs version") || !strings.Contains(err.Error(), "assay store migrate") {
		t.Fatalf("open of an older schema: %v; want ErrSchema saying to migrate", err)
	}
}

// TestNewerSchemaRefused: a schema newer than this assay knows (a newer
// release migrated it) is refused by every open, Migrate included, and
// nothing is written to it.
func TestNewerSchemaRefused(t *testing.T) {
	u := pgtest.URL(t)
	if err := pgtest.Exec(u, `INSERT INTO schema_migrations (version, name) VALUES (99, '0099_future.sql')`); err != nil {
		t.Fatal(err)
	}
	for _, o := range []store.OpenOptions{{}, {ForReading: true}, {Migrate: true}} {
		err := openErr(u, o)
		if !errors.Is(err, store.ErrSchema) || !strings.Contains(err.Error(), "version 99, newer than this assay") {
			t.Errorf("open %+v of a version-99 schema: %v; want it refused as newer", o, err)
		}
	}
	if err := pgtest.Exec(u, `DO $$ BEGIN IF (SELECT count(*) FROM runs) > 0 THEN RAISE 'written'; END IF; END $$`); err != nil {
		t.Errorf("the newer schema was written to: %v", err)
	}
}

// TestLeastPrivilegeRoles: a role with SELECT only reads every run (List,
// Load, Cases, Trend) and cannot record one; a writer with SELECT, INSERT,
// UPDATE (and DELETE on runs) and no right to create anything records runs
// and prunes them; neither changes the schema; the role that owns the
// schema migrates an older one up.
func TestLeastPrivilegeRoles(t *testing.T) {
	base := pgtest.BaseURL(t)
	ownerURL, drop, err := pgtest.NewOwner(base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { drop() })
	ctx := context.Background()
	owner, err := postgres.OpenStore(ctx, ownerURL, store.OpenOptions{Migrate: true})
	if err != nil {
		t.Fatalf("store migrate as the owner: %v", err)
	}
	owner.Close()

	// The owner's schema as the superuser: an administrator's.
	adminURL := strings.Replace(ownerURL, userOf(t, ownerURL)+"@", userOf(t, base)+"@", 1)
	writerURL, dropW, err := pgtest.NewRole(base, ownerURL, pgtest.Writer)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dropW() })
	readerURL, dropR, err := pgtest.NewRole(base, ownerURL, pgtest.Reader)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dropR() })

	writer := openTest(t, writerURL)
	var ids []string
	for i := range 3 {
		run := storetest.NewRun("kb", storetestT0.Add(time1(i)))
		w, err := writer.Begin(ctx, run)
		if err != nil {
			t.Fatalf("writer Begin: %v", err)
		}
		cases := []assay.CaseResult{storetest.Case("q1", true, 1), storetest.Case("q2", false, 0)}
		for _, c := range cases {
			if err := w.Append(c); err != nil {
				t.Fatalf("writer Append: %v", err)
			}
		}
		storetest.Complete(run, cases)
		if err := w.Finish(run); err != nil {
			t.Fatalf("writer Finish: %v", err)
		}
		ids = append(ids, run.RunID)
	}
	if err := writer.Delete(ctx, ids[0]); err != nil {
		t.Errorf("writer Delete (prune): %v", err)
	}
	if _, err := writer.Migrate(ctx); err == nil {
		t.Errorf("the writer could migrate: it has rights it should not need")
	}

	reader := openTest(t, readerURL)
	list, err := reader.List(ctx, store.Filter{})
	if err != nil || len(list) != 2 {
		t.Fatalf("reader List = %d runs, %v; want 2", len(list), err)
	}
	run, err := reader.Load(ctx, "latest")
	if err != nil || len(run.Cases) != 2 {
		t.Fatalf("reader Load latest: %v", err)
	}
	n := 0
	if err := reader.Cases(ctx, ids[2], true, func(assay.CaseResult) error { n++; return nil }); err != nil || n != 2 {
		t.Errorf("reader Cases = %d, %v; want 2", n, err)
	}
	if pts, err := reader.Trend(ctx, "kb", "ndcg@10", 0); err != nil || len(pts) != 2 {
		t.Errorf("reader Trend = %v, %v; want 2 points", pts, err)
	}
	if _, err := reader.Begin(ctx, storetest.NewRun("kb", storetestT0)); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("reader Begin: %v; want permission denied", err)
	}

	// An older schema: reader and writer are told to migrate; the owner
	// does, and they work again.
	downgrade(t, adminURL)
	for _, u := range []string{readerURL, writerURL} {
		if err := openErr(u, store.OpenOptions{}); !errors.Is(err, store.ErrSchema) {
			t.Errorf("open of an older schema: %v; want ErrSchema", err)
		}
	}
	owner, err = postgres.OpenStore(ctx, ownerURL, store.OpenOptions{Migrate: true})
	if err != nil {
		t.Fatalf("store migrate as the owner of an older schema: %v", err)
	}
	if applied, v := owner.Migrations(); len(applied) != 1 || v != postgres.SchemaVersion {
		t.Errorf("owner migrate applied %v (version %d); want one migration, version %d", applied, v, postgres.SchemaVersion)
	}
	owner.Close()
	for _, u := range []string{readerURL, writerURL} {
		if err := openErr(u, store.OpenOptions{}); err != nil {
			t.Errorf("open after the owner's migrate: %v", err)
		}
	}
}

// downgrade undoes the newest migration (0004_labels.sql) of the schema
// of u, as an older assay left it.
func downgrade(t *testing.T, u string) {
	t.Helper()
	for _, q := range []string{
		`ALTER TABLE runs DROP COLUMN labels`,
		`DELETE FROM schema_migrations WHERE version = 4`,
	} {
		if err := pgtest.Exec(u, q); err != nil {
			t.Fatal(err)
		}
	}
}

var storetestT0 = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)

func time1(i int) time.Duration { return time.Duration(i) * time.Minute }

func userOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		t.Fatalf("no user in %q", raw)
	}
	return u.User.String()
}
