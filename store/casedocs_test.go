package store_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/storetest"
)

// oddCases are results whose JSON a read back could change: HTML
// characters (escaped in cases.jsonl, not in run.json), a string that is
// not valid UTF-8, line separators, a conversation with observations in
// its turns, nil and empty lists and maps, floats.
func oddCases() []assay.CaseResult {
	a := storetest.Case("q<1>&", true, 0.1+0.2)
	a.Checks = append(a.Checks, assay.Check{Kind: "answer_includes", Detail: "want \"<b>\" & 'x'\u2028\u2029 \x00"})
	b := storetest.Case("q2", false, 1e21)
	b.Error = &assay.Error{Class: assay.ErrTimeout, Message: "bad bytes \xff\xfe here"}
	b.Checks, b.Metrics = nil, nil
	c := storetest.Case("conv", true, math.Copysign(0, -1))
	t1, t2 := storetest.Case("conv", true, 1), storetest.Case("conv", false, 0)
	t1.Turn, t2.Turn = 1, 2
	t2.Observation.Answer = "turn \xc3 two <x>"
	c.Turns = []assay.CaseResult{t1, t2}
	c.FailedTurn = 2
	d := storetest.Case("q4", true, 1)
	d.Checks, d.Metrics = []assay.Check{}, map[string]float64{}
	d.Trial = 1
	return []assay.CaseResult{a, b, c, d}
}

// readBack is run with its cases read back from the run directory dir and
// decoded (as a run that streams its results reads them).
func readBack(run *assay.Run, dir string) *assay.Run {
	c := *run
	c.Cases = nil
	c.CaseStream = func(yield func(assay.CaseResult) error) error { return store.ReadResults(dir, yield) }
	c.CaseDocuments = nil
	return &c
}

// TestRunJSONWrittenOnce: Finish of a run given the writer's
// CaseDocuments writes run.json from the bytes it encoded at Append, not
// from a read back of cases.jsonl (the file of those bytes is not listed
// in the run directory), and those bytes are the ones the read back would encode;
// the --json layouts written from run.json's case lines
// (CaseDocuments) are those written by decoding the cases again; the
// file kept for it is gone once the run is finished.
func TestRunJSONWrittenOnce(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "r1")
	run := storetest.NewRun("kb", time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC))
	run.RunID = "r1"
	w, err := store.BeginFiles(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	cases := oddCases()
	for _, c := range cases {
		if err := w.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != store.RunFile && e.Name() != store.CasesFile {
			t.Errorf("%s in the directory of a run being written", e.Name())
		}
	}
	storetest.Complete(run, cases)
	read := 0
	run.Cases = nil
	run.CaseStream = func(yield func(assay.CaseResult) error) error {
		read++
		return store.ReadResults(dir, yield)
	}
	d, ok := w.(store.CaseDocumenter)
	if !ok {
		t.Fatal("the files writer gives no CaseDocuments")
	}
	run.CaseDocuments = d.CaseDocuments()
	if err := w.Finish(run); err != nil {
		t.Fatal(err)
	}
	if read != 0 {
		t.Errorf("Finish read the cases back %d times", read)
	}
	got, err := os.ReadFile(filepath.Join(dir, store.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	want, err := store.EncodeRun(readBack(run, dir))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("run.json from the appended bytes:\n%s\nwant (read back):\n%s", got, want)
	}
	if ents, err = os.ReadDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("Finish left %s behind", e.Name())
		}
	}

	for _, o := range []assay.DocumentOptions{{}, {Prefix: "  "}, {CaseLines: true}} {
		copied := readBack(run, dir)
		copied.CaseDocuments = d.CaseDocuments()
		var a, b bytes.Buffer
		if err := assay.WriteDocument(&a, copied, o); err != nil {
			t.Fatal(err)
		}
		if err := assay.WriteDocument(&b, readBack(run, dir), o); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Errorf("%+v: the document from run.json's lines:\n%s\nwant (decoded and encoded):\n%s", o, a.String(), b.String())
		}
	}
}

// TestRunJSONWrittenOnceEmpty: a run with no case keeps "cases": [] and
// CaseDocuments yields nothing.
func TestRunJSONWrittenOnceEmpty(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "r0")
	run := storetest.NewRun("kb", time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC))
	run.RunID = "r0"
	w, err := store.BeginFiles(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	storetest.Complete(run, nil)
	run.CaseStream = func(yield func(assay.CaseResult) error) error { return store.ReadResults(dir, yield) }
	run.CaseDocuments = w.(store.CaseDocumenter).CaseDocuments()
	if err := w.Finish(run); err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := w.(store.CaseDocumenter).CaseDocuments()(func([]byte) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("CaseDocuments of a run with no case: %d lines, %v", n, err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, store.RunFile))
	want, _ := store.EncodeRun(readBack(run, dir))
	if !bytes.Equal(got, want) {
		t.Errorf("run.json:\n%s\nwant:\n%s", got, want)
	}
}

// TestReleaseRemovesDocSpill: a run released unfinished leaves no
// temporary file.
func TestReleaseRemovesDocSpill(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "r2")
	run := storetest.NewRun("kb", time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC))
	run.RunID = "r2"
	w, err := store.BeginFiles(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(storetest.Case("q1", true, 1)); err != nil {
		t.Fatal(err)
	}
	if err := w.(store.Releaser).Release(); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("Release left %s behind", e.Name())
		}
	}
}

// FuzzDocumentCases: any bytes in run.json give case lines that each
// begin a JSON object (the lines are copied, not checked), or an error naming the file; never a panic.
func FuzzDocumentCases(f *testing.F) {
	f.Add([]byte("{\n  \"schema\": \"assay.run/v1\",\n  \"cases\": [\n    {\"id\":\"a\"},\n    {\"id\":\"b\"}\n  ]\n}\n"))
	f.Add([]byte("{\n  \"cases\": []\n}\n"))
	f.Add([]byte("{\n  \"cases\": [\n    x\n"))
	f.Add([]byte(""))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, store.RunFile)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		err := store.DocumentCases(dir)(func(line []byte) error {
			if len(line) == 0 || line[0] != '{' {
				t.Errorf("case line %q", line)
			}
			return nil
		})
		if err != nil && !strings.HasPrefix(err.Error(), path) {
			t.Errorf("error does not name the file: %v", err)
		}
	})
}
