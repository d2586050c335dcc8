package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"

	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/postgres/pgtest"
	"github.com/assay-eval/assay/ui"
	"github.com/jackc/pgx/v5"
)

// The model endpoints' keys and the store's password of the second leak
// test. Each key has a "/" (its JSON form "\/" is exercised) and is longer
// than every 8-byte window the check slides over it.
const (
	judgeKey  = "sk-Judge/R2vK8pQx5LmT9wZc3NhB7yF1dG4"
	embedKey  = "sk-Embed/M6tQ1xWv8KpZ3rLc9HbN2yD5fJ7"
	rerankKey = "sk-Rrank/W4pL9cXz2QmV7tKb1NhR6yG3dF8"
	storePass = "Pg-Store/Pw7Kx2Qm9Zt4Lc"
)

func modelSecrets() []string { return []string{judgeKey, embedKey, rerankKey, storePass} }

// modelLeaks is leaks for the model and store secrets.
func modelLeaks(b []byte) []string {
	var out []string
	for _, s := range modelSecrets() {
		for i := 0; i+8 <= len(s); i++ {
			if j := bytes.Index(b, []byte(s[i:i+8])); j >= 0 {
				lo, hi := max(0, j-60), min(len(b), j+68)
				out = append(out, fmt.Sprintf("%q (of %.8s…) in …%q…", s[i:i+8], s, b[lo:hi]))
				break
			}
		}
	}
	return out
}

var modeRe = regexp.MustCompile(`\b(ok|jr|je|jn|ee|re)-([0-9]+)\b`)

// modelServer is an OpenAI-compatible endpoint that echoes the key it was
// sent (Authorization: Bearer KEY) wherever the query's mode asks:
//
//	jr-N  the judge's reasoning: N bytes, then the key (the 500-character cut)
//	je-N  the judge answers 400 with N bytes, then the key (the 200-byte snippet)
//	jn-N  the judge's answer is not JSON: N bytes, then the key (the 80-character quote)
//	ee-N  the query's embedding answers 400 with N bytes, then the key (a
//	      status the hybrid target does not retry: a 5xx would wait out two
//	      backoffs for each of these cases, 30 s of the test's time, and
//	      the error it keeps is the same one)
//	re-N  the rerank answers 400 with N bytes, then the key
//	ok-0  every endpoint answers, the judge's reasoning holding the key whole
func modelServer(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		mode, n := "ok", 0
		if m := modeRe.FindSubmatch(body); m != nil {
			mode = string(m[1])
			n, _ = strconv.Atoi(string(m[2]))
		}
		pad := strings.Repeat("x", n)
		fail := func(status int) {
			w.WriteHeader(status)
			io.WriteString(w, pad+key+" tail")
		}
		switch {
		case strings.HasSuffix(r.URL.Path, "/chat/completions"):
			content := `{"relevance": 1, "groundedness": 1, "completeness": 1, "reasoning": "echo ` + key + `"}`
			switch mode {
			case "jr":
				content = `{"relevance": 1, "groundedness": 1, "completeness": 1, "reasoning": "` + pad + key + ` tail"}`
			case "je":
				fail(http.StatusBadRequest)
				return
			case "jn":
				content = pad + key + " tail"
			}
			json.NewEncoder(w).Encode(map[string]any{
				"model":   "judge-1",
				"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
				"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
			})
		case strings.HasSuffix(r.URL.Path, "/embeddings"):
			var req struct{ Input []string }
			json.Unmarshal(body, &req)
			if mode == "ee" && len(req.Input) == 1 {
				fail(http.StatusBadRequest)
				return
			}
			var data []any
			for i, in := range req.Input {
				data = append(data, map[string]any{"index": i, "embedding": []float32{1, float32(len(in) % 7), 0.5, float32(i%3) + 0.1}})
			}
			json.NewEncoder(w).Encode(map[string]any{"model": "embed-1", "data": data})
		case strings.HasSuffix(r.URL.Path, "/rerank"):
			if mode == "re" {
				fail(http.StatusBadRequest)
				return
			}
			var req struct{ Documents []string }
			json.Unmarshal(body, &req)
			var res []any
			for i := range req.Documents {
				res = append(res, map[string]any{"index": i, "relevance_score": 1 / float64(i+1)})
			}
			json.NewEncoder(w).Encode(map[string]any{"results": res})
		default:
			http.NotFound(w, r)
		}
	}))
}

func modelEnv(k string) string {
	return map[string]string{"JUDGE_KEY": judgeKey, "EMBED_KEY": embedKey, "RERANK_KEY": rerankKey, "GITHUB_ACTIONS": "true"}[k]
}

