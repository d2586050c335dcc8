package target

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/target/targettest"
)

// TestMain lets the test binary stand in for a system under test: with
// ASSAY_TARGETTEST=oneshot|serve it runs the reference program.
func TestMain(m *testing.M) {
	if mode := os.Getenv("ASSAY_TARGETTEST"); mode != "" {
		os.Exit(targettest.Program(targettest.Suite(), mode, os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

const testSecret = "s3cr3t-token-4711"

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// writeFile writes a target file into a fresh directory.
func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// mustOpen opens a spec and closes the target when the test ends.
func mustOpen(t *testing.T, spec string, o Options) assay.Target {
	t.Helper()
	tg, err := Open(spec, o)
	if err != nil {
		t.Fatalf("Open(%s): %v", spec, err)
	}
	t.Cleanup(func() { Close(tg) })
	return tg
}

func TestConformanceHTTPShorthand(t *testing.T) {
	t.Parallel()
	targettest.Run(t, func(t *testing.T, s *assay.Suite) assay.Target {
		srv := httptest.NewServer(targettest.Handler(s))
		t.Cleanup(srv.Close)
		return mustOpen(t, srv.URL+"/ask", Options{Suite: s})
	}, targettest.Config{})
}

func TestConformanceHTTPFile(t *testing.T) {
	t.Parallel()
	targettest.Run(t, func(t *testing.T, s *assay.Suite) assay.Target {
		h := targettest.Handler(s)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+testSecret {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close)
		p := writeFile(t, "target.yaml", `http:
  url: `+srv.URL+`/api/ask
  headers: {Authorization: "Bearer ${TOKEN}"}
  body: {query: "{{.Query}}", k: "{{.K}}", id: "{{.ID}}"}
  timeout: 5s
`)
		return mustOpen(t, p, Options{Suite: s, Getenv: env("TOKEN", testSecret)})
	}, targettest.Config{Secret: testSecret})
}

func TestConformanceCommandOneShot(t *testing.T) {
	t.Parallel()
	targettest.Run(t, func(t *testing.T, s *assay.Suite) assay.Target {
		exe, _ := os.Executable()
		p := writeFile(t, "target.yaml", "command: ["+quoteYAML(exe)+"]\nenv: {ASSAY_TARGETTEST: oneshot, API_KEY: \"${KEY}\"}\ntimeout: 20s\n")
		return mustOpen(t, p, Options{Suite: s, Getenv: env("KEY", testSecret)})
	}, targettest.Config{Secret: testSecret})
}

func TestConformanceCommandServe(t *testing.T) {
	t.Parallel()
	targettest.Run(t, func(t *testing.T, s *assay.Suite) assay.Target {
		exe, _ := os.Executable()
		p := writeFile(t, "target.yaml", "command: {serve: ["+quoteYAML(exe)+"], workers: 2}\nenv: {ASSAY_TARGETTEST: serve}\ntimeout: 20s\n")
		return mustOpen(t, p, Options{Suite: s})
	}, targettest.Config{})
}

func TestConformanceBuiltin(t *testing.T) {
	t.Parallel()
	targettest.Run(t, func(t *testing.T, s *assay.Suite) assay.Target {
		return mustOpen(t, "builtin", Options{Suite: s})
	}, targettest.Config{})
}

func TestConformanceReplay(t *testing.T) {
	t.Parallel()
	s := targettest.Suite()
	var b strings.Builder
	for _, c := range s.Cases {
		o := targettest.Answer(s, c.Query, 3)
		o.Case = c.ID
		line, _ := json.Marshal(o)
		b.Write(line)
		b.WriteByte('\n')
	}
	p := writeFile(t, "trace.jsonl", b.String())
	targettest.Run(t, func(t *testing.T, s *assay.Suite) assay.Target {
		return mustOpen(t, "replay:"+p, Options{Suite: s})
	}, targettest.Config{NoTrials: true})
}

func quoteYAML(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
