package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/assay-eval/assay"
)

// countingCases is a cases.jsonl that counts its writes and checks that
// each is of whole lines.
type countingCases struct {
	*os.File
	writes int
	torn   bool
}

func (c *countingCases) Write(b []byte) (int, error) {
	c.writes++
	if len(b) == 0 || b[len(b)-1] != '\n' {
		c.torn = true
	}
	return c.File.Write(b)
}

func bufferedCase(i int) assay.CaseResult {
	pass := i%3 != 0
	lat := float64(i) / 7
	return assay.CaseResult{ID: fmt.Sprintf("q%05d", i), Pass: &pass, LatencyMs: &lat,
		Checks:      []assay.Check{{Kind: "answer_includes", Pass: pass}},
		Observation: &assay.Observation{Case: fmt.Sprintf("q%05d", i), Answer: "an <answer> & more of case " + fmt.Sprint(i)}}
}

// The case lines of a run reach cases.jsonl in a few writes of whole
// lines, not one write each, and the file holds exactly the lines
// EncodeCase gives, in order.
func TestCaseLinesWrittenInFewWrites(t *testing.T) {
	var cf *countingCases
	old := openCases
	openCases = func(path string) (casesFile, error) {
		f, err := old(path)
		if err != nil {
			return nil, err
		}
		cf = &countingCases{File: f.(*os.File)}
		return cf, nil
	}
	defer func() { openCases = old }()
	dir := filepath.Join(t.TempDir(), "run")
	run := &assay.Run{RunID: "r1", Options: assay.RunOptions{Trials: 1}}
	w, err := BeginFiles(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	const n = 2000
	var want bytes.Buffer
	for i := range n {
		c := bufferedCase(i)
		if err := w.Append(c); err != nil {
			t.Fatal(err)
		}
		line, err := EncodeCase(c)
		if err != nil {
			t.Fatal(err)
		}
		want.Write(line)
	}
	if err := w.(Flusher).Flush(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, CasesFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("cases.jsonl after Flush is not the %d lines EncodeCase gives (%d bytes, want %d)", n, len(got), want.Len())
	}
	// One write per casesBufferSize bytes, and a few more for the timer
	// on a slow machine.
	if most := want.Len()/casesBufferSize + 10; cf.writes > most {
		t.Errorf("%d appends took %d writes; want at most %d", n, cf.writes, most)
	}
	if cf.torn {
		t.Error("a write ended inside a line")
	}
	if err := w.Finish(run); err != nil {
		t.Fatal(err)
	}
}

// A line appended and not followed by others reaches cases.jsonl by
// itself soon after (casesFlushAfter), for a reader of a run in progress
// and for a run killed then: the first line is written at once (nothing
// was written before it), the second waits in the buffer for the timer.
func TestCaseLinesWrittenWhileTheRunGoes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	run := &assay.Run{RunID: "r1", Options: assay.RunOptions{Trials: 1}}
	w, err := BeginFiles(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	defer w.(Releaser).Release()
	for i := 1; i <= 2; i++ {
		if err := w.Append(bufferedCase(i)); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	for {
		var ids []string
		if err := ReadResults(dir, func(r assay.CaseResult) error { ids = append(ids, r.ID); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(ids) == 2 && ids[0] == "q00001" && ids[1] == "q00002" {
			t.Logf("the lines were read back after %v", time.Since(start))
			return
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("the cases appended are not in cases.jsonl after 5 s (read %v)", ids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A suite case is kept as json.Marshal writes it, one line each, and its
// encoding allocates only the copy of the case the encoder is given (not
// the line: it is encoded into a buffer the writer keeps).
func TestSuiteCaseLineIsMarshalsAndReusesItsBuffer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	run := &assay.Run{RunID: "r1", Options: assay.RunOptions{Trials: 1}}
	w, err := BeginFiles(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	sw := w.(SuiteCaseWriter)
	var want bytes.Buffer
	c := assay.Case{ID: "q<1>", Query: "tea & <kettles>"}
	for i := range 3 {
		c.ID = fmt.Sprintf("q<%d>", i)
		if err := sw.AppendSuiteCase(c); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(&c)
		if err != nil {
			t.Fatal(err)
		}
		want.Write(append(b, '\n'))
	}
	allocs := testing.AllocsPerRun(200, func() {
		if err := sw.AppendSuiteCase(c); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 && !raceEnabled {
		t.Errorf("AppendSuiteCase allocated %.1f times a call; want at most 1", allocs)
	}
	if err := w.(Releaser).Release(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, SuiteCasesFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(got, want.Bytes()) {
		t.Errorf("suite-cases.jsonl starts\n%s\nwant\n%s", got[:min(len(got), want.Len())], want.Bytes())
	}
}
