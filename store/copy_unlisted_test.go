package store_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/sqlite"
	"github.com/assay-eval/assay/store/storetest"
)

// TestCopyRedoesAnUnlistedPart: a copy killed after it created a run's
// directory in the destination, before the destination listed the run,
// leaves a part that List does not show. Copying again removes it and
// copies the run (Redone), rather than failing with "already exists".
func TestCopyRedoesAnUnlistedPart(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	src, err := sqlite.OpenStore(t.TempDir(), store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	run := storetest.NewRun("kb", time.Now().Add(-time.Minute))
	w, err := src.Begin(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	cases := []assay.CaseResult{storetest.Case("q1", true, 1), storetest.Case("q2", false, 0)}
	for _, c := range cases {
		if err := w.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	storetest.Complete(run, cases)
	if err := w.Finish(run); err != nil {
		t.Fatal(err)
	}

	root := t.TempDir()
	dst, err := sqlite.OpenStore(root, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	part := filepath.Join(root, "runs", run.RunID)
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	if listed, err := dst.List(ctx, store.Filter{}); err != nil || len(listed) != 0 {
		t.Fatalf("the destination lists %d runs (%v) before the copy; want none", len(listed), err)
	}
	res, err := store.Copy(ctx, dst, src)
	if err != nil {
		t.Fatalf("copy over an unlisted part: %v", err)
	}
	if fmt.Sprint(res.Redone) != fmt.Sprint([]string{run.RunID}) || len(res.Copied) != 0 {
		t.Errorf("copy = %+v; want %s redone", res, run.RunID)
	}
	want, err := store.Digest(ctx, src, run.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := store.Digest(ctx, dst, run.RunID); err != nil || got != want {
		t.Errorf("the copy's digest = %+v, %v; want %+v", got, err, want)
	}
}
