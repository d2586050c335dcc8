package target

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/redact"
)

// TestLiteralCredentialsRefusedEverywhere: user info in a url, a
// credential query parameter and a credential command argument are refused
// in a target file (positioned) and in the shorthands, unless written as
// ${VAR} or allowed; allowed, the literal is a secret and no description
// shows it.
func TestLiteralCredentialsRefusedEverywhere(t *testing.T) {
	t.Parallel()
	refused := map[string]string{
		"url user info":       "http:\n  url: http://bob:pw-literal-1@127.0.0.1:9/x\n",
		"url user only":       "http:\n  url: http://tok-literal-1@127.0.0.1:9/x\n",
		"url query param":     "http:\n  url: http://127.0.0.1:9/x?api_key=key-literal-1&q=1\n",
		"step url":            "http:\n  url: http://127.0.0.1:9/\n  steps:\n    - {url: \"http://127.0.0.1:9/a?access_token=tok-literal-1\"}\n",
		"command flag value":  "command: [sh, --api-key, key-literal-1]\n",
		"command flag inline": "command: [sh, \"--password=pw-literal-1\"]\n",
		"command serve":       "command: {serve: [sh, -token, tok-literal-1]}\n",
	}
	for name, body := range refused {
		t.Run("refused/"+name, func(t *testing.T) {
			p := writeFile(t, "t.yaml", body)
			_, err := Open(p, Options{})
			if err == nil || !strings.Contains(err.Error(), "literal credential") || !strings.Contains(err.Error(), "--allow-literal-secrets") {
				t.Fatalf("want refusal, got %v", err)
			}
			if !strings.HasPrefix(err.Error(), p+":") {
				t.Errorf("error not positioned: %v", err)
			}
			if strings.Contains(err.Error(), "literal-1") {
				t.Errorf("the refusal shows the credential: %v", err)
			}
			tg, err := Open(p, Options{AllowLiteralSecrets: true})
			if err != nil {
				t.Fatalf("allowed: %v", err)
			}
			defer Close(tg)
			d, _ := json.Marshal(Describe(tg, p))
			if strings.Contains(string(d), "literal-1") {
				t.Errorf("description shows the credential: %s", d)
			}
			found := false
			for _, s := range Secrets(tg) {
				found = found || strings.Contains(s.Value, "literal-1")
			}
			if !found {
				t.Errorf("an allowed literal is not a secret: %v", Secrets(tg))
			}
		})
	}
	for name, spec := range map[string]string{
		"http shorthand user info": "http://bob:pw-literal-1@127.0.0.1:9/x",
		"http shorthand query":     "http://127.0.0.1:9/x?token=tok-literal-1",
		"command shorthand":        "command:sh --api-key key-literal-1",
	} {
		t.Run("refused/"+name, func(t *testing.T) {
			_, err := Open(spec, Options{})
			if err == nil || !strings.Contains(err.Error(), "literal credential") || strings.Contains(err.Error(), "literal-1") {
				t.Fatalf("want refusal without the credential, got %v", err)
			}
			tg, err := Open(spec, Options{AllowLiteralSecrets: true})
			if err != nil {
				t.Fatalf("allowed: %v", err)
			}
			d, _ := json.Marshal(Describe(tg, spec))
			if strings.Contains(string(d), "literal-1") {
				t.Errorf("description shows the credential: %s", d)
			}
		})
	}
	ok := map[string]string{
		"url user info from env": "http:\n  url: http://bob:${PW}@127.0.0.1:9/x\n",
		"query param from env":   "http:\n  url: http://127.0.0.1:9/x?api_key=${PW}\n",
		"query param templated":  "http:\n  url: http://127.0.0.1:9/x?api_key={{.Vars.k}}\n",
		"command arg from env":   "command: [sh, --api-key, \"${PW}\", \"--password=${PW}\"]\n",
		"command key file":       "command: [sh, --key-file, /etc/k, --max-tokens, \"5\"]\n",
	}
	for name, body := range ok {
		t.Run("allowed/"+name, func(t *testing.T) {
			p := writeFile(t, "t.yaml", body)
			tg, err := Open(p, Options{Getenv: env("PW", testSecret)})
			if err != nil {
				t.Fatal(err)
			}
			Close(tg)
		})
	}
}

