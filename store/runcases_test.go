package store_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
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

// ReadRunCaseLines gives each case's bytes, which decode to the cases
// ReadRunCases reads, in the store's layout (one case a line, a line
// longer than its read buffer included) and in the indented --json
// layout; it stops on ErrStop, and a broken case line is an error naming
// the file and the case.
func TestReadRunCaseLinesAgreesWithReadRunCases(t *testing.T) {
	t.Parallel()
	pass, lat := true, 12.5
	run := &assay.Run{Schema: assay.RunSchema, RunID: "r1", Status: assay.StatusComplete, Warnings: []string{"after the cases"},
		Cases: []assay.CaseResult{
			{ID: "a", Pass: &pass, LatencyMs: &lat, Tags: map[string]string{"lang": "de"}},
			{ID: "b", Trial: 1, Error: &assay.Error{Class: "http", Message: "502"}, Checks: []assay.Check{{Kind: "answer_includes", Detail: strings.Repeat("long ", 100_000)}}},
			{ID: "c", Metrics: map[string]float64{"mrr": 0.5}},
		}}
	lines, err := store.EncodeRun(run)
	if err != nil {
		t.Fatal(err)
	}
	var indented bytes.Buffer
	if err := assay.WriteDocument(&indented, run, assay.DocumentOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"lines": lines, "indented": indented.Bytes()} {
		p := writeFile(t, filepath.Join(t.TempDir(), "run.json"), string(b))
		var want []assay.CaseResult
		if err := store.ReadRunCases(p, func(r assay.CaseResult) error { want = append(want, r); return nil }); err != nil {
			t.Fatal(err)
		}
		var got []assay.CaseResult
		err := store.ReadRunCaseLines(p, func(c []byte) error {
			var r assay.CaseResult
			if err := json.Unmarshal(c, &r); err != nil {
				return err
			}
			got = append(got, r)
			return nil
		})
		if err != nil || !reflect.DeepEqual(got, want) || len(got) != 3 {
			t.Errorf("%s: %d cases (err %v), not the %d ReadRunCases reads", name, len(got), err, len(want))
		}
		n := 0
		if err := store.ReadRunCaseLines(p, func([]byte) error { n++; return store.ErrStop }); err != nil || n != 1 {
			t.Errorf("%s: stopped after %d cases, err %v", name, n, err)
		}
	}
	broken := strings.Replace(string(lines), `{"id":"c"`, `{"id":"c",,`, 1)
	deep := strings.Replace(string(lines), `"c"`, `"c","x":`+strings.Repeat("[", 2000)+strings.Repeat("]", 2000), 1)
	cut := string(lines[:bytes.Index(lines, []byte(`{"id":"c"`))])
	for name, body := range map[string]string{"broken": broken, "deep": deep, "cut": cut} {
		p := writeFile(t, filepath.Join(t.TempDir(), "run.json"), body)
		err := store.ReadRunCaseLines(p, func([]byte) error { return nil })
		if err == nil || !strings.HasPrefix(err.Error(), p) || !strings.Contains(err.Error(), "case 3") {
			t.Errorf("%s: err %v, want an error naming the file and case 3", name, err)
		}
	}
}

func FuzzReadRunCaseLines(f *testing.F) {
	f.Add([]byte(goodRun))
	f.Add([]byte("{\n  \"schema\": \"assay.run/v1\",\n  \"cases\": [\n    {\"id\":\"a\"},\n    {\"id\":\"b\"}\n  ]\n}\n"))
	f.Add([]byte("{\n  \"cases\": [\n    {\"id\":\"a\"\n  ]\n}\n"))
	f.Add([]byte("{\n  \"cases\": []\n}\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "run.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var raw []assay.CaseResult
		err := store.ReadRunCaseLines(path, func(c []byte) error {
			var r assay.CaseResult
			if json.Unmarshal(c, &r) != nil {
				return store.ErrStop
			}
			raw = append(raw, r)
			return nil
		})
		if err != nil {
			if !strings.HasPrefix(err.Error(), path) {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		var want []assay.CaseResult
		if store.ReadRunCases(path, func(r assay.CaseResult) error { want = append(want, r); return nil }) == nil && len(raw) == len(want) && !reflect.DeepEqual(raw, want) {
			t.Errorf("cases %v, ReadRunCases reads %v", raw, want)
		}
	})
}