// TestModelAndStoreSecretsNeverLeaveARun extends the secrets acceptance
// test to the judge's key, the embeddings and rerank keys of the hybrid
// target, and the password of a postgres:// store URL: the endpoints echo
// their key in every answer, error body and judge reasoning, at every
// offset of each cut (the 500-character reasoning, the 200-byte error
// snippet, the 80-character quote of an answer that is not JSON), and no
// 8-byte substring of any of them is found in the store (run.json,
// cases.jsonl.gz, the index, and the Postgres rows when
// ASSAY_TEST_POSTGRES is set), --json (file and stdout), --record,
// --markdown, --junit, --badge, --report-dir, $GITHUB_STEP_SUMMARY, the
// GitHub annotations, the static HTML report, every page of the live UI,
// `assay cache stats` on the store URL, stdout or stderr.
func TestModelAndStoreSecretsNeverLeaveARun(t *testing.T) {
	if raceEnabled {
		t.Skip("about 200 cases run through two stores: run without -race (go test ./cmd/assay)")
	}
	t.Parallel()
	srv := modelServer(t)
	defer srv.Close()
	dir := t.TempDir()
	base := srv.URL + "/v1"
	var b strings.Builder
	fmt.Fprintf(&b, `assay: 1
name: model-secrets
corpus:
  - {id: d1, text: "tokens are hashed with sha-256 before they are stored"}
  - {id: d2, text: "invitations expire after seven days"}
  - {id: d3, text: "the audit log keeps every sign in"}
  - {id: d4, text: "passwords are salted and hashed"}
embeddings: {url: %q, model: embed-1, api_key: "${EMBED_KEY}"}
rerank: {url: %q, model: rerank-1, api_key: "${RERANK_KEY}"}
judge:
  url: %q
  model: judge-1
  api_key: "${JUDGE_KEY}"
  retries: 0
  concurrency: 2
defaults: {judge: {relevance: 2}}
cases:
`, base, base, base)
	queries := []string{"ok-0"}
	for _, c := range []struct {
		mode string
		cut  int
	}{{"jr", 500}, {"je", 200}, {"jn", 80}, {"ee", 200}, {"re", 200}} {
		// The key at every offset of the cut (the longest key, and the
		// JSON escape of its "/", fit in the window).
		lo := c.cut - len(judgeKey) - 1
		for n := lo; n <= c.cut; n++ {
			queries = append(queries, fmt.Sprintf("%s-%d", c.mode, n))
		}
	}
	for i, q := range queries {
		fmt.Fprintf(&b, "  - {id: c%03d, query: %q, relevant: [d1], expect: {answer_includes: [zzz-absent]}}\n", i, "how are tokens hashed "+q)
	}
	suitePath := filepath.Join(dir, "suite.yaml")
	os.WriteFile(suitePath, []byte(b.String()), 0o644)

	outDir := filepath.Join(dir, "out")
	os.Mkdir(outDir, 0o755)
	summary := filepath.Join(outDir, "step-summary.md")
	stores := []string{filepath.Join(dir, "store")}
	var pgURL, pgSchema string
	if os.Getenv(pgtest.EnvVar) != "" {
		pgURL = pgtest.URL(t)
		u, _ := url.Parse(pgURL)
		pgSchema = u.Query().Get("search_path")
		user := "postgres"
		if u.User != nil {
			user = u.User.Username()
		}
		u.User = url.UserPassword(user, storePass) // a trust server ignores it; the URL carries it
		pgURL = u.String()
		stores = append(stores, pgURL)
	}
	texts := map[string]string{}
	// call runs assay and returns its exit code, stdout and stderr.
	call := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, &Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string {
			if k == "GITHUB_STEP_SUMMARY" {
				return summary
			}
			return modelEnv(k)
		}})
		return code, stdout.String(), stderr.String()
	}
	for si, st := range stores {
		tag := fmt.Sprintf("store%d", si)
		args := []string{"run", suitePath, "--target", "builtin?mode=hybrid&rerank_top=3", "--store", st, "-j", "4", "--max-failures", "0", "--gate", "pass_rate >= 1",
			"--json", filepath.Join(outDir, tag+"-run.json"), "--markdown", filepath.Join(outDir, tag+"-run.md"),
			"--junit", filepath.Join(outDir, tag+"-run.xml"), "--badge", filepath.Join(outDir, tag+"-badge.json"),
			"--record", filepath.Join(outDir, tag+"-trace.jsonl"), "--report-dir", filepath.Join(outDir, tag+"-reports"),
			"--html", filepath.Join(outDir, tag+"-html")}
		code, stdout, stderr := call(args...)
		if code != 1 {
			t.Fatalf("%s: exit %d, want 1 (cases fail); stderr:\n%s", tag, code, stderr)
		}
		texts[tag+" stdout"], texts[tag+" stderr"] = stdout, stderr
		// The run did see the echoes (or the test proves nothing).
		rec, _ := os.ReadFile(filepath.Join(outDir, tag+"-run.json"))
		for _, name := range []string{"${JUDGE_KEY}", "${EMBED_KEY}", "${RERANK_KEY}"} {
			if !bytes.Contains(rec, []byte(name)) {
				t.Errorf("%s: run.json shows no %s: the echo did not arrive", tag, name)
			}
		}
		if !strings.Contains(stdout, "::") {
			t.Errorf("%s: no GitHub annotation on stdout:\n%.2000s", tag, stdout)
		}
		// assay report --html, and the store's listing and cache.
		for _, cmd := range [][]string{
			{"report", "--html", filepath.Join(outDir, tag+"-report"), "latest", "--store", st},
			{"runs", "--store", st},
			{"cache", "stats", "--store", st},
		} {
			name := tag + " " + strings.Join(cmd[:2], " ")
			_, texts[name+" stdout"], texts[name+" stderr"] = call(cmd...)
		}
		// Every page of the live UI, following its links.
		for page, body := range crawlUI(t, st) {
			texts[tag+" ui "+page] = body
		}
	}
	// --json - on stdout.
	_, texts["stdout of --json -"], texts["stderr of --json -"] = call("run", suitePath, "--target", "builtin?mode=hybrid&rerank_top=3", "--no-store", "--json", "-")
	if !strings.Contains(texts["stdout of --json -"], `"schema"`) {
		t.Fatalf("--json - wrote no run: %s", texts["stderr of --json -"])
	}
	// A store URL whose server is not there: the error names the store
	// without its password.
	for _, cmd := range [][]string{
		{"cache", "stats", "--store", "postgres://assay:" + url.PathEscape(storePass) + "@127.0.0.1:1/assay?connect_timeout=2"},
		{"runs", "--store=postgres://assay:" + storePass + "@127.0.0.1:1/assay?connect_timeout=2"},
	} {
		name := strings.Join(cmd[:2], " ") + " unreachable"
		code, stdout, stderr := call(cmd...)
		texts[name+" stdout"], texts[name+" stderr"] = stdout, stderr
		if code != 2 {
			t.Errorf("%s: exit %d, want 2: %s", name, code, stderr)
		}
	}
	if pgURL != "" {
		texts["postgres rows"] = pgRows(t, pgURL, pgSchema)
	}
	checkNoModelLeak(t, []string{stores[0], outDir}, texts)
}

