package target

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/assay-eval/assay"
)

// FuzzParseFile: no target file, however broken, panics the parser, and
// whatever opens describes itself as JSON and closes.
func FuzzParseFile(f *testing.F) {
	f.Add([]byte("http:\n  url: http://127.0.0.1:9/ask\n  body: {q: \"{{.Query}}\", k: \"{{.K}}\"}\n"))
	f.Add([]byte("command: [prog, \"{{.Query}}\"]\ntimeout: 5s\nmap: {answer: a.b}\n"))
	f.Add([]byte("surfaces:\n  a: {tools: [x], http: {url: \"http://h/${T}\"}}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		tg, err := ParseFile("f.yaml", src, Options{Getenv: func(string) string { return "value" }, AllowLiteralSecrets: true})
		if err != nil {
			return
		}
		if d, ok := tg.(assay.Describer); ok {
			if _, err := json.Marshal(d.Describe()); err != nil {
				t.Fatalf("description does not marshal: %v", err)
			}
		}
		if err := Close(tg); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzMapResponse: any body and header map to an observation or to a
// malformed error, never a panic.
func FuzzMapResponse(f *testing.F) {
	f.Add([]byte(`{"answer": "a", "retrieved": [{"id": "x", "score": 1}, "y"], "citations": ["x"], "refused": false, "tools": [{"name": "s"}]}`), "a, b%20c")
	f.Add([]byte(`{"retrieved": "nope", "versions": {"a": 1}, "usage": [1]}`), `["t1", "t2"]`)
	f.Add([]byte(`not json`), "")
	fields := defaultMap()
	fields = append(fields, mapField{name: "retrieved", header: "X-Docs"}, mapField{name: "latency_ms", path: "t"}, mapField{name: "extra", path: "x.#.y"})
	f.Fuzz(func(t *testing.T, body []byte, hdr string) {
		var o assay.Observation
		h := http.Header{}
		h.Set("X-Docs", hdr)
		err := applyMap(&o, fields, map[string]*response{"s": {body: body, header: h}}, "s", "response")
		if err != nil && assay.AsError(err).Class != assay.ErrMalformed {
			t.Fatalf("class %s: %v", assay.AsError(err).Class, err)
		}
	})
}
