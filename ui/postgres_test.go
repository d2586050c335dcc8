package ui

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/assay-eval/assay/store/postgres"

	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/postgres/pgtest"
)

// pgCopy is the fixture's runs copied into a Postgres store of the test's
// own (store.Copy), and the store's URL.
func pgCopy(t *testing.T) (*fixture, store.Store, string) {
	t.Helper()
	u := pgtest.URL(t)
	f := getFixture(t)
	pg, err := store.Open(u, store.OpenOptions{Backends: map[string]store.Opener{"postgres": postgres.Open}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	res, err := store.Copy(context.Background(), pg, f.st)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Copied) != 5 {
		t.Fatalf("copied %v, want the fixture's 5 runs", res.Copied)
	}
	return f, pg, u
}

// pgPageURLs are pageURLs plus the case page and the compare case page of
// every case of the fixture's quickstart runs, and the stopped run's.
func pgPageURLs(t *testing.T, f *fixture) []string {
	c := serverLinks{}
	urls := pageURLs(f)
	for _, id := range []string{f.qsBase, f.qsCand, f.qsStop, f.hBase} {
		run, err := f.st.Load(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		urls = append(urls, c.Run(id), c.Run(id)+"?status=passing", c.Run(id)+"?q=a")
		for _, r := range run.Cases {
			urls = append(urls, c.Case(id, r.ID), c.History(run.Suite.Name, r.ID))
			if id == f.qsCand {
				urls = append(urls, c.CompareCase(f.qsBase, f.qsCand, r.ID))
			}
		}
	}
	return append(urls, c.Run("latest"), c.Compare("latest~1", "latest"), c.History("quickstart", "")+"&all=1")
}

// TestUIOnPostgres: every page over the Postgres store serves the same
// HTML as over the file store the runs were copied from (`assay
// ui` works against the Postgres store exactly as against the file store).
func TestUIOnPostgres(t *testing.T) {
	f, pg, _ := pgCopy(t)
	files, db := New(f.st, Options{}), New(pg, Options{})
	for _, u := range pgPageURLs(t, f) {
		if want, got := body(t, files, u), body(t, db, u); want != got {
			t.Errorf("GET %s: the Postgres store's page differs from the file store's:\n%s", u, lineDiff(want, got))
		}
	}
}

// TestStaticReportOnPostgres: `assay report --html DIR RUN BASE` over the
// Postgres store writes the same files as over the file store.
func TestStaticReportOnPostgres(t *testing.T) {
	f, pg, _ := pgCopy(t)
	for _, p := range [][2]string{{f.qsCand, f.qsBase}, {f.hCand, f.hBase}, {f.qsStop, ""}} {
		fd, pd := t.TempDir(), t.TempDir()
		if _, err := WriteStatic(context.Background(), fd, f.st, p[0], p[1]); err != nil {
			t.Fatal(err)
		}
		if _, err := WriteStatic(context.Background(), pd, pg, p[0], p[1]); err != nil {
			t.Fatalf("%s vs %s on postgres: %v", p[0], p[1], err)
		}
		want, got := tree(t, fd), tree(t, pd)
		if strings.Join(keys(want), "\n") != strings.Join(keys(got), "\n") {
			t.Fatalf("files differ:\nfile store: %v\npostgres:   %v", keys(want), keys(got))
		}
		for name, w := range want {
			if got[name] != w {
				t.Errorf("%s: differs on postgres:\n%s", name, lineDiff(w, got[name]))
			}
		}
	}
}

// tree reads every file under dir by its slash path.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
