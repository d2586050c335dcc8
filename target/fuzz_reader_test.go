package target

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// positioned matches an error of a line reader that names the file and,
// past opening it, the line: "PATH:LINE[:COL]: msg".
func positioned(path string) *regexp.Regexp {
	return regexp.MustCompile(`^` + regexp.QuoteMeta(path) + `:[0-9]+(:[0-9]+)?: `)
}

// FuzzOpenReplay: any bytes in a trace file give a replay target or one
// positioned line; a case the trace loaded is replayed as recorded (its
// case id and trial come back), never a panic.
func FuzzOpenReplay(f *testing.F) {
	f.Add([]byte(`{"case": "q1", "trial": 0, "answer": "a", "retrieved": [{"id": "d", "score": 1}], "latency_ms": 12.5}` + "\n"))
	f.Add([]byte("{\"case\": \"q1\"}\n{\"case\": \"q1\"}\n"))
	f.Add([]byte("{\"case\": \"q1\", \"trial\": -1}\n\n{\"case\":"))
	f.Add([]byte(`{"case": "q2", "latency_ms": -3, "error": {"class": "timeout", "message": "x"}}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "trace.jsonl")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := OpenReplay(path)
		if err != nil {
			msg := err.Error()
			if strings.Contains(msg, "\n") || !positioned(path).MatchString(msg) {
				t.Fatalf("error is not one positioned line: %q", msg)
			}
			return
		}
		defer r.Close()
		for k := range r.index {
			ctx := assay.WithTrial(context.Background(), k.t)
			o, _ := r.Observe(ctx, assay.Case{ID: k.c, Turn: k.turn})
			if o.Case != k.c || o.Trial != k.t {
				t.Fatalf("replayed %q trial %d as %q trial %d", k.c, k.t, o.Case, o.Trial)
			}
		}
	})
}

// FuzzOpenTrecRun: any bytes in a run file give a trec: target or one
// positioned line; every ranking it loaded is in trec_eval's order (score
// descending, then docno descending) with no docno twice.
func FuzzOpenTrecRun(f *testing.F) {
	f.Add([]byte("q1 Q0 a 1 2.5 t\nq1 Q0 b 2 1.5 t\nq2 Q0 a 1 1 t\n"))
	f.Add([]byte("q1 Q0 a 1 1 t\nq1 Q0 a 2 1 t\n"))
	f.Add([]byte("q1 Q0 a 1 nan t\nq1 Q0 b 1 1e400 t\n\n  \nq1 Q0 c\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "run.txt")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := OpenTrecRun(path)
		if err != nil {
			msg := err.Error()
			if strings.Contains(msg, "\n") || !positioned(path).MatchString(msg) {
				t.Fatalf("error is not one positioned line: %q", msg)
			}
			return
		}
		for qid, hits := range r.runs {
			seen := map[string]bool{}
			for i, h := range hits {
				if seen[h.ID] {
					t.Fatalf("topic %q: docno %q twice", qid, h.ID)
				}
				seen[h.ID] = true
				if i > 0 && (hits[i-1].Score < h.Score || hits[i-1].Score == h.Score && hits[i-1].ID < h.ID) {
					t.Fatalf("topic %q: %v before %v", qid, hits[i-1], h)
				}
			}
		}
	})
}

// FuzzOpenFile: any bytes in a target file on disk (the bounded reader,
// then the parser) give a target or one line that names the file.
func FuzzOpenFile(f *testing.F) {
	f.Add([]byte("http:\n  url: http://127.0.0.1:9/ask\n  max_body: 1.5KiB\n  retries: 3\n  timeout: 2s\n"))
	f.Add([]byte("command: {run: [cat], max_body: 0.5B, workers: 4294967297}\n"))
	f.Add([]byte("http:\n  url: http://127.0.0.1:9/ask\n  max_body: 99999999999999999999GiB\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "t.yaml")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		tg, err := Open(path, Options{Getenv: func(string) string { return "v" }, AllowLiteralSecrets: true})
		if err != nil {
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.Contains(msg, path) {
				t.Fatalf("error is not one line naming the file: %q", msg)
			}
			return
		}
		if err := Close(tg); err != nil {
			t.Fatal(err)
		}
	})
}
