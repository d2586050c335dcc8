package store_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
)

func TestReadRunCasesStreamsInOrderAndStops(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := &assay.Run{Schema: assay.RunSchema, RunID: "r1", Status: assay.StatusComplete, Warnings: []string{"after the cases"},
		Cases: []assay.CaseResult{{ID: "a"}, {ID: "b", Trial: 1}, {ID: "c"}}}
	b, err := store.EncodeRun(run)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "run.json"), string(b))
	var ids []string
	if err := store.ReadRunCases(dir, func(r assay.CaseResult) error { ids = append(ids, r.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, ",") != "a,b,c" {
		t.Errorf("cases %v, want a,b,c", ids)
	}
	ids = nil
	err = store.ReadRunCases(filepath.Join(dir, "run.json"), func(r assay.CaseResult) error {
		ids = append(ids, r.ID)
		if len(ids) == 2 {
			return store.ErrStop
		}
		return nil
	})
	if err != nil || strings.Join(ids, ",") != "a,b" {
		t.Errorf("stopped after two: %v, err %v", ids, err)
	}
	for body, want := range map[string]string{
		`[1, 2]`: "not a run record",
		`{"schema": "assay.run/v1", "cases": {"id": "a"}}`:        "cases is not a list",
		`{"schema": "assay.run/v1", "cases": [{"id": "a"}, {"id"`: "case 2",
	} {
		p := writeFile(t, filepath.Join(t.TempDir(), "run.json"), body)
		err := store.ReadRunCases(p, func(assay.CaseResult) error { return nil })
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err %v, want %q naming the file", body, err, want)
		}
	}
	if err := store.ReadRunCases(filepath.Join(dir, "missing"), func(assay.CaseResult) error { return nil }); err == nil {
		t.Error("a missing run: no error")
	}
}

func FuzzReadRunCases(f *testing.F) {
	f.Add([]byte(goodRun))
	f.Add([]byte(`{"schema": "assay.run/v1", "cases": null}`))
	f.Add([]byte(`{"cases": [{"id": "a"}, {"id": 5}]}`))
	f.Add([]byte(`{"cases": [`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "run.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		err := store.ReadRunCases(path, func(assay.CaseResult) error { return nil })
		if err != nil && !strings.HasPrefix(err.Error(), path) {
			t.Errorf("error does not name the file: %v", err)
		}
	})
}
