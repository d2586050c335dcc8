package target

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/retry"
	"github.com/assay-eval/assay/redact"
	"github.com/assay-eval/assay/runner"
)

// recorder is a stand-in service that records every request it gets.
type recorder struct {
	mu   sync.Mutex
	reqs []string // "METHOD PATH BODY"
	hdrs []http.Header
}

func (r *recorder) add(req *http.Request) string {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req.Method+" "+req.URL.RequestURI()+" "+string(b))
	r.hdrs = append(r.hdrs, req.Header.Clone())
	return string(b)
}

func (r *recorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.reqs...)
}

func TestHTTPFileRequestAndMap(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.add(r)
		w.Header().Set("X-Knowlex-Docs", `Kettle descaling, Sourdough%20starter`)
		w.Write([]byte(`{"data": {"text": "Descale monthly."}, "refused": false, "trace": {"tools": [{"name": "search", "args": {"q": "kettle"}}, "rerank"]},
			"status": "completed", "meta": {"versions": {"index": "v7", "n": 3}}, "cites": ["Kettle descaling"], "plan": {"steps": 2}}`))
	}))
	defer srv.Close()
	p := writeFile(t, "target.yaml", `http:
  url: `+srv.URL+`/api/kb/ask?lang={{.Tags.lang}}
  headers: {Authorization: "Bearer ${KB_TOKEN}", X-Case: "{{.ID}}"}
  body: {question: "{{.Query}}", k: "{{.K}}", tags: "{{.Tags}}", note: "case {{.ID}} by {{.Vars.user}}", fixed: [1, true, null]}
  map:
    answer: data.text
    retrieved: header:x-knowlex-docs
    citations: cites
    refused: refused
    tools: trace.tools
    outcome: status
    versions: meta.versions
    plan: plan
`)
	s := &assay.Suite{Defaults: assay.Defaults{K: 7}}
	tg := mustOpen(t, p, Options{Suite: s, Getenv: env("KB_TOKEN", testSecret)})
	c := assay.Case{ID: "q1", Query: `How "often"?`, Tags: map[string]string{"lang": "en"}, Vars: map[string]string{"user": "ada"}}
	o, err := tg.Observe(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	reqs := rec.list()
	wantReq := `POST /api/kb/ask?lang=en {"fixed":[1,true,null],"k":7,"note":"case q1 by ada","question":"How \"often\"?","tags":{"lang":"en"}}`
	if len(reqs) != 1 || reqs[0] != wantReq {
		t.Errorf("request\n got %q\nwant %q", reqs, wantReq)
	}
	h := rec.hdrs[0]
	if h.Get("Authorization") != "Bearer "+testSecret || h.Get("X-Case") != "q1" || h.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", h)
	}
	refused := false
	want := assay.Observation{
		Case: "q1", Answer: "Descale monthly.", Refused: &refused, Outcome: "completed",
		Retrieved: []assay.Hit{{ID: "Kettle descaling", Title: "Kettle descaling"}, {ID: "Sourdough starter", Title: "Sourdough starter"}},
		Citations: []assay.Citation{{ID: "Kettle descaling"}},
		Tools:     []assay.ToolCall{{Name: "search", Args: assay.RawJSON(`{"q": "kettle"}`)}, {Name: "rerank"}},
		Versions:  map[string]string{"index": "v7", "n": "3"},
		Fields:    map[string]any{"plan": map[string]any{"steps": float64(2)}},
		LatencyMs: o.LatencyMs,
		Attempts:  1,
	}
	if !reflect.DeepEqual(o, want) {
		gb, _ := json.Marshal(o)
		wb, _ := json.Marshal(want)
		t.Errorf("observation\n got %s\nwant %s", gb, wb)
	}
	info := tg.(assay.Describer).Describe()
	b, _ := json.Marshal(info)
	if strings.Contains(string(b), testSecret) || !strings.Contains(string(b), `Bearer ${KB_TOKEN}`) || !strings.HasPrefix(info.Fingerprint, "sha256:") {
		t.Errorf("description %s", b)
	}
}