// checkNoModelLeak is checkNoLeak for the model and store secrets.
func checkNoModelLeak(t *testing.T, dirs []string, texts map[string]string) {
	t.Helper()
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b := readMaybeGz(t, p)
			for _, l := range modelLeaks(b) {
				t.Errorf("%s: %s", p, l)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, s := range texts {
		for _, l := range modelLeaks([]byte(s)) {
			t.Errorf("%s: %s", name, l)
		}
	}
}

// crawlUI fetches every page of the UI over the store st that links from
// its front page lead to (at most 400), keyed by path.
func crawlUI(t *testing.T, st string) map[string]string {
	t.Helper()
	s, err := cli.OpenStore(st, store.OpenOptions{})
	if err != nil {
		t.Fatalf("ui store: %v", err)
	}
	defer s.Close()
	h := ui.New(s, ui.Options{})
	href := regexp.MustCompile(`href="(/[^"#]*)"`)
	pages := map[string]string{}
	queue := []string{"/"}
	for len(queue) > 0 && len(pages) < 400 {
		p := queue[0]
		queue = queue[1:]
		if _, ok := pages[p]; ok || strings.HasPrefix(p, "/assets/") {
			continue
		}
		req := httptest.NewRequest(http.MethodGet, p, nil)
		req.Host = "localhost"
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		pages[p] = rec.Body.String()
		if p == "/" && rec.Code != http.StatusOK {
			t.Fatalf("ui: GET / answered %d: %s", rec.Code, rec.Body.String())
		}
		for _, m := range href.FindAllStringSubmatch(rec.Body.String(), -1) {
			queue = append(queue, strings.ReplaceAll(m[1], "&amp;", "&"))
		}
	}
	if len(pages) < 5 {
		t.Errorf("ui: only %d pages reached", len(pages))
	}
	return pages
}

var byteaRe = regexp.MustCompile(`\\+x([0-9a-f]+)`)

// pgRows is every row of every table of the store's schema, as text.
func pgRows(t *testing.T, storeURL, schema string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, storeURL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	rows, err := c.Query(ctx, `SELECT table_name FROM information_schema.tables WHERE table_schema = $1`, schema)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, tb := range tables {
		rows, err := c.Query(ctx, `SELECT t::text FROM `+pgx.Identifier{schema, tb}.Sanitize()+` t`)
		if err != nil {
			t.Fatal(err)
		}
		texts, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range texts {
			b.WriteString(s)
			b.WriteByte('\n')
			// bytea columns (the case lines) print as \x and hex.
			for _, m := range byteaRe.FindAllStringSubmatch(s, -1) {
				if raw, err := hex.DecodeString(m[1]); err == nil {
					b.Write(raw)
					b.WriteByte('\n')
				}
			}
		}
	}
	if b.Len() == 0 {
		t.Error("postgres: no rows to check")
	}
	return b.String()
}

// readMaybeGz reads a file, gunzipped when its name ends in .gz.
func readMaybeGz(t *testing.T, p string) []byte {
	t.Helper()
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
	return b
}
