//go:build unix

package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// The readers whose limit is only reached after much input (a pipe, a
// gzip corpus, embeddings vectors) refuse bad input while they read it,
// in memory that does not grow with the input: each test runs the binary
// on a hostile input of its class and checks its peak RSS against the
// binary's own (assay version), with the 256 MiB margin docs/limits.md
// promises. The figures are logged (go test -v) for docs/limits.md.

const readerMargin = 256 << 20

// binaryBase holds the binary's base peak RSS once measured: the three
// tests share one run of `assay version` (a start of the test binary).
var binaryBase struct {
	mu  sync.Mutex
	rss int64
}

// baseRSS is the peak RSS of `assay version`, the binary's base.
func baseRSS(t *testing.T) int64 {
	t.Helper()
	binaryBase.mu.Lock()
	defer binaryBase.mu.Unlock()
	if binaryBase.rss > 0 {
		return binaryBase.rss
	}
	code, out, _, rss := runBinary(t, t.TempDir(), nil, "version")
	if code != 0 {
		t.Fatalf("assay version: exit %d: %s", code, out)
	}
	binaryBase.rss = rss
	return rss
}

func checkBounded(t *testing.T, name string, code int, out string, rss, base int64, want string) {
	t.Helper()
	t.Logf("%s: exit %d, peak RSS %d MiB (base %d MiB, +%d MiB): %s", name, code, rss>>20, base>>20, (rss-base)>>20, strings.TrimSpace(out))
	if code != 2 || !strings.Contains(out, want) {
		t.Errorf("%s: exit %d, output %q, want exit 2 and %q", name, code, out, want)
	}
	if rss-base > readerMargin {
		t.Errorf("%s: peak RSS %d MiB, %d MiB above the base's %d MiB, want at most %d MiB above", name, rss>>20, (rss-base)>>20, base>>20, readerMargin>>20)
	}
}

// yes | assay lint /dev/stdin: the pipe is refused at its 256 MiB limit.
// It used to be held in a doubling buffer, 1.86 GB at its peak.
func TestPipedSuitePastItsLimitIsRefusedInBoundedMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs ru_maxrss in KiB")
	}
	base := baseRSS(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		block := []byte(strings.Repeat("y\n", 32<<10))
		for {
			if _, err := w.Write(block); err != nil {
				w.Close()
				return
			}
		}
	}()
	code, out, _, rss := runBinaryWithin(t, 2*time.Minute, t.TempDir(), r, "lint", "/dev/stdin")
	r.Close()
	checkBounded(t, "yes | assay lint /dev/stdin", code, out, rss, base, "/dev/stdin: larger than the 256 MiB limit for a suite file")
}

// A 2.5 MB gzip corpus of valid documents that expands a thousand times is
// refused while it is read; it used to be held whole (2.38 GB).
func TestGzipBombCorpusIsRefusedInBoundedMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs ru_maxrss in KiB")
	}
	base := baseRSS(t)
	dir := t.TempDir()
	// Each document is two gzip members (a gzip file may be several, read
	// one after the other): its head, and a text compressed once.
	// One writer, reset for each member: a new one at BestCompression
	// allocates about a megabyte, 2,400 times.
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	member := func(s string) []byte {
		b.Reset()
		zw.Reset(&b)
		zw.Write([]byte(s))
		zw.Close()
		return bytes.Clone(b.Bytes())
	}
	text := member(strings.Repeat("lorem ", 1<<20/6) + "\"}\n")
	var gz bytes.Buffer
	for i := range 2400 { // 2.4 GB of valid documents in about 2.5 MB
		gz.Write(member(fmt.Sprintf(`{"id": "d%d", "text": "`, i)))
		gz.Write(text)
	}
	t.Logf("corpus: %d bytes of gzip", gz.Len())
	if err := os.WriteFile(filepath.Join(dir, "docs.jsonl.gz"), gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	suite := "assay: 1\nname: s\ncorpus: docs.jsonl.gz\ncases:\n  - id: q1\n    query: lorem\n    relevant: [d1]\n"
	if err := os.WriteFile(filepath.Join(dir, "suite.yaml"), []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _, rss := runBinaryWithin(t, 2*time.Minute, dir, nil, "run", "suite.yaml", "--no-store")
	checkBounded(t, "assay run (gzip bomb corpus)", code, out, rss, base, "a decompressed corpus more than 100 times its compressed size")
}

// builtin:hybrid against an endpoint whose vectors have 200,000
// dimensions: refused at the first batch. The vectors of every document
// used to be collected before the 65,536 cap was checked (2.2 GB).
func TestEmbeddingVectorsPastTheCapAreRefusedInBoundedMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs ru_maxrss in KiB")
	}
	base := baseRSS(t)
	vector := "[" + strings.Repeat("0.5,", 200_000-1) + "0.5]"
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Input []string }
		if err := jsonDecode(r, &body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		requests++
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"model": "m", "data": [`)
		for i := range body.Input {
			if i > 0 {
				fmt.Fprint(w, ",")
			}
			fmt.Fprintf(w, `{"index": %d, "embedding": %s}`, i, vector)
		}
		fmt.Fprint(w, `]}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	var sb strings.Builder
	fmt.Fprintf(&sb, "assay: 1\nname: s\nembeddings: {url: %q, model: m, batch: 4}\ncorpus:\n", srv.URL+"/v1")
	for i := range 1000 {
		fmt.Fprintf(&sb, "  - {id: d%d, text: document %d}\n", i, i)
	}
	sb.WriteString("cases:\n  - id: q1\n    query: document\n    relevant: [d1]\n")
	if err := os.WriteFile(filepath.Join(dir, "suite.yaml"), []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, out, _, rss := runBinaryWithin(t, 2*time.Minute, dir, nil, "run", "suite.yaml", "--no-store", "--target", "builtin:hybrid")
	t.Logf("%d requests in %v", requests, time.Since(start).Round(time.Millisecond))
	checkBounded(t, "assay run --target builtin:hybrid (200,000 dimensions)", code, out, rss, base, "200000-dimensional vector, more than the 65536 dimensions")
	if requests != 1 {
		t.Errorf("%d embeddings requests, want 1", requests)
	}
}

func jsonDecode(r *http.Request, v any) error {
	return json.NewDecoder(r.Body).Decode(v)
}
