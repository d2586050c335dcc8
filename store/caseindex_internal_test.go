package store

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
)

// writeCaseIndexV1 writes the first form of the index ("ASSAYCX1"), as
// runs written before the second have it.
func writeCaseIndexV1(w io.Writer, gzSize int64, entries []caseIndexEntry) error {
	var b [caseIndexHeader]byte
	copy(b[:8], caseIndexMagicV1)
	binary.LittleEndian.PutUint64(b[8:], uint64(gzSize))
	binary.LittleEndian.PutUint64(b[16:], uint64(len(entries)))
	if _, err := w.Write(b[:]); err != nil {
		return err
	}
	var e [caseIndexEntrySize]byte
	for _, x := range entries {
		binary.LittleEndian.PutUint64(e[0:], x.hash)
		binary.LittleEndian.PutUint64(e[8:], x.off)
		binary.LittleEndian.PutUint32(e[16:], x.n)
		if _, err := w.Write(e[:]); err != nil {
			return err
		}
	}
	return nil
}

// finishedRun writes a finished run of n cases (two trials each, about
// 2 KiB of answer a line, so the lines span many gzip members) in a new
// directory.
func finishedRun(t *testing.T, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	run := &assay.Run{RunID: NewRunID(), Suite: assay.SuiteRef{Name: "kb"}, StartedAt: time.Now()}
	w, err := BeginFiles(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("x", 2<<10)
	for tr := range 2 {
		for i := range n {
			pass := true
			c := assay.CaseResult{ID: fmt.Sprintf("q%05d", (i*7+tr*3)%n), Trial: tr, Pass: &pass,
				Observation: &assay.Observation{Answer: fmt.Sprintf("answer %d/%d %s", i, tr, text)}}
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

// TestCaseIndexForms: a finished run's index is the second form, 8 bytes
// a case and 12 a member; a run written with the first form is read
// through it as before (only the members of the case are read: the rest
// of the file can be damaged).
func TestCaseIndexForms(t *testing.T) {
	const n = 300
	dir := finishedRun(t, n)
	gzPath := filepath.Join(dir, CasesGzFile)
	idx, err := os.ReadFile(filepath.Join(dir, CaseIndexFile))
	if err != nil {
		t.Fatal(err)
	}
	members := binary.LittleEndian.Uint32(idx[16:])
	if string(idx[:8]) != caseIndexMagic || members < 10 || len(idx) > caseIndexHeader+int(members)*caseIndexMember+2*n*caseIndexEntry2 {
		t.Fatalf("cases.idx: %q, %d members, %d bytes; want ASSAYCX2, >= 10 members, 8 bytes an entry", idx[:8], members, len(idx))
	}

	// The same file indexed in the first form.
	gz, err := os.ReadFile(gzPath)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	cw := &countWriter{w: &again}
	entries, err := writeMembers(cw, zr)
	if err != nil || entries == nil || !bytes.Equal(again.Bytes(), gz) {
		t.Fatalf("writing the members again: %v, %d entries, same bytes %v", err, len(entries), bytes.Equal(again.Bytes(), gz))
	}
	var v1 bytes.Buffer
	if err := writeCaseIndexV1(&v1, cw.n, entries); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, CaseIndexFile), v1.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	read := func(id string) []string {
		t.Helper()
		var got []string
		err := ReadCase(dir, id, true, func(r assay.CaseResult) error {
			got = append(got, fmt.Sprintf("%s/%d %.12s", r.ID, r.Trial, r.Observation.Answer))
			return nil
		})
		if err != nil {
			t.Fatalf("ReadCase(%s): %v", id, err)
		}
		return got
	}
	want := map[string][]string{}
	for _, id := range []string{"q00000", "q00150", "q00299"} {
		if want[id] = read(id); len(want[id]) != 2 {
			t.Fatalf("ReadCase(%s) through the first form: %v; want 2 trials", id, want[id])
		}
	}
	// q00000 is lines 1 and 472 of 600: damage the file from a fifth to
	// two fifths in.
	for i := len(gz) / 5; i < len(gz)*2/5; i += 7 {
		gz[i] ^= 0x5a
	}
	if err := os.WriteFile(gzPath, gz, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ReadCases(dir, func(assay.CaseResult) error { return nil }); err == nil {
		t.Fatal("ReadCases of the damaged file: no error; the test damages nothing")
	}
	if got := read("q00000"); fmt.Sprint(got) != fmt.Sprint(want["q00000"]) {
		t.Errorf("ReadCase(q00000) through the first form, damage elsewhere: %v; want %v", got, want["q00000"])
	}
}

// lineIDCases are lines lineID is given: case lines as caseLine writes
// them, and the others (escaped or non-ASCII ids, spaces, another first
// key, a fragment cut inside the id, not JSON at all).
var lineIDCases = []string{
	`{"id":"q1","trial":0}` + "\n",
	`{"id":"","pass":true}`,
	`{"id":"case-0001"`,
	`{"id":"a/b c~\u007f"}`,
	`{"id":"caf\u00e9"}`,
	"{\"id\":\"caf\u00e9\"}",
	`{"id":"a\"b"}`,
	`{"id":"a\\b"}`,
	"{\"id\":\"tab\there\"}",
	"{\"id\":\"bad \xff utf-8\"}",
	`{"id":"cut off`,
	`{ "id" : "spaced" }`,
	`{"trial":0,"id":"q1"}`,
	`{"id":1}`,
	`{"ID":"q1"}`,
	`["id","q1"]`,
	`{"id":"q1"}}}garbage`,
	``,
	`{`,
}

// TestLineIDSameAsDecoder: the id read without a decoder is the
// decoder's, and a line the decoder reads no id from has none.
func TestLineIDSameAsDecoder(t *testing.T) {
	for _, line := range lineIDCases {
		id, ok := lineID([]byte(line))
		did, dok := decodeLineID([]byte(line))
		if id != did || ok != dok {
			t.Errorf("lineID(%q) = %q, %v; the decoder reads %q, %v", line, id, ok, did, dok)
		}
	}
}

func FuzzLineID(f *testing.F) {
	for _, line := range lineIDCases {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		id, ok := lineID(line)
		did, dok := decodeLineID(line)
		if id != did || ok != dok {
			t.Errorf("lineID(%q) = %q, %v; the decoder reads %q, %v", line, id, ok, did, dok)
		}
	})
}