// TestHTTPSteps: a two-step exchange where the second request uses a value
// the first captured, the answer is mapped from the first step and the tools
// from the second, and cleanup deletes what the case created.
func TestHTTPStepsSetupCleanup(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := rec.add(r)
		switch {
		case r.URL.Path == "/ingest":
			w.Write([]byte(`{"ok": true, "collection": "col-9"}`))
		case r.URL.Path == "/collections":
			w.Write([]byte(`{"id": "col-9"}`))
		case r.URL.Path == "/ask":
			w.Header().Set("Location", "/conv/c-"+gjsonID(body))
			w.Write([]byte(`{"answer": "hello", "conversation": {"id": "c-` + gjsonID(body) + `"}}`))
		case strings.HasPrefix(r.URL.Path, "/trace/"):
			w.Write([]byte(`{"tools": ["search"], "approval": true}`))
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	p := writeFile(t, "target.yaml", `http:
  url: `+srv.URL+`/
  steps:
    - name: ask
      url: /ask?col={{.Vars.col}}
      body: {id: "{{.ID}}", q: "{{.Query}}"}
      capture: {conv: conversation.id, where: "header:Location"}
    - name: trace
      url: /trace/{{.Vars.conv}}
  map:
    answer: "ask:answer"
    tools: tools
    approval_pending: "trace:approval"
    conv_path: "ask:header:Location"
  setup:
    - name: make
      method: POST
      url: /collections
      capture: {col: id}
    - url: /ingest
      for_each: corpus
      body: {title: "{{.Doc.Title}}", text: "{{.Doc.Text}}", col: "{{.Vars.col}}"}
  cleanup:
    - method: DELETE
      url: "{{.Vars.where}}?trial={{.Trial}}"
`)
	s := &assay.Suite{Corpus: []assay.Document{{ID: "a", Title: "A", Text: "alpha"}, {ID: "b", Title: "B", Text: "beta"}}}
	tg := mustOpen(t, p, Options{Suite: s})
	if err := tg.(assay.Setupper).Setup(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := assay.Case{ID: "q7", Query: "hi"}
	ctx := assay.WithTrial(context.Background(), 1)
	o, err := tg.Observe(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if o.Answer != "hello" || len(o.Tools) != 1 || o.Tools[0].Name != "search" || !o.ApprovalPending || o.Fields["conv_path"] != "/conv/c-q7" || o.Trial != 1 {
		t.Errorf("observation %+v", o)
	}
	if err := tg.(assay.Cleaner).Cleanup(context.Background(), c, o); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`POST /collections `,
		`POST /ingest {"col":"col-9","text":"alpha","title":"A"}`,
		`POST /ingest {"col":"col-9","text":"beta","title":"B"}`,
		`POST /ask?col=col-9 {"id":"q7","q":"hi"}`,
		`GET /trace/c-q7 `,
		`DELETE /conv/c-q7?trial=1 `,
	}
	if got := rec.list(); !reflect.DeepEqual(got, want) {
		t.Errorf("requests\n got %q\nwant %q", got, want)
	}

	// With Keep, cleanup sends nothing.
	tk := mustOpen(t, p, Options{Suite: s, Keep: true})
	o, err = tk.Observe(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	n := len(rec.list())
	if err := tk.(assay.Cleaner).Cleanup(context.Background(), c, o); err != nil || len(rec.list()) != n {
		t.Errorf("Keep: cleanup sent requests (%v)", err)
	}
}

func gjsonID(body string) string {
	var v struct{ ID string }
	json.Unmarshal([]byte(body), &v)
	return v.ID
}

func TestSetupFailureAndNoCorpus(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "nope", http.StatusForbidden)
	}))
	defer srv.Close()
	p := writeFile(t, "t.yaml", "http:\n  url: "+srv.URL+"/ask\n  setup:\n    - {url: /ingest, for_each: corpus, body: {t: \"{{.Doc.Title}}\"}}\n")
	tg := mustOpen(t, p, Options{Suite: &assay.Suite{Corpus: []assay.Document{{ID: "d1", Title: "D"}}}})
	err := tg.(assay.Setupper).Setup(context.Background())
	if err == nil || !strings.Contains(err.Error(), `setup step "step1" (document 1, d1): POST `) || !strings.Contains(err.Error(), "403 Forbidden") {
		t.Errorf("setup error: %v", err)
	}
	tg = mustOpen(t, p, Options{Suite: &assay.Suite{}})
	if err := tg.(assay.Setupper).Setup(context.Background()); err == nil || !strings.Contains(err.Error(), "the suite has no corpus") {
		t.Errorf("setup without corpus: %v", err)
	}
}

