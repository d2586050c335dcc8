package corpus

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay/internal/boundedfile"
)

// gzipMember is data compressed as one gzip member. A gzip reader reads
// members written one after another as one stream, so the tests below
// compress a repeated block once and write its member as many times as
// they need, instead of compressing tens of megabytes afresh.
func gzipMember(t *testing.T, data string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(data))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// writeGzip writes a .jsonl.gz that decompresses to at least n bytes of
// chunk repeated (written in 1 MiB members, never held whole).
func writeGzip(t *testing.T, n int, chunk string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.jsonl.gz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	block := strings.Repeat(chunk, (1<<20)/len(chunk))
	member := gzipMember(t, block)
	for written := 0; written < n; written += len(block) {
		f.Write(member)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// A gzip corpus whose one line decompresses past MaxLine is an error at
// that line, not a line held whole (it used to grow without bound).
func TestGzipCorpusLineIsBounded(t *testing.T) {
	t.Parallel()
	p := writeGzip(t, boundedfile.MaxLine+(1<<20), "\x00")
	_, err := Load(p)
	want := p + ":1: larger than the 64 MiB limit for a line"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

// A gzip corpus that decompresses past its limit is an error, even when
// its lines are short (blank lines hold nothing, so only the limit stops
// them).
func TestGzipCorpusDecompressedSizeIsBounded(t *testing.T) {
	saved := boundedfile.CorpusGzip.Max
	boundedfile.CorpusGzip.Max = 4 << 20
	defer func() { boundedfile.CorpusGzip.Max = saved }()
	p := writeGzip(t, 8<<20, "\n")
	_, err := Load(p)
	if err == nil || !strings.HasSuffix(err.Error(), ": larger than the 4 MiB limit for a decompressed corpus") || !strings.HasPrefix(err.Error(), p+":") {
		t.Fatalf("err = %v", err)
	}
}

// A document of a corpus directory larger than its limit is refused from
// its size, naming it.
func TestCorpusDocumentIsBounded(t *testing.T) {
	saved := boundedfile.CorpusDoc.Max
	boundedfile.CorpusDoc.Max = 1 << 10
	defer func() { boundedfile.CorpusDoc.Max = saved }()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.md"), []byte(strings.Repeat("x", 2<<10)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir)
	want := filepath.Join(dir, "big.md") + ": larger than the 1 KiB limit for a corpus document"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

// writeDocs writes a .jsonl.gz of n valid documents of size bytes each
// (one repeated letter: about a thousand times smaller compressed). Each
// line is three gzip members: its start, the text (compressed once) and
// its end.
func writeDocs(t *testing.T, n, size int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "docs.jsonl.gz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	text := gzipMember(t, strings.Repeat("a", size))
	end := gzipMember(t, "\"}\n")
	for i := range n {
		f.Write(gzipMember(t, fmt.Sprintf("{\"id\": \"d%d\", \"text\": \"", i)))
		f.Write(text)
		f.Write(end)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// A gzip corpus of valid documents that expands more than MaxGzipRatio
// times is refused once it passes GzipFree decompressed bytes, while it is
// read: its documents used to be held whole first (2.5 MB of gzip took
// 2.38 GB) because only the 8 GiB decompressed limit applied.
func TestGzipBombOfValidDocumentsIsRefusedWhileRead(t *testing.T) {
	t.Parallel()
	p := writeDocs(t, 96, 1<<20) // 96 MiB in about 100 KB
	_, err := Load(p)
	want := ": a decompressed corpus more than 100 times its compressed size (a gzip bomb?)"
	if err == nil || !strings.HasPrefix(err.Error(), p+":") || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, p+":LINE"+want)
	}
}

// A gzip corpus within GzipFree loads whatever its ratio.
func TestGzipCorpusWithinTheFreeSizeLoads(t *testing.T) {
	t.Parallel()
	p := writeDocs(t, 16, 1<<20)
	docs, err := Load(p)
	if err != nil || len(docs) != 16 {
		t.Fatalf("%d documents, err %v", len(docs), err)
	}
}
