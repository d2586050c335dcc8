package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