// TestSecretsNeverLeave: a service that echoes the token in its answer and
// in an error body. The observation is raw (it is graded as returned), the
// target offers the token as a secret, and once redacted with it nothing
// carries the token; the error snippet is redacted in the target already.
func TestSecretsNeverLeave(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := r.Header.Get("X-Api-Key")
		if r.URL.Query().Get("fail") != "" {
			http.Error(w, "bad key "+tok, http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"answer": "your key is ` + tok + `", "retrieved": [{"id": "` + tok + `"}]}`))
	}))
	defer srv.Close()
	p := writeFile(t, "t.yaml", "http:\n  url: "+srv.URL+"/ask?fail={{.Vars.fail}}\n  headers: {X-Api-Key: \"${API_KEY}\"}\n  body: {q: \"{{.Query}}\"}\n")
	tg := mustOpen(t, p, Options{Getenv: env("API_KEY", testSecret)})
	o, err := tg.Observe(context.Background(), assay.Case{ID: "a", Query: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Answer != "your key is "+testSecret {
		t.Errorf("observation not raw: %q", o.Answer)
	}
	red := runner.RedactorFor(tg)
	b, _ := json.Marshal(redact.Value(red, o))
	if strings.Contains(string(b), testSecret) || !strings.Contains(string(b), "your key is ${API_KEY}") {
		t.Errorf("redacted observation leaks the secret: %s", b)
	}
	o, err = tg.Observe(context.Background(), assay.Case{ID: "b", Query: "q", Vars: map[string]string{"fail": "1"}})
	b, _ = json.Marshal(o)
	if err == nil || strings.Contains(err.Error(), testSecret) || strings.Contains(string(b), testSecret) {
		t.Errorf("error leaks the secret: %v / %s", err, b)
	}
}

func TestLiteralSecretsRefused(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"authorization header": "http:\n  url: http://127.0.0.1:9/x\n  headers: {Authorization: Bearer abc123}\n",
		"cookie header":        "http:\n  url: http://127.0.0.1:9/x\n  headers:\n    Cookie: session=abc\n",
		"api key body field":   "http:\n  url: http://127.0.0.1:9/x\n  body: {q: \"{{.Query}}\", api_key: abc123}\n",
		"command env":          "command: [sh]\nenv: {SERVICE_TOKEN: abc123}\n",
	} {
		t.Run(name, func(t *testing.T) {
			p := writeFile(t, "t.yaml", body)
			_, err := Open(p, Options{})
			if err == nil || !strings.Contains(err.Error(), "literal credential") || !strings.Contains(err.Error(), "--allow-literal-secrets") {
				t.Fatalf("want refusal, got %v", err)
			}
			if !strings.HasPrefix(err.Error(), p+":") {
				t.Errorf("error not positioned: %v", err)
			}
			tg, err := Open(p, Options{AllowLiteralSecrets: true})
			if err != nil {
				t.Fatalf("with AllowLiteralSecrets: %v", err)
			}
			defer Close(tg)
			b, _ := json.Marshal(tg.(assay.Describer).Describe())
			if strings.Contains(string(b), "abc") {
				t.Errorf("description shows the literal credential: %s", b)
			}
		})
	}
	// Not credentials: max_tokens, k, a templated value, an env reference.
	p := writeFile(t, "t.yaml", "http:\n  url: http://127.0.0.1:9/x\n  headers: {Authorization: \"Bearer {{.Vars.tok}}\", X-Token: \"${T}\"}\n  body: {max_tokens: \"100\", k: \"{{.K}}\"}\n")
	tg, err := Open(p, Options{Getenv: env("T", "value-of-t")})
	if err != nil {
		t.Fatal(err)
	}
	Close(tg)
}

func TestFileErrorsArePositioned(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ body, want string }{
		"unknown top field":   {"htpp:\n  url: http://x/\n", `:1:1: unknown field "htpp" in target file (did you mean "http"?)`},
		"unknown http field":  {"http:\n  url: http://x/\n  retires: 2\n", `:3:3: unknown field "retires" in http (did you mean "retries"?)`},
		"field in capitals":   {"http:\n  url: http://x/\n  TIMEOUT: 2s\n", `:3:3: unknown field "TIMEOUT" in http (did you mean "timeout"?)`},
		"bad template":        {"http:\n  url: http://x/\n  body: {q: \"{{.Qeury}}\"}\n", `:3:13: http.body.q: <.Qeury>: can't evaluate field Qeury (fields: .ID .Query`},
		"unset variable":      {"http:\n  url: http://x/\n  headers: {Authorization: \"Bearer ${NOPE}\"}\n", `:3:28: ${NOPE} is not set in the environment`},
		"bad timeout":         {"http:\n  url: http://x/\n  timeout: soon\n", `:3:12: http.timeout: want a positive duration`},
		"bad rate":            {"http:\n  url: http://x/\n  rate: fast\n", `:3:9: http.rate "fast": want N/s`},
		"bad size":            {"http:\n  url: http://x/\n  max_body: 10 parsecs\n", `http.max_body: size "10 parsecs": unknown unit`},
		"no url":              {"http:\n  method: GET\n", `:2:3: http: needs url:`},
		"not http url":        {"http:\n  url: ftp://x/\n", `http.url: "ftp://x/" is not an http:// or https:// url`},
		"bad map step":        {"http:\n  url: http://x/\n  steps: [{name: a, url: /a}]\n  map: {answer: \"b:answer\"}\n", `map.answer: no step named "b" (steps: a)`},
		"both targets":        {"http: {url: http://x/}\ncommand: [x]\n", `has both http: and command:`},
		"workers one-shot":    {"command: {run: [x], workers: 2}\n", `command.workers: only with serve:`},
		"syntax":              {"http: [unclosed\n", `t.yaml:`},
		"empty":               {"", `empty target file`},
		"for_each in steps":   {"http:\n  url: http://x/\n  steps: [{url: /a, for_each: corpus}]\n", `only setup steps repeat`},
		"header map command":  {"command: [x]\nmap: {answer: \"header:x\"}\n", `a command has no headers`},
		"fractional max_body": {"http:\n  url: http://x/\n  max_body: 1.0005KB\n", `:3:13: http.max_body: size "1.0005KB": not a whole number of bytes`},
		"huge max_body":       {"command: {run: [x], max_body: 99999999999999999999GiB}\n", `max_body: size "99999999999999999999GiB": larger than the 1GiB limit`},
		"retries overflow":    {"http:\n  url: http://x/\n  retries: 18446744073709551615\n", `:3:12: http.retries: 18446744073709551615 is out of range`},
		"workers overflow":    {"command: {serve: [x], workers: 4294967297}\n", `command.workers: 4294967297 is out of range`},
		"timeout overflow":    {"http:\n  url: http://x/\n  timeout: 9999999999h\n", `:3:12: http.timeout: want a positive duration`},
		"backoff fraction ns": {"http:\n  url: http://x/\n  backoff: 0.5ns\n", `:3:12: http.backoff: want a positive duration`},
	} {
		t.Run(name, func(t *testing.T) {
			p := writeFile(t, "t.yaml", tc.body)
			_, err := Open(p, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want error containing %q, got %v", tc.want, err)
			}
			if !strings.HasPrefix(err.Error(), p+":") {
				t.Errorf("error does not name the file: %v", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

func TestSurfaces(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.add(r)
		w.Write([]byte(`{"answer": "` + r.URL.Path + `"}`))
	}))
	defer srv.Close()
	p := writeFile(t, "t.yaml", `tools: [search]
http: {url: `+srv.URL+`/default}
surfaces:
  agent:
    tools: [search, get_doc, delete_doc]
    http: {url: `+srv.URL+`/agent}
  cli:
    command: [echo, '{"answer": "cli"}']
`)
	got, err := Surfaces(p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"": {"search"}, "agent": {"delete_doc", "get_doc", "search"}, "cli": nil}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Surfaces = %v, want %v", got, want)
	}
	tg := mustOpen(t, p, Options{})
	for surface, answer := range map[string]string{"": "/default", "agent": "/agent", "cli": "cli"} {
		o, err := tg.Observe(context.Background(), assay.Case{ID: "x", Query: "q", Surface: surface})
		if err != nil || o.Answer != answer {
			t.Errorf("surface %q: answer %q, %v; want %q", surface, o.Answer, err, answer)
		}
	}
	_, err = tg.Observe(context.Background(), assay.Case{ID: "x", Query: "q", Surface: "nope"})
	if e := assay.AsError(err); e == nil || !strings.Contains(e.Message, `names surface "nope"`) {
		t.Errorf("unknown surface: %v", err)
	}
	if _, err := Surfaces(writeFile(t, "bad.yaml", "surfaces:\n  a: {tools: search}\n")); err == nil || !strings.Contains(err.Error(), "surfaces.a.tools: want a list") {
		t.Errorf("bad tools: %v", err)
	}
}

func TestParseSizeAndRate(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"10MiB": 10 << 20, "512KB": 512000, "2048": 2048, "1.5KiB": 1536, "1 GiB": 1 << 30} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"0.5B":                    `size "0.5B": not a whole number of bytes`,
		"1.0001KB":                `size "1.0001KB": not a whole number of bytes`,
		"0.3":                     `size "0.3": not a whole number of bytes`,
		"99999999999999999999GiB": `size "99999999999999999999GiB": larger than the 1GiB limit`,
		"9223372036854775808":     `size "9223372036854775808": larger than the 1GiB limit`,
		"1.5GiB":                  `size "1.5GiB": larger than the 1GiB limit`,
		"1.2.3MB":                 `size "1.2.3MB": want a number with a unit (10MiB, 512KB)`,
		"0MiB":                    `size "0MiB": want a number with a unit (10MiB, 512KB)`,
	} {
		if got, err := parseSize(in); err == nil || err.Error() != want {
			t.Errorf("parseSize(%q) = %d, %v; want error %q", in, got, err, want)
		}
	}
	if got, err := parseSize("1.1KB"); err != nil || got != 1100 { // exact decimal, not 1100.0000000000002
		t.Errorf("parseSize(1.1KB) = %d, %v", got, err)
	}
	for in, want := range map[string]string{"20/s": "50ms", "600/m": "100ms", "1/500ms": "500ms", "2/min": "30s"} {
		if got, err := parseRate(in); err != nil || got.String() != want {
			t.Errorf("parseRate(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"fast", "0/s", "5/fortnight"} {
		if _, err := parseRate(bad); err == nil {
			t.Errorf("parseRate(%q) accepted", bad)
		}
	}
}

// TestObservationShapedError: a body in the observation shape that reports
// its own error is a failed observation with that class.
func TestObservationShapedError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"case": "x", "answer": "", "error": {"class": "timeout", "message": "upstream took too long"}}`))
	}))
	defer srv.Close()
	tg := mustOpen(t, srv.URL, Options{})
	o, err := tg.Observe(context.Background(), assay.Case{ID: "x", Query: "q"})
	if e := assay.AsError(err); e == nil || e.Class != assay.ErrTimeout || e.Message != "upstream took too long" || o.Error == nil {
		t.Fatalf("want the body's timeout error, got %v (%+v)", err, o.Error)
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	if d := retry.After("3"); d != 3*time.Second {
		t.Errorf("seconds: %s", d)
	}
	if d := retry.After(time.Now().Add(10 * time.Second).UTC().Format(http.TimeFormat)); d < 8*time.Second || d > 10*time.Second {
		t.Errorf("http date: %s", d)
	}
	for _, v := range []string{"", "-1", "soon", "Mon, 01 Jan 2001 00:00:00 GMT"} {
		if d := retry.After(v); d != 0 {
			t.Errorf("retry.After(%q) = %s, want 0", v, d)
		}
	}
}

// TestRateLimit: rate: 20/s spaces six requests over at least 250 ms.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"answer": "a"}`)) }))
	defer srv.Close()
	tg := mustOpen(t, writeFile(t, "t.yaml", "http:\n  url: "+srv.URL+"\n  rate: 20/s\n"), Options{})
	start := time.Now()
	for i := range 6 {
		if _, err := tg.Observe(context.Background(), assay.Case{ID: fmt.Sprint(i), Query: "q"}); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Errorf("6 requests at 20/s took %s, want >= 250ms", d)
	}
}
