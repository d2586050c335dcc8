package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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

// caseRows is the case_results index of a store, one line per row.
func caseRows(t *testing.T, root string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(root, "assay.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT run_id, case_id, trial, coalesce(pass, -1), error_class, coalesce(latency_ms, -1), metrics
		FROM case_results ORDER BY run_id, case_id, trial`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, cid, class, metrics string
		var trial, pass int
		var lat float64
		if err := rows.Scan(&id, &cid, &trial, &pass, &class, &lat, &metrics); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %s %d %d %q %g %s", id, cid, trial, pass, class, lat, metrics))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func streamCases() []assay.CaseResult {
	cases := []assay.CaseResult{storetest.Case("q1", true, 1), storetest.Case("q2", false, 0.5), storetest.Case("q3", true, 0)}
	cases[2].Error = &assay.Error{Class: assay.ErrTimeout, Message: "no observation after 30s"}
	cases[2].LatencyMs = nil
	return cases
}

// saveStreamRun saves one run in a fresh store at root, Finish given fin(run).
func saveStreamRun(t *testing.T, root string, fin func(*assay.Run, []assay.CaseResult) *assay.Run) error {
	t.Helper()
	s, err := sqlite.OpenStore(root, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run := storetest.NewRun("kb", time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
	run.RunID = "r1"
	w, err := s.Begin(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	cases := streamCases()
	for _, c := range cases {
		if err := w.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	storetest.Complete(run, cases)
	return w.Finish(fin(run, cases))
}

// TestIndexReadsCaseStream: the case_results rows of a run finished with
// its cases given by CaseStream are those of the same run given by Cases.
func TestIndexReadsCaseStream(t *testing.T) {
	t.Parallel()
	byCases, byStream := t.TempDir(), t.TempDir()
	if err := saveStreamRun(t, byCases, func(r *assay.Run, _ []assay.CaseResult) *assay.Run { return r }); err != nil {
		t.Fatal(err)
	}
	if err := saveStreamRun(t, byStream, func(r *assay.Run, cases []assay.CaseResult) *assay.Run {
		return storetest.Streamed(r, cases, -1, nil)
	}); err != nil {
		t.Fatal(err)
	}
	want, got := caseRows(t, byCases), caseRows(t, byStream)
	if len(want) != 3 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("case_results from the stream:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestIndexStreamErrorIsReturned: a stream that fails when the index reads
// it (after run.json was written from a first, good read) makes Finish
// fail with its error, and the index keeps no partial case rows.
func TestIndexStreamErrorIsReturned(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	errSpill := errors.New("spill: read error")
	err := saveStreamRun(t, root, func(r *assay.Run, cases []assay.CaseResult) *assay.Run {
		calls := 0
		s := storetest.Streamed(r, cases, -1, nil)
		good := s.CaseStream
		s.CaseStream = func(yield func(assay.CaseResult) error) error {
			calls++
			if calls == 1 {
				return good(yield)
			}
			return storetest.Streamed(r, cases, 1, errSpill).CaseStream(yield)
		}
		return s
	})
	if !errors.Is(err, errSpill) || !strings.Contains(err.Error(), "index was not updated") {
		t.Fatalf("Finish: %v; want the stream's error, saying the index was not updated", err)
	}
	if rows := caseRows(t, root); len(rows) != 0 {
		t.Errorf("case_results kept %d rows of a failed index: %v", len(rows), rows)
	}
}
