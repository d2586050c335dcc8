package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/sqlite"
	"github.com/assay-eval/assay/store/storetest"
)

func TestSQLiteConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t testing.TB, root string) store.Store {
		s, err := sqlite.OpenStore(root, store.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// A run begun with a canceled context (Ctrl-C before the first case) leaves
// no run directory behind that the index does not know.
func TestBeginCanceledLeavesNoRun(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s, err := sqlite.OpenStore(root, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	run := &assay.Run{RunID: store.NewRunID(), Suite: assay.SuiteRef{Name: "kb"}}
	if _, err := s.Begin(ctx, run); err == nil {
		t.Fatal("Begin with a canceled context: no error")
	}
	entries, _ := os.ReadDir(filepath.Join(root, "runs"))
	for _, e := range entries {
		t.Errorf("left behind: runs/%s", e.Name())
	}
}

// A run directory whose run.json does not read is named in the store's
// warnings when the index is rebuilt (not left out of every listing
// without a word); one with no run.json yet (a run being begun) is not.
func TestReindexWarnsOfADamagedRun(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{"runs/01a2-damaged", "runs/01a2-begun"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "runs", "01a2-damaged", "run.json"), []byte(`{"schema": "assay.run/v1", "run_id": `), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := sqlite.OpenStore(root, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w := strings.Join(s.Warnings(), "\n")
	if !strings.Contains(w, "runs/01a2-damaged is not listed: ") || strings.Contains(w, "begun") {
		t.Errorf("warnings:\n%s", w)
	}
}

func writeFile(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestIndexesAFilesStore: runs a files store wrote without an index (a Go
// program that links no SQLite) are listed, resolved and trended by the
// SQLite store opened on the same directory exactly as the files store
// lists them, and a run the files store deletes leaves the index too.
func TestIndexesAFilesStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	files, err := store.OpenFiles(root, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	var ids []string
	for i, suite := range []string{"kb", "kb", "other"} {
		run := storetest.NewRun(suite, t0.Add(time.Duration(i)*time.Minute))
		w, err := files.Begin(ctx, run)
		if err != nil {
			t.Fatal(err)
		}
		cases := []assay.CaseResult{storetest.Case("q1", true, 1), storetest.Case("q2", i%2 == 0, 0.5)}
		for _, c := range cases {
			if err := w.Append(c); err != nil {
				t.Fatal(err)
			}
		}
		storetest.Complete(run, cases)
		if err := w.Finish(run); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, run.RunID)
	}
	if _, err := os.Stat(filepath.Join(root, sqlite.DBFile)); err == nil {
		t.Fatal("the files store made an index")
	}
	same := func(t *testing.T) {
		t.Helper()
		idx, err := sqlite.OpenStore(root, store.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer idx.Close()
		for _, f := range []store.Filter{{}, {Suite: "kb"}, {Limit: 1}, {Status: assay.StatusComplete, NoShards: true}} {
			want, err := files.List(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := idx.List(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("List(%+v):\n index %+v\n files %+v", f, got, want)
			}
		}
		for _, ref := range []string{"latest", "latest~1", ids[0][:13]} {
			a, aerr := files.Resolve(ctx, ref)
			b, berr := idx.Resolve(ctx, ref)
			if a != b || (aerr == nil) != (berr == nil) {
				t.Errorf("Resolve(%s): files %q %v, index %q %v", ref, a, aerr, b, berr)
			}
		}
		for _, m := range []string{"pass_rate", "ndcg@10"} {
			a, _ := files.Trend(ctx, "kb", m, 0)
			b, _ := idx.Trend(ctx, "kb", m, 0)
			if len(a) != len(b) {
				t.Errorf("Trend(%s): files %+v, index %+v", m, a, b)
				continue
			}
			for i := range a {
				if a[i].RunID != b[i].RunID || a[i].Value != b[i].Value || a[i].N != b[i].N || !a[i].StartedAt.Equal(b[i].StartedAt) {
					t.Errorf("Trend(%s)[%d]: files %+v, index %+v", m, i, a[i], b[i])
				}
			}
		}
	}
	same(t)
	if err := files.Delete(ctx, ids[1]); err != nil {
		t.Fatal(err)
	}
	same(t)
}
