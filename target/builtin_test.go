package target

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/assay-eval/assay"
)

func builtinSuite() *assay.Suite {
	return &assay.Suite{
		Name:     "kb",
		Defaults: assay.Defaults{K: 2},
		Corpus: []assay.Document{
			{ID: "security.md", Title: "Security", Path: "docs/security.md", Text: "Invitation tokens are hashed with SHA-256 before storage. Passwords use argon2."},
			{ID: "deploy.md", Title: "Deployment", Path: "docs/deploy.md", Text: "The database is hosted in Singapore. Deploys run on every merge."},
			{ID: "cards.md", Title: "Cards", Path: "docs/cards.md", Text: "Cards are ordered by LexoRank keys."},
		},
	}
}

func TestBuiltinObserve(t *testing.T) {
	t.Parallel()
	tg, err := Open("builtin", Options{Suite: builtinSuite()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := assay.WithTrial(context.Background(), 2)
	obs, err := tg.Observe(ctx, assay.Case{ID: "q1", Query: "How are invitation tokens hashed?"})
	if err != nil {
		t.Fatal(err)
	}
	if obs.Case != "q1" || obs.Trial != 2 {
		t.Errorf("case/trial = %s/%d", obs.Case, obs.Trial)
	}
	if len(obs.Retrieved) == 0 || len(obs.Retrieved) > 2 || obs.Retrieved[0].ID != "security.md" {
		t.Fatalf("retrieved = %+v, want security.md first, at most k=2", obs.Retrieved)
	}
	if h := obs.Retrieved[0]; h.Title != "Security" || h.Path != "docs/security.md" || h.Score <= 0 {
		t.Errorf("hit = %+v", h)
	}
	if obs.Refused == nil || *obs.Refused {
		t.Fatalf("refused = %v, answer %q", obs.Refused, obs.Answer)
	}
	if !strings.Contains(obs.Answer, "SHA-256") {
		t.Errorf("answer = %q", obs.Answer)
	}
	if len(obs.Citations) != 1 || obs.Citations[0].ID != "security.md" || !strings.Contains(obs.Citations[0].Quote, "SHA-256") {
		t.Errorf("citations = %+v", obs.Citations)
	}
	if obs.LatencyMs == nil || *obs.LatencyMs < 0 {
		t.Errorf("latency = %v", obs.LatencyMs)
	}
	var names []string
	for _, s := range obs.Spans {
		names = append(names, s.Name)
		if s.EndMs < s.StartMs {
			t.Errorf("span %+v ends before it starts", s)
		}
	}
	if strings.Join(names, ",") != "analyze,bm25,answer" {
		t.Errorf("spans = %v", names)
	}
	if obs.Versions["engine"] != "bm25" {
		t.Errorf("versions = %v", obs.Versions)
	}
}

func TestBuiltinRefuses(t *testing.T) {
	t.Parallel()
	tg, err := Open("builtin", Options{Suite: builtinSuite()})
	if err != nil {
		t.Fatal(err)
	}
	obs, err := tg.Observe(context.Background(), assay.Case{ID: "q", Query: "What is the capital of France?"})
	if err != nil {
		t.Fatal(err)
	}
	if obs.Refused == nil || !*obs.Refused || len(obs.Citations) != 0 {
		t.Errorf("refused = %v, citations %v, answer %q", obs.Refused, obs.Citations, obs.Answer)
	}
}

func TestBuiltinCaseK(t *testing.T) {
	t.Parallel()
	tg, _ := Open("builtin", Options{Suite: builtinSuite()})
	obs, _ := tg.Observe(context.Background(), assay.Case{ID: "q", Query: "docs", K: 1})
	if len(obs.Retrieved) != 1 {
		t.Errorf("k=1: %d hits", len(obs.Retrieved))
	}
}

func TestBuiltinSpecs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec, engine, err string
	}{
		{spec: "builtin", engine: "bm25"},
		{spec: "builtin:rm3", engine: "bm25+rm3"},
		{spec: "builtin?k1=1.2&b=0.75", engine: "bm25"},
		{spec: "builtin:rm3?fb_docs=3&fb_terms=5&original_query_weight=0.7", engine: "bm25+rm3"},
		{spec: "builtin?analyzer=de", engine: "bm25"},
		{spec: "builtin:dense", err: `unknown variant "dense" (valid: builtin, builtin:rm3, builtin:hybrid)`},
		{spec: "builtin?k2=1", err: `unknown parameter "k2" (valid: k1, b, analyzer`},
		{spec: "builtin?b=2", err: "b must be between 0 and 1"},
		{spec: "builtin?k1=x", err: `k1="x" is not a number`},
		{spec: "builtin?analyzer=klingon", err: `unknown analyzer "klingon"`},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			tg, err := Open(tc.spec, Options{Suite: builtinSuite()})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			info := tg.(assay.Describer).Describe()
			if info.Kind != "builtin" || info.Config["engine"] != tc.engine || !strings.HasPrefix(info.Fingerprint, "sha256:") {
				t.Errorf("info = %+v", info)
			}
		})
	}
}

