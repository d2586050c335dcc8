package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/storetest"
)

func TestSQLiteConformance(t *testing.T) {
	storetest.Run(t, func(t testing.TB, root string) store.Store {
		s, err := store.Open(root)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// A run begun with a canceled context (Ctrl-C before the first case) leaves
// no run directory behind that the index does not know.
func TestBeginCanceledLeavesNoRun(t *testing.T) {
	root := t.TempDir()
	s, err := store.Open(root)
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
