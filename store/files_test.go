package store_test

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
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

const goodRun = `{"schema": "assay.run/v1", "run_id": "r1", "status": "complete",
 "cases": [{"id": "q1", "trial": 0, "pass": true}]}`

func TestLoadRunErrorsNameTheFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, want string
	}{
		{"empty file", "", "empty run record"},
		{"truncated", `{"schema": "assay.run/v1", "run_id": "r1", "cases": [{"id"`, ":1:59: truncated: unexpected end of JSON input"},
		{"syntax error on line 2", "{\"schema\": \"assay.run/v1\",\n \"run_id\": r1}", ":2:12: invalid character 'r'"},
		{"wrong type", "{\"schema\": \"assay.run/v1\",\n \"cases\": [{\"id\": 5}]}", ":2:19: cases.id: cannot use number as string"},
		{"other schema", `{"schema": "assay.compare/v1"}`, `not an assay.run/v1 document (schema "assay.compare/v1")`},
		{"bad status", `{"schema": "assay.run/v1", "run_id": "r1", "status": "done"}`, `status "done" is neither complete nor incomplete`},
		{"no run id", `{"schema": "assay.run/v1", "status": "complete"}`, "run_id is missing"},
		{"case without id", `{"schema": "assay.run/v1", "run_id": "r1", "status": "complete", "cases": [{"trial": 0}]}`, "case 1 has no id"},
		{"duplicate case", `{"schema": "assay.run/v1", "run_id": "r1", "status": "complete", "cases": [{"id": "a"}, {"id": "a"}]}`, `case "a" trial 0 appears twice`},
		{"not an object", `[1, 2]`, "cannot use array as assay.Run"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(t.TempDir(), "run.json"), tc.body)
			_, err := store.LoadRun(path)
			if err == nil {
				t.Fatal("LoadRun succeeded; want an error")
			}
			if !strings.HasPrefix(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q; want it to start with the file and contain %q", err, tc.want)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "gone", "run.json")
		_, err := store.LoadRun(path)
		if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), path+": no such file") {
			t.Errorf("error %v; want %s: no such file", err, path)
		}
	})
	t.Run("directory without run.json", func(t *testing.T) {
		dir := t.TempDir()
		_, err := store.LoadRun(dir)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "run.json")) {
			t.Errorf("error %v; want it to name %s", err, filepath.Join(dir, "run.json"))
		}
	})
}

func TestLoadRunAcceptsFileOrDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "run.json"), goodRun)
	for _, p := range []string{dir, filepath.Join(dir, "run.json")} {
		run, err := store.LoadRun(p)
		if err != nil {
			t.Fatalf("LoadRun(%s): %v", p, err)
		}
		if run.RunID != "r1" || len(run.Cases) != 1 {
			t.Errorf("LoadRun(%s) = %s with %d cases", p, run.RunID, len(run.Cases))
		}
	}
}

func TestReadCasesTornLastLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "cases.jsonl"), `{"id":"q1","trial":0,"pass":true}
{"id":"q2","trial":0,"pass":false}
{"id":"q3","tri`)
	var ids []string
	if err := store.ReadCases(dir, func(r assay.CaseResult) error { ids = append(ids, r.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, ",") != "q1,q2" {
		t.Errorf("read %v; want q1,q2 (the torn q3 skipped)", ids)
	}
}

// TestReadCasesOfDecodesOnlyWantedObservations: the observations of the
// cases want names are read whole, the others' left nil, and every line's
// result is read either way.
func TestReadCasesOfDecodesOnlyWantedObservations(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "cases.jsonl"), `{"id":"q1","trial":0,"pass":true,"observation":{"case":"q1","answer":"one"}}
{"id":"q2","trial":0,"pass":false,"observation":{"case":"q2","answer":"two"}}
{"id":"q3","trial":0,"pass":false,"observation":null}
`)
	got := map[string]string{}
	err := store.ReadCasesOf(dir, func(id string) bool { return id != "q1" }, func(r assay.CaseResult) error {
		got[r.ID] = "nil"
		if r.Observation != nil {
			got[r.ID] = r.Observation.Answer
		}
		if r.Pass == nil {
			t.Errorf("%s: its result was not read", r.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"q1": "nil", "q2": "two", "q3": "nil"}; !maps.Equal(got, want) {
		t.Errorf("read %v, want %v", got, want)
	}
}

func TestReadCasesBadLineIsPositioned(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "cases.jsonl"), "{\"id\":\"q1\"}\n{\"id\": nope}\n{\"id\":\"q3\"}\n")
	err := store.ReadCases(dir, func(assay.CaseResult) error { return nil })
	if err == nil || !strings.HasPrefix(err.Error(), path+":2:") {
		t.Errorf("error %v; want %s:2:...", err, path)
	}
}