// TestURLUserInfoBase64IsASecret: net/http sends URL user info as
// Authorization: Basic base64(user:pass); that form is a secret too.
func TestURLUserInfoBase64IsASecret(t *testing.T) {
	t.Parallel()
	p := writeFile(t, "t.yaml", "http:\n  url: http://${U}:${PW}@127.0.0.1:9/x\n")
	tg := mustOpen(t, p, Options{Getenv: env("U", "svc-user", "PW", testSecret)})
	red := redact.New(Secrets(tg)...)
	auth := "Basic c3ZjLXVzZXI6czNjcjN0LXRva2VuLTQ3MTE=" // base64("svc-user:s3cr3t-token-4711")
	if got := red.String("echo " + auth); strings.Contains(got, "c3ZjLXVz") {
		t.Errorf("base64 user info survives: %q", got)
	}
}

// TestRedirectToAnotherHostRefused: a redirect to another host is refused
// (no configured header reaches it); one on the same host is followed.
func TestRedirectToAnotherHostRefused(t *testing.T) {
	t.Parallel()
	var other atomic.Int32
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.Add(1)
		w.Write([]byte(`{"answer": "other host got ` + r.Header.Get("X-Api-Key") + `"}`))
	}))
	defer b.Close()
	a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, b.URL+"/x", http.StatusTemporaryRedirect)
		case "/here":
			http.Redirect(w, r, "/final", http.StatusTemporaryRedirect)
		default:
			w.Write([]byte(`{"answer": "same host got ` + r.Header.Get("X-Api-Key") + `"}`))
		}
	}))
	defer a.Close()
	open := func(path string) assay.Target {
		return mustOpen(t, writeFile(t, "t.yaml", "http:\n  url: "+a.URL+path+"\n  retries: 0\n  headers: {X-Api-Key: \"${K}\"}\n"), Options{Getenv: env("K", testSecret)})
	}
	_, err := open("/away").Observe(context.Background(), assay.Case{ID: "a", Query: "q"})
	if err == nil || !strings.Contains(err.Error(), "redirect to "+b.URL+"/x refused") || other.Load() != 0 {
		t.Fatalf("cross-host redirect: err %v, other host saw %d requests", err, other.Load())
	}
	o, err := open("/here").Observe(context.Background(), assay.Case{ID: "a", Query: "q"})
	if err != nil || o.Answer != "same host got "+testSecret {
		t.Fatalf("same-host redirect: %v %q", err, o.Answer)
	}
}

// TestStderrTailRedactedBeforeCut: the tail of stderr is redacted whole
// before it is cut, so a cut inside the token leaves no part of it.
func TestStderrTailRedactedBeforeCut(t *testing.T) {
	t.Parallel()
	red := redact.New(redact.Secret{Name: "K", Value: testSecret})
	check := func(what, got string) {
		t.Helper()
		for i := 0; i+8 <= len(testSecret); i++ {
			if strings.Contains(got, testSecret[i:i+8]) {
				t.Fatalf("%s: %q survives in %q", what, testSecret[i:i+8], got)
			}
		}
	}
	for j := 0; j <= len(testSecret); j++ {
		w := &tailWriter{max: stderrTail, red: red}
		w.Write([]byte("boom " + testSecret + strings.Repeat("y", stderrTail-j)))
		check("tail", w.String())
	}
}

// TestOpenErrorQuotingASecret: an error that quotes a value expanded from
// ${VAR} shows ${VAR}.
func TestOpenErrorQuotingASecret(t *testing.T) {
	t.Parallel()
	p := writeFile(t, "t.yaml", "http:\n  url: http://127.0.0.1:9/x\n  timeout: \"${T}\"\n")
	_, err := Open(p, Options{Getenv: env("T", testSecret)})
	if err == nil || strings.Contains(err.Error(), testSecret) || !strings.Contains(err.Error(), "${T}") || !strings.HasPrefix(err.Error(), p+":3:") {
		t.Fatalf("want a positioned error showing ${T}, got %v", err)
	}
}

