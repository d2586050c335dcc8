package trec

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assay-eval/assay/internal/trecgen"
)

func generated(tb testing.TB, queries, depth int, shuffle bool) map[string]string {
	tb.Helper()
	p := trecgen.Defaults()
	p.Queries, p.Depth, p.Shuffle, p.UnjudgedFrac = queries, depth, shuffle, 0.05
	var q, r bytes.Buffer
	if err := trecgen.Write(&q, &r, p); err != nil {
		tb.Fatal(err)
	}
	return map[string]string{"q": q.String(), "r": r.String(), "<stdin>": r.String()}
}

// countingFile is a seekable in-memory file that adds the bytes read from
// it to *n.
type countingFile struct {
	*strings.Reader
	n *int64
}

func (f countingFile) Read(p []byte) (int, error) {
	k, err := f.Reader.Read(p)
	*f.n += int64(k)
	return k, err
}

func (countingFile) Close() error { return nil }

// runCounting runs Main on files and returns its output and the number of
// bytes it read from the run file "r".
func runCounting(t *testing.T, files map[string]string, args string) (string, int64) {
	t.Helper()
	var read int64
	sys, out, errb := memIO(files, files["<stdin>"])
	sys.Open = func(name string) (io.ReadCloser, error) {
		s, ok := files[name]
		if !ok {
			return nil, fs.ErrNotExist
		}
		f := countingFile{strings.NewReader(s), new(int64)}
		if name == "r" {
			f.n = &read
		}
		return f, nil
	}
	if code := Main(strings.Fields(args), sys); code != 0 {
		t.Fatalf("%s: exit %d: %s", args, code, errb.String())
	}
	return out.String(), read
}

// An interleaved run (several 1 MiB chunks, so several parsers store its
// lines at once) gives the output of its grouped form through each path:
// one collecting pass when the file is within passBytes, passes over parts
// of the topics when it is not, and standard input; with every option that
// changes the ranking.
func TestGeneratedPathsAgree(t *testing.T) {
	grouped := generated(t, 200, 500, false)
	shuffled := generated(t, 200, 500, true)
	size := int64(len(shuffled["r"]))
	if size < 3*chunkSize {
		t.Fatalf("the run has %d bytes, want several chunks", size)
	}
	budget := passBytes
	defer func() { passBytes = budget }()
	for _, args := range []string{"-q -m all_trec", "-q -c -m all_trec", "-q -c -J -m all_trec", "-q -l2 -M50 -m all_trec"} {
		passBytes = budget
		want, _ := runCounting(t, grouped, args+" q r")
		if n := strings.Count(want, "\n"); n < 150*90 {
			t.Fatalf("%s: only %d lines", args, n)
		}
		t.Run(args+"/one pass", func(t *testing.T) {
			got, read := runCounting(t, shuffled, args+" q r")
			if got != want {
				t.Errorf("differs from the grouped run:\n%s", lineDiff(want, got))
			}
			// The eager attempt reads at most the file, the collecting pass
			// the file once.
			if read > 2*size {
				t.Errorf("read %d bytes of a %d-byte run, want one collecting pass", read, size)
			}
		})
		t.Run(args+"/parts", func(t *testing.T) {
			passBytes = size / 3 // four passes
			got, read := runCounting(t, shuffled, args+" q r")
			passBytes = budget
			if got != want {
				t.Errorf("differs from the grouped run:\n%s", lineDiff(want, got))
			}
			if read < 4*size {
				t.Errorf("read %d bytes of a %d-byte run, want four passes", read, size)
			}
		})
		t.Run(args+"/stdin", func(t *testing.T) {
			for name, files := range map[string]map[string]string{"interleaved": shuffled, "grouped": grouped} {
				if got, _ := runCounting(t, files, args+" q -"); got != want {
					t.Errorf("%s run from stdin differs:\n%s", name, lineDiff(want, got))
				}
			}
		})
	}
}

// A malformed line deep in an interleaved run (a later chunk, while other
// chunks are being parsed and stored) is reported with its data line
// number, from a file and from standard input, and the reader stops.
func TestGeneratedMalformedLineWhileCollecting(t *testing.T) {
	t.Parallel()
	files := generated(t, 200, 500, true)
	r := files["r"]
	at := strings.IndexByte(r[5*len(r)/8:], '\n') + 5*len(r)/8 + 1 // start of a line
	end := at + strings.IndexByte(r[at:], '\n')
	line := strings.Count(r[:at], "\n") + 1
	bad := r[:at] + strings.Join(strings.Fields(r[at:end])[:4], " ") + r[end:]
	files["r"], files["<stdin>"] = bad, bad
	for _, runName := range []string{"r", "-"} {
		code, out, errs := run(t, files, "-q q "+runName)
		want := fmt.Sprintf("trec_eval.get_results: Malformed line %d\ntrec_eval: Quit in file '%s'\n", line, runName)
		if code != 2 || out != "" || errs != want {
			t.Errorf("%s: exit %d, stdout %d bytes, stderr %q; want 2, none, %q", runName, code, len(out), errs, want)
		}
	}
}

// A parser that is descheduled on a chunk does not let the others run
// ahead of it: the chunks parsed meanwhile wait, with their bytes, for the
// in-order loop, and at most a few may (one scratch each). Before, they
// ran to the end of the file, and on a loaded machine the results waiting
// for one stalled parser held 100 MiB of the 7M-line pair.
func TestStalledParserBoundsChunksAhead(t *testing.T) {
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 {
		t.Skip("one parser: nothing can run ahead")
	}
	files := generated(t, 1000, 300*max(workers, 2), false) // about 10 chunks a parser
	var parsed, ahead atomic.Int32
	parseHook = func(idx int) {
		if idx == 0 {
			time.Sleep(300 * time.Millisecond)
			ahead.Store(parsed.Load())
			return
		}
		parsed.Add(1)
	}
	defer func() { parseHook = nil }()
	if chunks := len(files["r"]) / chunkSize; chunks < 4*(workers+2) {
		t.Fatalf("the run has %d chunks, want at least %d", chunks, 4*(workers+2))
	}
	if code, _, errs := run(t, files, "q r"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if limit := int32(workers + 1); ahead.Load() > limit {
		t.Errorf("%d chunks were parsed while chunk 0 was held, want at most %d", ahead.Load(), limit)
	}
}

// A chunk none of whose topics is in the qrels gives its buffer back as
// soon as it is parsed; its run tag must be copied before, or the next
// reader's bytes become the tag (a data race CI's race pass caught).
func TestTagOfAChunkWithNoKeptTopicIsCopiedBeforeItsBufferGoesBack(t *testing.T) {
	q, err := ParseQrels([]byte("1 0 a 1\n"), "q")
	if err != nil {
		t.Fatal(err)
	}
	poisonFreed = true
	defer func() { poisonFreed = false }()
	buf := getBuf()
	line := "9 Q0 a 1 1 mytag\n"
	n := copy(buf, line)
	res := parseChunk(chunk{data: buf[:n]}, q, &parseScratch{parts: 1})
	if len(res.segs) != 0 || res.lines != 1 {
		t.Fatalf("segments %d, lines %d; want 0 and 1", len(res.segs), res.lines)
	}
	if string(res.tag) != "mytag" {
		t.Errorf("tag %q, want %q", res.tag, "mytag")
	}
}
