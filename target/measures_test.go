package target

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// A setup step's measures: reads run-level numbers from the response, a
// JSON number, a number in a JSON string or a header; the file target
// reports them through Measures.
func TestSetupMeasures(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/stats":
			w.Header().Set("X-Build-Ms", " 830 ")
			w.Write([]byte(`{"index": {"bytes": 1200000, "docs": "42"}, "name": "idx", "shards": [1]}`))
		default:
			w.Write([]byte(`{"answer": "a"}`))
		}
	}))
	defer srv.Close()
	open := func(measures string) assay.Target {
		p := writeFile(t, "t.yaml", "http:\n  url: "+srv.URL+"/ask\n  setup:\n    - {name: stats, method: GET, url: /stats, measures: "+measures+"}\n")
		return mustOpen(t, p, Options{Suite: &assay.Suite{}})
	}
	tg := open(`{index_bytes: index.bytes, docs: index.docs, build_ms: "header:x-build-ms"}`)
	if m := tg.(assay.Measurer).Measures(); m != nil {
		t.Errorf("measures before setup: %v", m)
	}
	if err := tg.(assay.Setupper).Setup(context.Background()); err != nil {
		t.Fatal(err)
	}
	m := tg.(assay.Measurer).Measures()
	if len(m) != 3 || m["index_bytes"] != 1200000 || m["docs"] != 42 || m["build_ms"] != 830 {
		t.Errorf("measures = %v, want index_bytes 1200000, docs 42, build_ms 830", m)
	}
	for measures, want := range map[string]string{
		"{x: index.missing}":   `setup step "stats" measure x: nothing at path "index.missing"`,
		"{x: name}":            `setup step "stats" measure x: "idx" at path "name" is not a finite number`,
		"{x: shards}":          `setup step "stats" measure x: want a number at path "shards", got a list`,
		`{x: "header:x-nope"}`: `setup step "stats" measure x: nothing at header X-Nope`,
	} {
		err := open(measures).(assay.Setupper).Setup(context.Background())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("measures %s: error %v, want %q", measures, err, want)
		}
	}
}

func TestMeasuresFileErrors(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ body, want string }{
		"case step":     {"http:\n  url: http://x/\n  steps: [{url: /a, measures: {n: x}}]\n", `http.steps[0].measures: only setup steps report measures`},
		"bad name":      {"http:\n  url: http://x/\n  setup: [{url: /a, measures: {Index-Bytes: x}}]\n", `"Index-Bytes" cannot name a measure`},
		"not a mapping": {"http:\n  url: http://x/\n  setup: [{url: /a, measures: [x]}]\n", `http.setup[0].measures: want a mapping of measure name to path`},
		"for_each":      {"http:\n  url: http://x/\n  setup: [{url: /a, for_each: corpus, measures: {n: x}}]\n", `a step with for_each cannot report measures`},
	} {
		t.Run(name, func(t *testing.T) {
			p := writeFile(t, "t.yaml", tc.body)
			_, err := Open(p, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), p+":") {
				t.Fatalf("want a positioned error containing %q, got %v", tc.want, err)
			}
		})
	}
}
