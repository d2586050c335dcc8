package target

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/hybridtest"
	"github.com/assay-eval/assay/internal/shareddata"
	"github.com/assay-eval/assay/llm/llmtest"
)

// sciFactCorpus reads the 5,183 SciFact documents.
func sciFactCorpus(t testing.TB) []assay.Document {
	t.Helper()
	f, err := os.Open(filepath.Join(shareddata.Dir(t), "datasets", "scifact", "corpus.jsonl.gz"))
	if err != nil {
		t.Skipf("scifact: %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var docs []assay.Document
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var d struct {
			ID    string `json:"_id"`
			Title string `json:"title"`
			Text  string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, assay.Document{ID: d.ID, Title: d.Title, Text: d.Text})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return docs
}

// TestHybridSciFactIndexingRequests indexes SciFact with 64-dimensional
// vectors from the stand-in (the count of requests does not depend on the
// dimension; 768 took twice the CPU), batch 128: at most ceil(5183/128) = 41
// embeddings requests, and none when the cache has the vectors.
func TestHybridSciFactIndexingRequests(t *testing.T) {
	if testing.Short() {
		t.Skip("dataset test")
	}
	docs := sciFactCorpus(t)
	srv := llmtest.New(t, llmtest.Handlers{Embed: func(s string) []float32 { return hybridtest.Dense(s, 8) }})
	s := &assay.Suite{Name: "scifact", Corpus: docs, Embeddings: &assay.ModelEndpoint{URL: srv.URL, Model: "dense-8", Batch: 128}}
	dir := t.TempDir()
	for run, want := range []int{(len(docs) + 127) / 128, 0} {
		srv.Reset()
		start := time.Now()
		tg, err := Open("builtin:hybrid", Options{Suite: s, CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if err := tg.(*Builtin).Setup(context.Background()); err != nil {
			t.Fatal(err)
		}
		got := srv.Count(llmtest.EmbedPath)
		t.Logf("run %d: %d documents, %d embeddings requests (%d inputs), %v", run+1, len(docs), got, len(docs)-int(tg.(*Builtin).Measures()["embed_cached"]), time.Since(start).Round(time.Millisecond))
		if got != want {
			t.Errorf("run %d: %d embeddings requests while indexing, want %d", run+1, got, want)
		}
		if run == 0 && len(docs) != 5183 {
			t.Errorf("%d SciFact documents, want 5183", len(docs))
		}
	}
}
