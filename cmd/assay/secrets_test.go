package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The secrets of the acceptance test: an API key (with a "/" so that its
// JSON form "\/" is exercised), and URL user info, whose base64 form is the
// Authorization header net/http sends.
const (
	accToken = "sk-Live/Q7pZ2mXc9RtV4bN8kJ1wH6yF3dS0aE5g"
	accUser  = "svc-account-7f3q"
	accPass  = "Pw-7Hq2Lm9Xz4Kc8Vb"
)

func accSecrets() []string {
	return []string{accToken, accUser, accPass, base64.StdEncoding.EncodeToString([]byte(accUser + ":" + accPass))}
}

// jsonEscapedFirst is s with its first byte as a \u escape and "/" as
// "\/", the forms other JSON encoders write.
func jsonEscapedFirst(s string) string {
	return fmt.Sprintf(`\u%04x`, s[0]) + strings.ReplaceAll(s[1:], "/", `\/`)
}

// echoServer answers every request with what its headers carry (so the
// secrets), in every field of the response, in the way its query asks:
//
//	ok        an observation with the echo in every field and mapped value
//	obserr    an observation whose error class and message are the echo
//	status-N  a 500 whose body is N bytes of padding and then the echo
//	line-N    the same, the token also in the status line
//	nojson-N  a 200 whose body is N bytes of padding, the echo, not JSON
func echoServer(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Query string }
		json.NewDecoder(r.Body).Decode(&req)
		tok, auth := r.Header.Get("X-Api-Key"), r.Header.Get("Authorization")
		b64 := strings.TrimPrefix(auth, "Basic ")
		user, pass, _ := r.BasicAuth()
		mode, nstr, _ := strings.Cut(req.Query, "-")
		n, _ := strconv.Atoi(nstr)
		pad := strings.Repeat("x", n)
		// The secret this case puts at the cut: cases alternate.
		sec := []string{tok, b64, user, pass}[n%4]
		switch mode {
		case "ok", "obserr":
			echo := tok + " " + auth + " " + user + ":" + pass
			esc, _ := json.Marshal(jsonEscapedFirst(tok))                                             // a string holding the escaped form
			pct := url.QueryEscape(tok)                                                               // percent-encoded
			rawArgs := `{"q": "` + jsonEscapedFirst(tok) + `", "b": "` + jsonEscapedFirst(b64) + `"}` // escaped inside raw JSON
			all := []any{echo, json.RawMessage(esc), pct}
			obj := map[string]any{echo: echo, "list": all, "nested": map[string]any{"k": all}}
			body := map[string]any{
				"answer":    echo + " " + string(esc) + " " + pct,
				"retrieved": []any{map[string]any{"id": echo, "title": echo, "path": pct, "text": echo}},
				"citations": []any{map[string]any{"id": echo + "c", "title": echo, "path": pct, "quote": echo}},
				"tools":     []any{map[string]any{"name": echo, "args": json.RawMessage(rawArgs), "error": echo}},
				"outcome":   echo,
				"spans":     []any{map[string]any{"name": echo, "start_ms": 0, "end_ms": 1}},
				"versions":  map[string]any{echo: echo, "pct": pct},
				"usage":     map[string]any{echo: all, "tokens": 3},
				"extra":     obj,
				"more":      all,
			}
			if mode == "obserr" {
				body["error"] = map[string]any{"class": echo, "message": echo}
			}
			json.NewEncoder(w).Encode(body)
		case "status":
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, pad+sec+" tail")
		case "line":
			hj, ok := w.(http.Hijacker)
			if !ok {
				t.Error("no hijacker")
				return
			}
			conn, buf, _ := hj.Hijack()
			defer conn.Close()
			body := pad + sec + " tail"
			fmt.Fprintf(buf, "HTTP/1.1 500 %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", tok, len(body), body)
			buf.Flush()
		case "nojson":
			io.WriteString(w, pad+sec+" tail")
		}
	}))
}

// leaks returns, for each secret, the first 8-byte substring of it found in
// b, with some context.
func leaks(b []byte) []string {
	var out []string
	for _, s := range accSecrets() {
		for i := 0; i+8 <= len(s); i++ {
			if j := bytes.Index(b, []byte(s[i:i+8])); j >= 0 {
				lo, hi := max(0, j-60), min(len(b), j+68)
				out = append(out, fmt.Sprintf("%q (of %.6s…) in …%q…", s[i:i+8], s, b[lo:hi]))
				break
			}
		}
	}
	return out
}