func TestReadCasesBadGzip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "cases.jsonl.gz"), "not gzip at all")
	err := store.ReadCases(dir, func(assay.CaseResult) error { return nil })
	if err == nil || !strings.HasPrefix(err.Error(), path) {
		t.Errorf("error %v; want it to name %s", err, path)
	}
}

func TestEncodeRunRoundTrip(t *testing.T) {
	t.Parallel()
	run := storetest.NewRun("kb", time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
	run.RunID = "r1"
	cases := []assay.CaseResult{storetest.Case("q1", true, 1), storetest.Case("q2", false, 0.25)}
	storetest.Complete(run, cases)
	run.Warnings = []string{"a warning"}
	b, err := store.EncodeRun(run)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	caseLines := 0
	for _, l := range lines {
		if strings.HasPrefix(l, `    {"id":`) {
			caseLines++
			if strings.Contains(l, "observation") {
				t.Errorf("case line embeds the observation: %s", l)
			}
		}
	}
	if caseLines != 2 {
		t.Errorf("%d case lines; want one per case:\n%s", caseLines, b)
	}
	var got assay.Run
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("EncodeRun output is not JSON: %v\n%s", err, b)
	}
	// run.json is the assay.run/v1 document, as --json writes it: no
	// observations, and [] and {} for what is empty.
	want := *run.DocumentHead()
	want.Cases = nil
	for _, c := range run.Cases {
		want.Cases = append(want.Cases, c.Document())
	}
	if !reflect.DeepEqual(&got, &want) {
		t.Errorf("round trip differs:\n got %+v\nwant %+v", got, want)
	}
	if run.Cases[0].Observation == nil {
		t.Error("EncodeRun removed the caller's observations")
	}
}

func TestFinishCompressesCases(t *testing.T) {
	t.Parallel()
	s, err := sqlite.OpenStore(t.TempDir(), store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run := storetest.NewRun("kb", time.Now())
	w, err := s.Begin(t.Context(), run)
	if err != nil {
		t.Fatal(err)
	}
	c := storetest.Case("q1", true, 1)
	if err := w.Append(c); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(w.Dir(), "cases.jsonl")); err != nil {
		t.Fatalf("cases.jsonl while the run goes: %v", err)
	}
	storetest.Complete(run, []assay.CaseResult{c})
	if err := w.Finish(run); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(w.Dir(), "cases.jsonl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("plain cases.jsonl left after Finish: %v", err)
	}
	f, err := os.Open(filepath.Join(w.Dir(), "cases.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var r assay.CaseResult
	if err := json.NewDecoder(zr).Decode(&r); err != nil || r.ID != "q1" || r.Observation == nil {
		t.Errorf("first line %+v, err %v; want q1 with its observation", r, err)
	}
	for _, name := range []string{"run.json", "cases.jsonl.gz"} {
		fi, err := os.Stat(filepath.Join(w.Dir(), name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o644 {
			t.Errorf("%s mode %v; want 0644", name, fi.Mode().Perm())
		}
	}
}

func TestPeekRunReadsTheHeaderWithoutTheCases(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "run.json")
	run := &assay.Run{Schema: assay.RunSchema, RunID: "r1", Status: assay.StatusComplete, Group: "g1",
		Variant: map[string]string{"mode": "fast"}, Warnings: []string{"after the cases"},
		Cases: []assay.CaseResult{{ID: "a"}, {ID: "b"}}}
	b, err := store.EncodeRun(run)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := store.PeekRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.RunID != "r1" || got.Group != "g1" || got.Variant["mode"] != "fast" || got.Cases != nil {
		t.Errorf("PeekRun = %+v, want the header of r1 (group g1, variant fast) and no cases", got)
	}
	if err := os.WriteFile(p, []byte(`{"schema": "other", "cases": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := store.PeekRun(p); err == nil || !strings.Contains(err.Error(), "not an assay.run/v1 document") {
		t.Errorf("PeekRun of another schema: err = %v", err)
	}
	if _, err := store.PeekRun(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("PeekRun of a missing file: no error")
	}
}
