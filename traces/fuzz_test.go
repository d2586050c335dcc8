package traces_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/assay-eval/assay/traces"
)

// FuzzImport: any bytes either fail with a positioned error or import;
// nothing panics, and every observation has a case.
func FuzzImport(f *testing.F) {
	for _, p := range []string{"testdata/openinference.json", "testdata/genai.jsonl"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","attributes":[{"key":"retrieval.documents.0.document.id","value":{"intValue":7}}]}]}]}]}`))
	f.Add([]byte(`{"resourceSpans":[]}{"resourceSpans":null}`))
	f.Add([]byte(`{"data":[{"id":"t","input":"q","output":"a","observations":[{"type":"RETRIEVER","output":[{"page_content":"x","metadata":{"id":"d"}}]},{"type":"TOOL","input":{"a":1},"level":"ERROR"}],"scores":[{"name":"user","value":0,"dataType":"BOOLEAN"}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		// Any file: OTLP or Langfuse, through Import.
		p := filepath.Join(t.TempDir(), "f.json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if res, err := traces.Import([]string{p}); err == nil {
			for _, o := range res.Observations {
				if o.Case == "" || o.Provenance == nil {
					t.Fatalf("observation without a case or provenance: %+v", o)
				}
			}
		}
		td, err := traces.Parse("f.json", b)
		if err != nil {
			return
		}
		res := traces.FromData([]string{"f.json"}, [][]traces.TracesData{td})
		for _, o := range res.Observations {
			if o.Case == "" {
				t.Fatalf("observation without a case: %+v", o)
			}
		}
		if _, err := traces.Evaluations(); err != nil {
			t.Fatal(err)
		}
	})
}