// TestLiteralCredentialFormsThatWereAcceptedAreRefused pins the literal
// credentials a target file could carry past the check: a mapping or a
// list under a credential-like name (credentials: {user, pass}: "pass" is
// no credential word, but everything under "credentials" is), a numeric
// password, a body written as one JSON string or as form fields, and a
// credential query parameter in the url of an embeddings: or rerank:
// block (in the target file or in the suite). Each is refused at its
// position without showing the value, and --allow-literal-secrets lets it
// through as a secret.
func TestLiteralCredentialFormsThatWereAcceptedAreRefused(t *testing.T) {
	t.Parallel()
	const q = "    query: \"{{.Query}}\"\n"
	http := "http:\n  url: http://127.0.0.1:9/ask\n  body:\n" + q
	for name, body := range map[string]string{
		"credentials mapping": http + "    credentials: {user: bob, pass: pw-literal-1}\n",
		"list under a name":   http + "    api_key: [key-literal-1]\n",
		"numeric password":    http + "    password: 48151623421\n",
		"json string body":    "http:\n  url: http://127.0.0.1:9/ask\n  body: '{\"q\": \"{{.Query}}\", \"auth\": {\"token\": \"tok-literal-1\"}}'\n",
		"form string body":    "http:\n  url: http://127.0.0.1:9/ask\n  body: 'q={{.Query}}&api_key=key-literal-1'\n",
	} {
		t.Run(name, func(t *testing.T) {
			p := writeFile(t, "t.yaml", body)
			_, err := Open(p, Options{})
			if err == nil || !strings.Contains(err.Error(), "literal credential") || !strings.Contains(err.Error(), "--allow-literal-secrets") {
				t.Fatalf("want refusal, got %v", err)
			}
			if !strings.HasPrefix(err.Error(), p+":") || strings.Contains(err.Error(), "literal-1") || strings.Contains(err.Error(), "48151623421") {
				t.Errorf("refusal not positioned or shows the value: %v", err)
			}
			tg, err := Open(p, Options{AllowLiteralSecrets: true})
			if err != nil {
				t.Fatalf("allowed: %v", err)
			}
			defer Close(tg)
			found := false
			for _, s := range Secrets(tg) {
				found = found || strings.Contains(s.Value, "literal-1") || s.Value == "48151623421"
			}
			if !found {
				t.Errorf("an allowed literal is not a secret: %v", Secrets(tg))
			}
		})
	}
	s := &assay.Suite{Corpus: []assay.Document{{ID: "d1", Text: "hello"}}}
	for name, body := range map[string]string{
		"embeddings url query": "builtin: builtin:hybrid\nembeddings: {url: \"http://127.0.0.1:9/v1?api_key=key-literal-1\", model: m}\n",
		"rerank url query":     "builtin: builtin:hybrid\nembeddings: {url: \"http://127.0.0.1:9/v1\", model: m}\nrerank: {url: \"http://127.0.0.1:9/v1?key=key-literal-1\", model: m}\n",
	} {
		t.Run(name, func(t *testing.T) {
			p := writeFile(t, "t.yaml", body)
			_, err := Open(p, Options{Suite: s})
			if err == nil || !strings.Contains(err.Error(), "literal credential") || !strings.HasPrefix(err.Error(), p+":") || strings.Contains(err.Error(), "literal-1") {
				t.Fatalf("want a positioned refusal without the value, got %v", err)
			}
			if _, err := Open(p, Options{Suite: s, AllowLiteralSecrets: true}); err != nil && strings.Contains(err.Error(), "literal credential") {
				t.Fatalf("allowed: %v", err)
			}
		})
	}
	t.Run("suite embeddings url query", func(t *testing.T) {
		s := &assay.Suite{Corpus: s.Corpus, Embeddings: &assay.ModelEndpoint{URL: "http://127.0.0.1:9/v1?api_key=key-literal-1", Model: "m", Pos: map[string]string{"url": "suite.yaml:3:9"}}}
		_, err := Open("builtin:hybrid", Options{Suite: s})
		if err == nil || !strings.Contains(err.Error(), "literal credential") || !strings.HasPrefix(err.Error(), "suite.yaml:3:9:") || strings.Contains(err.Error(), "literal-1") {
			t.Fatalf("want a positioned refusal without the value, got %v", err)
		}
		if _, err := Open("builtin:hybrid", Options{Suite: s, AllowLiteralSecrets: true}); err != nil && strings.Contains(err.Error(), "literal credential") {
			t.Fatalf("allowed: %v", err)
		}
	})
}
