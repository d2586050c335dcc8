package target

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/assay-eval/assay"
)

func TestReadMatrixExpandsEveryCombination(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "t.yaml")
	os.WriteFile(p, []byte("http: {url: http://127.0.0.1:1/x}\nvariants:\n  mode: [fast, thorough]\n  preset: [slim, quality]\nordering:\n  - \"ndcg@10: fast/slim <= thorough/quality\"\n  - \"mrr: fast/slim <= thorough/slim\"\n"), 0o644)
	m, err := ReadMatrix(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []map[string]string{
		{"mode": "fast", "preset": "slim"}, {"mode": "fast", "preset": "quality"},
		{"mode": "thorough", "preset": "slim"}, {"mode": "thorough", "preset": "quality"},
	}
	if !reflect.DeepEqual(m.Variants, want) || !reflect.DeepEqual(m.Keys, []string{"mode", "preset"}) {
		t.Fatalf("variants = %v keys = %v", m.Variants, m.Keys)
	}
	if len(m.Orderings) != 2 || m.Orderings[1].Source != p+":7:5" {
		t.Fatalf("orderings = %+v", m.Orderings)
	}
	os.WriteFile(p, []byte("http: {url: http://x}\n"), 0o644)
	if m, err := ReadMatrix(p); err != nil || m.Variants != nil {
		t.Fatalf("a file without variants gives %v, %v", m, err)
	}
	os.WriteFile(p, []byte("http: {url: http://x}\nordering: \"mrr: a <= b\"\n"), 0o644)
	if _, err := ReadMatrix(p); err == nil {
		t.Fatal("ordering without variants must be an error")
	}
}

func TestVariantReachesRequestTemplates(t *testing.T) {
	t.Parallel()
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &got)
		w.Write([]byte(`{"answer": "ok"}`))
	}))
	defer srv.Close()
	src := []byte("http:\n  url: " + srv.URL + "\n  body: {q: \"{{.Query}}\", mode: \"{{.Variant.mode}}\"}\nvariants: {mode: [fast, thorough]}\n")
	tgt, err := ParseFile("t.yaml", src, Options{Variant: map[string]string{"mode": "thorough"}})
	if err != nil {
		t.Fatal(err)
	}
	defer Close(tgt)
	if _, err := tgt.Observe(context.Background(), assay.Case{ID: "c", Query: "hello"}); err != nil {
		t.Fatal(err)
	}
	if got["mode"] != "thorough" || got["q"] != "hello" {
		t.Fatalf("request body = %v, want mode thorough", got)
	}
}

func TestBuiltinInATargetFileTakesItsVariant(t *testing.T) {
	t.Parallel()
	s := &assay.Suite{Corpus: []assay.Document{{ID: "a", Text: "tokens are hashed with sha-256"}, {ID: "b", Text: "backups run nightly"}}}
	src := []byte("builtin: \"builtin:{{.Variant.engine}}\"\nvariants: {engine: [bm25, rm3]}\n")
	for engine, wantRM3 := range map[string]bool{"bm25": false, "rm3": true} {
		tgt, err := ParseFile("t.yaml", src, Options{Suite: s, Variant: map[string]string{"engine": engine}})
		if err != nil {
			t.Fatal(err)
		}
		d := tgt.(assay.Describer).Describe()
		_, hasFb := d.Config["fb_docs"]
		if hasFb != wantRM3 {
			t.Errorf("engine %s: config %v, want rm3=%v", engine, d.Config, wantRM3)
		}
	}
	if _, err := ParseFile("t.yaml", []byte("builtin: \"builtin:{{.Variant.engine}}\"\n"), Options{Suite: s, Variant: map[string]string{"engine": "dense"}}); err == nil {
		t.Fatal("an unknown builtin variant must be an error")
	}
}