// checkNoLeak reads every file under dir (gunzipping .gz) and the extra
// texts, and fails on any 8-byte substring of a secret.
func checkNoLeak(t *testing.T, dirs []string, texts map[string]string) {
	t.Helper()
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(p, ".gz") {
				zr, err := gzip.NewReader(bytes.NewReader(b))
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				if b, err = io.ReadAll(zr); err != nil {
					t.Fatalf("%s: %v", p, err)
				}
			}
			for _, l := range leaks(b) {
				t.Errorf("%s: %s", p, l)
			}
			return nil
		})
	}
	for name, s := range texts {
		for _, l := range leaks([]byte(s)) {
			t.Errorf("%s: %s", name, l)
		}
	}
}

func accEnv(name string) string {
	return map[string]string{"API_KEY": accToken, "SVC_USER": accUser, "SVC_PASS": accPass}[name]
}

// accCases writes a suite whose queries are the server's modes, with a pad
// for each offset at which a 200-byte cut (a non-2xx snippet) or a 40-byte
// cut (a body that is not JSON) lands inside the secret at the cut.
func accSuite(t *testing.T, dir string, queries []string) string {
	var b strings.Builder
	b.WriteString("assay: 1\nname: secrets\ncases:\n")
	for i, q := range queries {
		fmt.Fprintf(&b, "  - id: c%03d\n    query: %s\n    relevant: [d1]\n    expect: {answer_includes: [zzz-absent], cites_only_surfaced: true, calls_tool: [search], retrieves: [d1], outcome: done}\n", i, q)
	}
	p := filepath.Join(dir, "suite.yaml")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runAcceptance(t *testing.T, dir, suitePath, targetPath string) {
	t.Helper()
	st := filepath.Join(dir, "store")
	outDir := filepath.Join(dir, "out")
	os.Mkdir(outDir, 0o755)
	var stdout, stderr bytes.Buffer
	args := []string{"run", suitePath, "--target", targetPath, "--store", st, "-j", "2", "--max-failures", "0", "--gate", "pass_rate >= 1",
		"--json", filepath.Join(outDir, "run.json"), "--markdown", filepath.Join(outDir, "run.md"),
		"--junit", filepath.Join(outDir, "run.xml"), "--badge", filepath.Join(outDir, "badge.json"),
		"--record", filepath.Join(outDir, "trace.jsonl")}
	code := run(context.Background(), args, &Env{Stdout: &stdout, Stderr: &stderr, Getenv: accEnv})
	if code != 1 {
		t.Fatalf("exit %d, want 1 (cases fail); stderr:\n%s", code, stderr.String())
	}
	// The run did see the secrets (or the test proves nothing).
	rec, _ := os.ReadFile(filepath.Join(outDir, "trace.jsonl"))
	if !bytes.Contains(rec, []byte("${API_KEY}")) {
		t.Fatalf("the record shows no redacted secret: the server's echo did not arrive\n%.2000s", rec)
	}
	// --json - to stdout, too.
	var stdout2, stderr2 bytes.Buffer
	run(context.Background(), append(args[:len(args)-10:len(args)-10], "--json", "-", "--no-store"), &Env{Stdout: &stdout2, Stderr: &stderr2, Getenv: accEnv})
	if !strings.Contains(stdout2.String(), `"schema"`) {
		t.Fatalf("--json - wrote no run: %s", stderr2.String())
	}
	checkNoLeak(t, []string{st, outDir}, map[string]string{
		"stdout": stdout.String(), "stderr": stderr.String(),
		"stdout of --json -": stdout2.String(), "stderr of --json -": stderr2.String(),
	})
}

// TestSecretsNeverLeaveARun is the secrets acceptance test: a server that
// echoes every request header into every response field, error body and
// status line, at every offset of a snippet cut, and a command target that
// echoes its secret into stdout and the tail of its stderr, leave no
// 8-byte substring of any secret in the store (cases.jsonl.gz decompressed,
// the index), the output files, the --record file, stdout or stderr.
func TestSecretsNeverLeaveARun(t *testing.T) {
	t.Parallel()
	t.Run("http", func(t *testing.T) {
		srv := echoServer(t)
		defer srv.Close()
		dir := t.TempDir()
		host := strings.TrimPrefix(srv.URL, "http://")
		tp := filepath.Join(dir, "target.yaml")
		os.WriteFile(tp, []byte(`http:
  url: http://${SVC_USER}:${SVC_PASS}@`+host+`/ask
  headers: {X-Api-Key: "${API_KEY}"}
  retries: 0
  map:
    answer: answer
    retrieved: retrieved
    citations: citations
    tools: tools
    outcome: outcome
    spans: spans
    versions: versions
    usage: usage
    error: error
    extra: extra
    more: more
    status: header:X-None
`), 0o644)
		queries := []string{"ok-0", "ok-1", "obserr-0"}
		// Each of the four secrets at each position of the 200-byte cut
		// (and of the 40-byte cut), one case per position.
		longest := 0
		for _, s := range accSecrets() {
			longest = max(longest, len(s))
		}
		for n := 200 - longest - 4; n < 200; n++ {
			queries = append(queries, fmt.Sprintf("status-%d", n))
		}
		for n := 200 - longest - 4; n < 200; n += 3 {
			queries = append(queries, fmt.Sprintf("line-%d", n))
		}
		for n := max(0, 40-longest-4); n < 40; n++ {
			queries = append(queries, fmt.Sprintf("nojson-%d", n))
		}
		runAcceptance(t, dir, accSuite(t, dir, queries), tp)
	})
	t.Run("command", func(t *testing.T) {
		dir := t.TempDir()
		script := filepath.Join(dir, "sut.sh")
		// ok-N: an observation echoing the token; fail-N: the token, then
		// N bytes, on stderr, and exit 3: the 2048-byte tail cuts the token
		// at every position as N goes. The N bytes are made by the shell
		// itself (printf's precision cuts a doubled string), so a case is
		// one process, not three.
		os.WriteFile(script, []byte(`#!/bin/sh
mode=${ASSAY_QUERY%%-*}
n=${ASSAY_QUERY#*-}
if [ "$mode" = ok ]; then
  printf '{"answer": "%s", "retrieved": [{"id": "%s"}], "versions": {"%s": "%s"}}\n' "$API_TOKEN" "$API_TOKEN" "$API_TOKEN" "$API_TOKEN"
  exit 0
fi
pad=y
while [ ${#pad} -lt "$n" ]; do pad=$pad$pad; done
printf 'boom %s %.*s' "$API_TOKEN" "$n" "$pad" >&2
exit 3
`), 0o755)
		tp := filepath.Join(dir, "target.yaml")
		os.WriteFile(tp, []byte("command: [sh, "+script+"]\nenv: {API_TOKEN: \"${API_KEY}\"}\n"), 0o644)
		queries := []string{"ok-0"}
		for n := 2048 - len(accToken) - 2; n <= 2048; n++ {
			queries = append(queries, fmt.Sprintf("fail-%d", n))
		}
		runAcceptance(t, dir, accSuite(t, dir, queries), tp)
	})
}

// TestSecretEqualToACorpusWordKeepsTheGrades: a token whose value is also
// a document id of the corpus ("demo") does not change what is graded:
// the metrics and passes equal those of the same run with another token.
// (Redacting before grading made demo.md "${KB_TOKEN}.md": nDCG 1 → 0.)
func TestSecretEqualToACorpusWordKeepsTheGrades(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"answer": "see demo", "retrieved": [{"id": "demo.md"}, {"id": "other.md"}], "citations": [{"id": "demo.md"}]}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "suite.yaml"), []byte(`assay: 1
name: demo
cases:
  - id: q1
    query: what is the demo
    judgments: {demo.md: 2}
    expect: {retrieves: [demo.md], cites: [demo.md], answer_includes: [demo]}
`), 0o644)
	tp := filepath.Join(dir, "target.yaml")
	os.WriteFile(tp, []byte("http:\n  url: "+srv.URL+"/ask\n  headers: {X-Kb-Token: \"${KB_TOKEN}\"}\n"), 0o644)
	summary := func(token string) (int, map[string]any) {
		js := filepath.Join(dir, token+".json")
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"run", filepath.Join(dir, "suite.yaml"), "--target", tp, "--no-store", "--json", js},
			&Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string {
				if k == "KB_TOKEN" {
					return token
				}
				return ""
			}})
		b, err := os.ReadFile(js)
		if err != nil {
			t.Fatalf("token %s: exit %d: %s", token, code, stderr.String())
		}
		var doc struct {
			Summary map[string]any `json:"summary"`
		}
		json.Unmarshal(b, &doc)
		return code, doc.Summary
	}
	codeDemo, demo := summary("demo")
	codeOther, other := summary("zq-unrelated-token")
	dm, _ := json.Marshal(demo["metrics"])
	om, _ := json.Marshal(other["metrics"])
	if codeDemo != 0 || codeOther != 0 || string(dm) != string(om) || demo["pass_rate"] != other["pass_rate"] {
		t.Errorf("a token equal to a corpus word changed the grades:\n demo  exit %d %v %s\n other exit %d %v %s", codeDemo, demo["pass_rate"], dm, codeOther, other["pass_rate"], om)
	}
	if !strings.Contains(string(dm), `"ndcg@10":{"mean":1`) {
		t.Errorf("ndcg@10 not 1: %s", dm)
	}
}

var _ = bufio.NewReader
