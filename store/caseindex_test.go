package store_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/largetest"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/storetest"
)

// indexedRun writes a finished run of n cases with trials trials each, the
// trials of a case interleaved with other cases' (as a concurrent run
// appends them), each observation about kb KiB, into a new directory; it
// returns the directory.
func indexedRun(t testing.TB, n, trials, kb int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	run := storetest.NewRun("kb", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	w, err := store.BeginFiles(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("x", kb<<10)
	for tr := range trials {
		for i := range n {
			c := storetest.Case(fmt.Sprintf("q%05d", (i*7+tr*3)%n), i%4 != 0, 0.5)
			c.Trial = tr
			c.Observation.Answer = fmt.Sprintf("answer %d/%d %s", i, tr, text)
			if err := w.Append(c); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Finish(run); err != nil {
		t.Fatal(err)
	}
	return dir
}

// streamed is the lines of case id as ReadCases gives them.
func streamed(t testing.TB, dir, id string) []assay.CaseResult {
	t.Helper()
	var out []assay.CaseResult
	err := store.ReadCases(dir, func(r assay.CaseResult) error {
		if r.ID == id {
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func readCase(t testing.TB, dir, id string) []assay.CaseResult {
	t.Helper()
	var out []assay.CaseResult
	if err := store.ReadCase(dir, id, true, func(r assay.CaseResult) error { out = append(out, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTrials(a, b []assay.CaseResult) bool {
	return slices.EqualFunc(a, b, func(x, y assay.CaseResult) bool {
		return x.ID == y.ID && x.Trial == y.Trial && x.Observation != nil && y.Observation != nil && x.Observation.Answer == y.Observation.Answer
	})
}

// gzMembers counts the gzip members of a file.
func gzMembers(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	br := bytes.NewReader(b)
	n := 0
	for br.Len() > 0 {
		zr, err := gzip.NewReader(br)
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		if _, err := io.Copy(io.Discard, zr); err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

func TestReadCaseGivesWhatTheStreamGives(t *testing.T) {
	dir := indexedRun(t, 300, 3, 2)
	if _, err := os.Stat(filepath.Join(dir, store.CaseIndexFile)); err != nil {
		t.Fatalf("Finish wrote no case index: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, store.CasesFile)); err == nil {
		t.Fatalf("%s left beside the compressed file", store.CasesFile)
	}
	if n := gzMembers(t, filepath.Join(dir, store.CasesGzFile)); n < 10 {
		t.Fatalf("cases.jsonl.gz has %d gzip members; want one per 64 KiB of lines (>= 10 here)", n)
	}
	// The stream read once, by case (reading it again for each of the 300
	// cases made this test quadratic).
	byID := map[string][]assay.CaseResult{}
	if err := store.ReadCases(dir, func(r assay.CaseResult) error {
		byID[r.ID] = append(byID[r.ID], r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		id := fmt.Sprintf("q%05d", i)
		got, want := readCase(t, dir, id), byID[id]
		if len(want) != 3 || !sameTrials(got, want) {
			t.Fatalf("ReadCase(%s) = %d trials, the stream has %d (%v vs %v)", id, len(got), len(want), trials(got), trials(want))
		}
	}
	if got := readCase(t, dir, "nope"); len(got) != 0 {
		t.Errorf("ReadCase of an id the run lacks gave %d trials", len(got))
	}
}

func trials(rs []assay.CaseResult) []string {
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%s/%d", r.ID, r.Trial))
	}
	return out
}

// A case is read in the members that hold it: a member that does not
// hold it can be damaged and the case still reads, while the whole file
// no longer does.
func TestReadCaseReadsOnlyItsMembers(t *testing.T) {
	dir := indexedRun(t, 300, 1, 2)
	gz := filepath.Join(dir, store.CasesGzFile)
	want := readCase(t, dir, "q00000")
	if len(want) != 1 {
		t.Fatalf("q00000: %d trials", len(want))
	}
	b, err := os.ReadFile(gz)
	if err != nil {
		t.Fatal(err)
	}
	// q00000 is the first line: damage the file's last quarter.
	for i := len(b) * 3 / 4; i < len(b)-16; i += 7 {
		b[i] ^= 0x5a
	}
	if err := os.WriteFile(gz, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := store.ReadCases(dir, func(assay.CaseResult) error { return nil }); err == nil {
		t.Fatal("ReadCases of the damaged file: no error; the test damages nothing")
	}
	if got := readCase(t, dir, "q00000"); !sameTrials(got, want) {
		t.Errorf("ReadCase after damage elsewhere = %v; want %v", trials(got), trials(want))
	}
}

// Runs without a usable index are read by streaming: written before the
// index existed (no file), or with an index that is not this file's.
func TestReadCaseWithoutUsableIndexStreams(t *testing.T) {
	for name, spoil := range map[string]func(t *testing.T, dir string){
		"no index": func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, store.CaseIndexFile)); err != nil {
				t.Fatal(err)
			}
		},
		"index of another file": func(t *testing.T, dir string) {
			// cases.jsonl.gz written again as one member: another size.
			var lines bytes.Buffer
			if err := store.ReadCases(dir, func(r assay.CaseResult) error {
				b, err := store.EncodeCase(r)
				lines.Write(b)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(lines.Bytes())
			zw.Close()
			if err := os.WriteFile(filepath.Join(dir, store.CasesGzFile), z.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"truncated index": func(t *testing.T, dir string) {
			p := filepath.Join(dir, store.CaseIndexFile)
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, fi.Size()-7); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := indexedRun(t, 100, 2, 2)
			spoil(t, dir)
			for _, id := range []string{"q00000", "q00042", "q00099"} {
				if got, want := readCase(t, dir, id), streamed(t, dir, id); len(want) != 2 || !sameTrials(got, want) {
					t.Errorf("ReadCase(%s) = %v; want %v", id, trials(got), trials(want))
				}
			}
		})
	}
}

// A run still being written has cases.jsonl and no index: ReadCase reads
// it as ReadCases does.
func TestReadCaseOfARunBeingWritten(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	run := storetest.NewRun("kb", time.Now())
	w, err := store.BeginFiles(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "a"} {
		if err := w.Append(storetest.Case(id, true, 1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.(store.Flusher).Flush(); err != nil {
		t.Fatal(err)
	}
	if got := readCase(t, dir, "a"); len(got) != 2 {
		t.Errorf("ReadCase(a) of a run being written: %d trials, want 2", len(got))
	}
	if err := w.Finish(run); err != nil {
		t.Fatal(err)
	}
	if got := readCase(t, dir, "a"); len(got) != 2 {
		t.Errorf("ReadCase(a) once finished: %d trials, want 2", len(got))
	}
}

// A line longer than the reader's buffer keeps its case indexed, and a
// run without cases still has a valid (empty) gzip file and index.
func TestCaseIndexLongLinesAndEmptyRuns(t *testing.T) {
	dir := indexedRun(t, 5, 1, 300)
	if _, err := os.Stat(filepath.Join(dir, store.CaseIndexFile)); err != nil {
		t.Fatalf("no index for a run of 300 KiB lines: %v", err)
	}
	for i := range 5 {
		id := fmt.Sprintf("q%05d", i)
		if got, want := readCase(t, dir, id), streamed(t, dir, id); len(got) != 1 || !sameTrials(got, want) {
			t.Errorf("ReadCase(%s) = %v; want %v", id, trials(got), trials(want))
		}
	}
	empty := indexedRun(t, 0, 1, 1)
	if got := readCase(t, empty, "q00000"); len(got) != 0 {
		t.Errorf("ReadCase of an empty run: %v", trials(got))
	}
	if err := store.ReadCases(empty, func(assay.CaseResult) error { return errors.New("a case") }); err != nil {
		t.Errorf("ReadCases of an empty run: %v", err)
	}
}

// The files stores read one case through CaseReader; an unknown run is
// ErrNotFound.
func TestRunCaseOfAStore(t *testing.T) {
	root := t.TempDir()
	s, err := store.OpenFiles(root, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run := storetest.NewRun("kb", time.Now())
	w, err := s.Begin(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"q1", "q2", "q1"} {
		if err := w.Append(storetest.Case(id, true, 1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(run); err != nil {
		t.Fatal(err)
	}
	var cr store.CaseReader = s
	var got []string
	err = cr.CaseTrials(context.Background(), run.RunID, "q1", false, func(r assay.CaseResult) error {
		if r.Observation != nil {
			t.Error("an observation decoded without withObservations")
		}
		got = append(got, r.ID)
		return nil
	})
	if err != nil || len(got) != 2 {
		t.Errorf("CaseTrials(q1) = %v, %v; want two trials", got, err)
	}
	if err := cr.CaseTrials(context.Background(), store.NewRunID(), "q1", false, func(assay.CaseResult) error { return nil }); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CaseTrials of an unknown run: %v; want ErrNotFound", err)
	}
}

// FuzzCaseIndex: whatever cases.idx holds, ReadCase neither panics nor
// hangs, and gives only lines of the case asked for.
func FuzzCaseIndex(f *testing.F) {
	dir := indexedRun(f, 40, 2, 8)
	good, err := os.ReadFile(filepath.Join(dir, store.CaseIndexFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good, "q00003")
	f.Add(good[:30], "q00003")
	f.Add([]byte("ASSAYCX1"), "q00001")
	f.Add([]byte("ASSAYCX2"), "q00001")
	f.Add(append(good[:len(good):len(good)], 1, 2, 3), "q00007")
	f.Fuzz(func(t *testing.T, idx []byte, id string) {
		d := dir // its cases.jsonl.gz, with idx for an index
		if err := os.WriteFile(filepath.Join(d, store.CaseIndexFile), idx, 0o644); err != nil {
			t.Fatal(err)
		}
		store.ReadCase(d, id, false, func(r assay.CaseResult) error {
			if r.ID != id {
				t.Fatalf("ReadCase(%q) gave a line of %q", id, r.ID)
			}
			return nil
		})
	})
}

// BenchmarkReadCase reads one case of a 10,000-case run through its case
// index; BenchmarkReadCaseStreamed the same case by streaming every line
// (a run without the index).
func BenchmarkReadCase(b *testing.B)         { benchReadCase(b, 10_000, true) }
func BenchmarkReadCaseStreamed(b *testing.B) { benchReadCase(b, 10_000, false) }

// BenchmarkReadCase100k is BenchmarkReadCase on a 100,000-case run.
func BenchmarkReadCase100k(b *testing.B) {
	largetest.Skip(b, "stores a 100,000-case run")
	benchReadCase(b, 100_000, true)
}

func benchReadCase(b *testing.B, n int, indexed bool) {
	dir := indexedRun(b, n, 1, 1)
	if !indexed {
		if err := os.Remove(filepath.Join(dir, store.CaseIndexFile)); err != nil {
			b.Fatal(err)
		}
	}
	id := fmt.Sprintf("q%05d", n*3/4)
	b.ReportAllocs()
	for b.Loop() {
		if got := readCase(b, dir, id); len(got) != 1 {
			b.Fatalf("%s: %d trials", id, len(got))
		}
	}
}

// The suite cases of a run still going (or killed: its writer is never
// finished) reach suite-cases.jsonl within a moment of being appended,
// buffered or not: another process reads them there.
func TestSuiteCasesWrittenWhileTheRunGoes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	run := storetest.NewRun("kb", time.Now())
	w, err := store.BeginFiles(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	defer w.(store.Releaser).Release()
	sw := w.(store.SuiteCaseWriter)
	for _, id := range []string{"q1", "q2"} {
		if err := w.Append(storetest.Case(id, true, 1)); err != nil {
			t.Fatal(err)
		}
		if err := sw.AppendSuiteCase(assay.Case{ID: id, Query: "query of " + id}); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	for {
		c, err := store.ReadSuiteCase(dir, "q2")
		if err != nil {
			t.Fatal(err)
		}
		if c != nil {
			if c.Query != "query of q2" {
				t.Errorf("ReadSuiteCase(q2) = %+v", c)
			}
			t.Logf("q2 read back after %v", time.Since(start))
			return
		}
		if time.Since(start) > 5*time.Second {
			t.Fatal("the suite case appended is not in suite-cases.jsonl after 5 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A run keeps each case as its suite stated it; ReadSuiteCase reads one
// back through its index, and a run without them gives nil.
func TestReadSuiteCase(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	run := storetest.NewRun("kb", time.Now())
	w, err := store.BeginFiles(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	sw, ok := w.(store.SuiteCaseWriter)
	if !ok {
		t.Fatal("the files run writer does not keep suite cases")
	}
	yes := true
	for i := range 2000 {
		id := fmt.Sprintf("q%05d", i)
		if err := w.Append(storetest.Case(id, true, 1)); err != nil {
			t.Fatal(err)
		}
		c := assay.Case{ID: id, Query: "query of " + id + strings.Repeat(" padding", 20), Judgments: map[string]int{"d" + id: 2}}
		c.Expect.CaseSensitive = &yes
		if err := sw.AppendSuiteCase(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(run); err != nil {
		t.Fatal(err)
	}
	if n := gzMembers(t, filepath.Join(dir, store.SuiteCasesGzFile)); n < 2 {
		t.Fatalf("suite-cases.jsonl.gz has %d members", n)
	}
	c, err := store.ReadSuiteCase(dir, "q01234")
	if err != nil || c == nil {
		t.Fatalf("ReadSuiteCase(q01234) = %v, %v", c, err)
	}
	if !strings.HasPrefix(c.Query, "query of q01234 ") || c.Judgments["dq01234"] != 2 || c.Expect.CaseSensitive == nil || !*c.Expect.CaseSensitive {
		t.Errorf("ReadSuiteCase(q01234) = %+v", c)
	}
	if c, err := store.ReadSuiteCase(dir, "nope"); c != nil || err != nil {
		t.Errorf("ReadSuiteCase(nope) = %v, %v; want nil, nil", c, err)
	}
	if c, err := store.ReadSuiteCase(indexedRun(t, 3, 1, 1), "q00001"); c != nil || err != nil {
		t.Errorf("ReadSuiteCase of a run without suite cases = %v, %v; want nil, nil", c, err)
	}
}
