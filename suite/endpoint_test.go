package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEmbeddingsAndRerankBlocks(t *testing.T) {
	const head = "assay: 1\nname: h\ncorpus: [{id: d, text: hello}]\n"
	const tail = "cases:\n  - {id: q, query: hello, relevant: [d]}\n"
	load := func(t *testing.T, block string) error {
		t.Helper()
		p := filepath.Join(t.TempDir(), "s.yaml")
		os.WriteFile(p, []byte(head+block+tail), 0o644)
		s, err := Load(p)
		if err == nil && strings.Contains(block, "embeddings") {
			e := s.Embeddings
			if e == nil || e.URL != "${EMB_URL}" || e.Model != "m" || e.APIKey != "${K}" || e.Dimensions != 8 || e.Batch != 16 || e.Pos["api_key"] != p+":4:78" {
				t.Errorf("embeddings %+v", e)
			}
			if s.Rerank == nil || s.Rerank.URL != "http://127.0.0.1:9/v1" {
				t.Errorf("rerank %+v", s.Rerank)
			}
		}
		if err != nil {
			return err
		}
		return nil
	}
	ok := "embeddings: {url: \"${EMB_URL}\", model: m, dimensions: 8, batch: 16, api_key: \"${K}\"}\nrerank: {url: \"http://127.0.0.1:9/v1\", model: r}\n"
	if err := load(t, ok); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ block, err string }{
		{"embeddings: {model: m}\n", ":4:13: embeddings: missing \"url\""},
		{"embeddings: {url: \"ftp://x\", model: m}\n", ":4:19: embeddings.url: want an http:// or https:// base URL"},
		{"embeddings: {url: \"http://u:p@x/v1\", model: m}\n", ":4:19: embeddings.url: user info in the URL"},
		{"embeddings: {url: \"http://x/v1\", model: m, api_key: sk-123}\n", ":4:53: embeddings.api_key: write the key as ${VAR}"},
		{"embeddings: {url: \"http://x/v1\", model: m, batch: 5000}\n", ":4:51: embeddings.batch: must be 1..2048, got 5000"},
		{"rerank: {url: \"http://x/v1\", modle: m}\n", "modle"},
		{"embeddings: http://x\n", ":4:13: embeddings: want a mapping"},
	} {
		err := load(t, c.block)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: err %v, want %q", c.block, err, c.err)
		}
	}
}
