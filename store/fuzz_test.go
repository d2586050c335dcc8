package store_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
)

// FuzzLoadRun: any bytes in run.json give a run or an error naming the
// file; never a panic.
func FuzzLoadRun(f *testing.F) {
	f.Add([]byte(goodRun))
	f.Add([]byte(`{"schema": "assay.run/v1", "run_id": "r", "status": "incomplete"}`))
	f.Add([]byte(`{"schema": "assay.run/v1", "run_id": "r", "status": "complete", "cases": [{"id": "a", "pass": null, "metrics": {"mrr": 1e400}}]}`))
	f.Add([]byte("{\"schema\": \"assay.run/v1\",\n\"cases\": [{\"id\": 5}]}"))
	f.Add([]byte(""))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "run.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		run, err := store.LoadRun(path)
		if err != nil {
			if !strings.HasPrefix(err.Error(), path) {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if run.RunID == "" {
			t.Error("a run without run_id was accepted")
		}
	})
}

// FuzzReadCases: any bytes in cases.jsonl give cases or a positioned error.
func FuzzReadCases(f *testing.F) {
	f.Add([]byte("{\"id\":\"q1\",\"trial\":0}\n{\"id\":\"q2\"}\n"))
	f.Add([]byte("{\"id\":\"q1\"}\n{\"id\""))
	f.Add([]byte("\n\n{}\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "cases.jsonl")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		err := store.ReadCases(path, func(assay.CaseResult) error { return nil })
		if err != nil && !strings.HasPrefix(err.Error(), path) {
			t.Errorf("error does not name the file: %v", err)
		}
	})
}

// FuzzReadSuiteCases: any bytes in a run's suite-cases.jsonl give cases or
// an error naming the file; ReadSuiteCase of any id agrees with a pass
// over them.
func FuzzReadSuiteCases(f *testing.F) {
	f.Add([]byte("{\"id\":\"q1\",\"query\":\"one\",\"judgments\":{\"d1\":2}}\n{\"id\":\"q2\"}\n"), "q2")
	f.Add([]byte("{\"id\":\"q1\"}\n{\"id\""), "q1")
	f.Add([]byte("\n\n{}\n[1,2]\n"), "")
	f.Fuzz(func(t *testing.T, b []byte, id string) {
		dir := t.TempDir()
		path := filepath.Join(dir, store.SuiteCasesFile)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var found *assay.Case
		err := store.ReadSuiteCases(dir, func(c assay.Case) error {
			if c.ID == id && found == nil {
				found = &c
			}
			return nil
		})
		if err != nil && !strings.HasPrefix(err.Error(), path) {
			t.Errorf("error does not name the file: %v", err)
		}
		c, cerr := store.ReadSuiteCase(dir, id)
		if err == nil && (cerr != nil || (c == nil) != (found == nil) || c != nil && c.ID != id) {
			t.Errorf("ReadSuiteCase(%q) = %+v, %v; the pass found %+v", id, c, cerr, found)
		}
	})
}
