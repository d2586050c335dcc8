package target

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// TestReplayReadsEachLineWhereItIs: the replay keeps where each line is,
// not its observation, so every case must come back exactly as the file
// holds it, whatever the order of the lines, their line endings (CRLF),
// blank lines and surrounding spaces.
func TestReplayReadsEachLineWhereItIs(t *testing.T) {
	lines := []string{
		`{"case": "b", "answer": "bee", "latency_ms": 2}`,
		"",
		`   {"case": "a", "trial": 1, "answer": "a one"}  `,
		`{"case": "a", "answer": "a zero", "retrieved": [{"id": "d1", "score": 1.5}]}` + "\r",
		"\t",
		`{"case": "c", "turn": 1, "answer": "c turn one"}`,
		`{"case": "c", "answer": "c turn zero"}`,
	}
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	all, err := ReadTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := OpenReplay(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if len(all) != 5 || len(r.index) != 5 {
		t.Fatalf("read %d observations, indexed %d lines, want 5 each", len(all), len(r.index))
	}
	// Backwards, so that no case is read in file order.
	for i := len(all) - 1; i >= 0; i-- {
		want := all[i]
		ctx := assay.WithTrial(context.Background(), want.Trial)
		got, err := r.Observe(ctx, assay.Case{ID: want.Case, Turn: want.Turn})
		if err != nil {
			t.Fatalf("case %q trial %d turn %d: %v", want.Case, want.Trial, want.Turn, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("case %q trial %d turn %d replayed as %+v, want %+v", want.Case, want.Trial, want.Turn, got, want)
		}
	}
	_, err = r.Observe(context.Background(), assay.Case{ID: "zz"})
	if e := assay.AsError(err); e == nil || e.Class != assay.ErrMissing {
		t.Errorf("a case with no line: %v, want class missing", err)
	}
}

// TestReplayNoticesAChangedFile: a line rewritten after OpenReplay read
// the file is an error naming the line, never another case's answer.
func TestReplayNoticesAChangedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, []byte(`{"case": "a", "answer": "x"}`+"\n"+`{"case": "b", "answer": "y"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReplay(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := os.WriteFile(path, []byte(`{"case": "b", "answer": "y"}`+"\n"+`{"case": "a", "answer": "x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := r.Observe(context.Background(), assay.Case{ID: "a"})
	if err == nil || !strings.HasPrefix(err.Error(), path+":1: ") {
		t.Fatalf("observed %+v, %v; want an error at %s:1", o, err, path)
	}
}

// TestReplayIntoItsOwnTrace: a run may record into the trace it replays;
// the recorder makes a new file, and the replay keeps reading the old one.
func TestReplayIntoItsOwnTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, []byte(`{"case": "a", "answer": "x"}`+"\n"+`{"case": "b", "answer": "y"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReplay(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rec, err := NewRecorder(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"b", "a"} {
		o, err := r.Observe(context.Background(), assay.Case{ID: id})
		if err != nil {
			t.Fatalf("case %s after the recorder began: %v", id, err)
		}
		if err := rec.Write(o); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Case != "b" || got[0].Answer != "y" || got[1].Case != "a" || got[1].Answer != "x" {
		t.Fatalf("recorded %+v, want b then a with their answers", got)
	}
}
