package store_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
)

// A run directory outside any store (BeginFiles) is read back result by
// result, with or without the observations, before and after Finish
// (cases.jsonl, then cases.jsonl.gz).
func TestBeginFilesReadResults(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	run := &assay.Run{RunID: "r1", Options: assay.RunOptions{Trials: 1}}
	w, err := store.BeginFiles(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	pass := true
	for _, id := range []string{"a", "b"} {
		r := assay.CaseResult{ID: id, Pass: &pass, Metrics: map[string]float64{"mrr": 0.5},
			Observation: &assay.Observation{Case: id, Answer: "the answer of " + id}}
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string) {
		t.Helper()
		var ids []string
		err := store.ReadResults(dir, func(r assay.CaseResult) error {
			if r.Observation != nil {
				t.Errorf("%s: ReadResults decoded the observation of %s", when, r.ID)
			}
			if r.Pass == nil || !*r.Pass || r.Metrics["mrr"] != 0.5 {
				t.Errorf("%s: result %+v lost its fields", when, r)
			}
			ids = append(ids, r.ID)
			return nil
		})
		if err != nil || len(ids) != 2 || ids[0] != "a" || ids[1] != "b" {
			t.Errorf("%s: ReadResults = %v, %v", when, ids, err)
		}
		var answers []string
		store.ReadCases(dir, func(r assay.CaseResult) error {
			if r.Observation != nil {
				answers = append(answers, r.Observation.Answer)
			}
			return nil
		})
		if len(answers) != 2 {
			t.Errorf("%s: ReadCases observations = %v", when, answers)
		}
	}
	if err := w.(store.Flusher).Flush(); err != nil {
		t.Fatal(err)
	}
	check("before Finish")
	run.Status = assay.StatusComplete
	if err := w.Finish(run); err != nil {
		t.Fatal(err)
	}
	check("after Finish")
	if got, err := store.LoadRun(dir); err != nil || got.RunID != "r1" {
		t.Errorf("LoadRun = %v, %v", got, err)
	}
}

// A scratch run directory holds the results without observations, read
// back once finished.
func TestBeginScratch(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	w, err := store.BeginScratch(dir)
	if err != nil {
		t.Fatal(err)
	}
	pass := true
	for _, id := range []string{"a", "b", "c"} {
		if err := w.Append(assay.CaseResult{ID: id, Pass: &pass, Observation: &assay.Observation{Answer: "x"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(assay.CaseResult{ID: "d"}); err == nil {
		t.Error("Append after Finish succeeded")
	}
	n := 0
	err = store.ReadCases(dir, func(r assay.CaseResult) error {
		n++
		if r.Observation != nil || !r.Passed() {
			t.Errorf("result %+v", r)
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Errorf("read %d results, %v; want 3", n, err)
	}
}

// A scratch run's CaseDocuments are its cases as the run document lists
// them, encoded once when appended: the --json output written from them
// is the one written by reading each case back (as a case line, decoded)
// and encoding it again, invalid UTF-8 and cases without checks included;
// and ReadResults reads the same cases from them.
func TestScratchCaseDocuments(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	w, err := store.BeginScratch(dir)
	if err != nil {
		t.Fatal(err)
	}
	pass, fail := true, false
	ms := 12.5
	cases := []assay.CaseResult{
		{ID: "a", Pass: &pass, Checks: []assay.Check{{Kind: "answer_includes", Pass: true}}, Metrics: map[string]float64{"ndcg@10": 0.5}, LatencyMs: &ms, Observation: &assay.Observation{Answer: "x <b>"}},
		{ID: "b\xff", Pass: &fail, Checks: []assay.Check{{Kind: "answer_includes", Detail: "missing \"\xfe\" & <x>"}}},
		{ID: "c", Error: &assay.Error{Class: "timeout", Message: "slow"}},
	}
	for _, c := range cases {
		if err := w.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	docs := w.(store.CaseDocumenter).CaseDocuments()
	if err := w.Finish(nil); err != nil {
		t.Fatal(err)
	}
	var back []assay.CaseResult // each case as a case line, decoded
	for _, c := range cases {
		b, err := store.EncodeCase(c)
		if err != nil {
			t.Fatal(err)
		}
		r, err := store.DecodeCase(b, false)
		if err != nil {
			t.Fatal(err)
		}
		back = append(back, r)
	}
	head := assay.Run{Schema: assay.RunSchema, RunID: "r1", Status: assay.StatusComplete}
	for _, o := range []assay.DocumentOptions{{}, {CaseLines: true}} {
		want, got := head, head
		want.Cases = back
		got.CaseStream = func(yield func(assay.CaseResult) error) error { return store.ReadResults(dir, yield) }
		got.CaseDocuments = docs
		var wb, gb bytes.Buffer
		if err := assay.WriteDocument(&wb, &want, o); err != nil {
			t.Fatal(err)
		}
		if err := assay.WriteDocument(&gb, &got, o); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(wb.Bytes(), gb.Bytes()) {
			t.Errorf("document from the scratch's encoded cases (CaseLines %v):\n%s\nwant (read back and encoded again):\n%s", o.CaseLines, gb.Bytes(), wb.Bytes())
		}
	}
	var ids []string
	if err := store.ReadResults(dir, func(r assay.CaseResult) error { ids = append(ids, r.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 3 || ids[0] != "a" || ids[1] != "b\uFFFD" || ids[2] != "c" {
		t.Errorf("ReadResults of the scratch run: %q; want a, b\\uFFFD, c", ids)
	}
}