func TestBuiltinFingerprint(t *testing.T) {
	t.Parallel()
	fp := func(spec string, s *assay.Suite) string {
		tg, err := Open(spec, Options{Suite: s})
		if err != nil {
			t.Fatal(err)
		}
		return tg.(assay.Describer).Describe().Fingerprint
	}
	a := fp("builtin", builtinSuite())
	if b := fp("builtin", builtinSuite()); a != b {
		t.Errorf("same config and corpus: %s != %s", a, b)
	}
	if b := fp("builtin?k1=1.2", builtinSuite()); a == b {
		t.Error("k1 change kept the fingerprint")
	}
	s := builtinSuite()
	s.Corpus[0].Text += " More."
	if b := fp("builtin", s); a == b {
		t.Error("corpus change kept the fingerprint")
	}
}

func TestBuiltinNoCorpus(t *testing.T) {
	t.Parallel()
	_, err := Open("builtin", Options{Suite: &assay.Suite{Name: "x"}})
	if err == nil || !strings.Contains(err.Error(), "no corpus") {
		t.Errorf("err = %v", err)
	}
}

func TestBuiltinCanceled(t *testing.T) {
	t.Parallel()
	tg, _ := Open("builtin", Options{Suite: builtinSuite()})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := tg.Observe(ctx, assay.Case{ID: "q", Query: "cards"})
	if e := assay.AsError(err); e == nil || e.Class != assay.ErrCanceled {
		t.Errorf("err = %v, want canceled", err)
	}
}

func TestBuiltinConcurrent(t *testing.T) {
	t.Parallel()
	tg, _ := Open("builtin:rm3", Options{Suite: builtinSuite()})
	want, _ := tg.Observe(context.Background(), assay.Case{ID: "q", Query: "database Singapore"})
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				got, err := tg.Observe(context.Background(), assay.Case{ID: "q", Query: "database Singapore"})
				if err != nil || len(got.Retrieved) != len(want.Retrieved) || got.Retrieved[0] != want.Retrieved[0] || got.Answer != want.Answer {
					t.Errorf("concurrent observation differs: %+v", got.Retrieved)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// FuzzBuiltinHandler: any request body gets a JSON reply with status 200 or
// 400, never a panic.
func FuzzBuiltinHandler(f *testing.F) {
	b, err := NewBuiltin("builtin", builtinSuite())
	if err != nil {
		f.Fatal(err)
	}
	h := b.Handler()
	for _, s := range []string{`{"query": "database", "k": 2}`, `{"k": -1}`, `[]`, `{"query": "\u0000"}`, `{"query": "x", "k": 99999999999}`, ``} {
		f.Add("/ask", s)
	}
	f.Fuzz(func(t *testing.T, route, body string) {
		if route != "/ask" {
			route = "/search"
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, route, strings.NewReader(body)))
		if rec.Code != 200 && rec.Code != 400 && rec.Code != 413 {
			t.Fatalf("status %d for %q", rec.Code, body)
		}
		var v map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
			t.Fatalf("reply is not a JSON object: %q", rec.Body.String())
		}
	})
}

// A body over the limit is 413 and says so; a wrong JSON shape is 400 in
// JSON words, with no Go type names (serveRequest, int).
func TestBuiltinHandlerBadBodies(t *testing.T) {
	t.Parallel()
	b, err := NewBuiltin("builtin", builtinSuite())
	if err != nil {
		t.Fatal(err)
	}
	h := b.Handler()
	huge := `{"query": "` + strings.Repeat("a", maxServeBody) + `", "k": 3}`
	for _, tc := range []struct {
		body string
		code int
		want string
	}{
		{huge, 413, "request body over 1048576 bytes"},
		{`{"query": "x", "k": "5"}`, 400, `"k": want an integer, got string`},
		{`{"query": "x", "k": 1e10}`, 400, `"k": want an integer, got number 1e10`},
		{`{"query": 7}`, 400, `"query": want a string, got number`},
		{`[1]`, 400, `body is not a JSON object {"query": ..., "k": ...}: got array`},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/ask", strings.NewReader(tc.body)))
		var v struct{ Error string }
		json.Unmarshal(rec.Body.Bytes(), &v)
		if rec.Code != tc.code || v.Error != tc.want || strings.Contains(v.Error, "Go ") {
			t.Errorf("%.40q: %d %q, want %d %q", tc.body, rec.Code, v.Error, tc.code, tc.want)
		}
	}
}
