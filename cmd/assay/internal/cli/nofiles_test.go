package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/cmd/assay/internal/cli"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/storetest"
)

// noFiles is a store that keeps its runs out of reach of the file system
// (as Postgres does): only the Store interface, no store.RunFiler, and
// no Entry.Path. The runs are in a files store underneath whose directory
// the test moves away, so any read by path fails.
type noFiles struct{ store.Store }

func (s noFiles) List(ctx context.Context, f store.Filter) ([]store.Entry, error) {
	list, err := s.Store.List(ctx, f)
	for i := range list {
		list[i].Path = ""
	}
	return list, err
}

// TestStoreWithoutFiles: compare, case views and export read a store's runs
// through the Store interface (Load, Cases), never by run.json path.
func TestStoreWithoutFiles(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "s")
	files, err := store.OpenSQLite(dir, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer files.Close()
	t0 := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	for i, pass := range []bool{true, false} {
		run := storetest.NewRun("kb", t0.Add(time.Duration(i)*time.Minute))
		w, err := files.Begin(ctx, run)
		if err != nil {
			t.Fatal(err)
		}
		cases := []assay.CaseResult{storetest.Case("q1", true, 1), storetest.Case("q2", pass, 0.5)}
		for _, c := range cases {
			if err := w.Append(c); err != nil {
				t.Fatal(err)
			}
		}
		storetest.Complete(run, cases)
		if err := w.Finish(run); err != nil {
			t.Fatal(err)
		}
	}
	// The runs directory is where the files store reads from: renamed, a
	// read by path finds nothing; the wrapper reads through the moved one.
	moved := dir + ".moved"
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	real, err := store.OpenSQLite(moved, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer real.Close()
	st := noFiles{real}

	rep, err := harness.CompareRefs(ctx, st, "latest~1", "latest", harness.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.PairedCases != 2 || len(rep.Flips.PassToFail) != 1 || rep.Flips.PassToFail[0] != "q2" {
		t.Errorf("compare: %d paired, flips %v; want 2 paired and q2 pass → fail", rep.PairedCases, rep.Flips.PassToFail)
	}
	run, views, err := harness.RefCaseViews(ctx, st, "latest", "q2")
	if err != nil {
		t.Fatal(err)
	}
	if len(views) != 1 || views[0].Result.Observation == nil || views[0].Result.Observation.Answer != "answer to q2" {
		t.Errorf("case views of %s: %+v; want q2 with its observation", run.RunID, views)
	}
	out := filepath.Join(t.TempDir(), "run.txt")
	if err := cli.Export(ctx, cli.ExportPlan{Ref: "latest", TrecRun: out, Store: st}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), "q2 Q0 doc-q2 1 ") {
		t.Errorf("export: %q, %v; want the rankings of q1 and q2", b, err)
	}
}
