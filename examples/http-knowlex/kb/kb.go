// Package kb is the Knowlex-style knowledge-base service of the
// http-knowlex example: documents are ingested over HTTP, questions are
// answered extractively, the answer is in the JSON body and the titles of the
// documents it was built from are in the x-knowlex-docs response header.
// Questions the documents do not cover are refused ("The knowledge base does
// not contain ...").
//
//	POST /api/kb/ingest  {"title", "content"}      -> {"title", "sentences"}
//	POST /api/kb/ask     {"question", "k"}         -> {"answer"}
//	                     x-knowlex-docs: Title%201,Title%202 (empty on a refusal)
//	GET  /healthz
package kb

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Main is the program: "knowlex [--addr A] [--token T]" serves until killed;
// "knowlex [--token T] -- CMD ARGS..." serves on a free 127.0.0.1 port, runs
// CMD with KNOWLEX_URL set to the service's base url, and returns CMD's exit
// status (for testscripts, which cannot wait for a background server). The
// token defaults to $KB_TOKEN.
func Main(args []string, stdout, stderr io.Writer, getenv func(string) string, environ []string) int {
	fs := flag.NewFlagSet("knowlex", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:3001", "address to listen on")
	token := fs.String("token", getenv("KB_TOKEN"), "bearer token required by /api (default $KB_TOKEN)")
	busy := fs.Int("busy", 0, "answer the first N questions 503 Service Unavailable (a service under load, for retries)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	h := NewServer(*token)
	if *busy > 0 {
		h = busyFirst(h, int64(*busy))
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "http-knowlex listening on http://%s\n", *addr)
		if err := http.ListenAndServe(*addr, h); err != nil {
			fmt.Fprintf(stderr, "http-knowlex: %v\n", err)
			return 1
		}
		return 0
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(stderr, "http-knowlex: %v\n", err)
		return 1
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(l)
	defer srv.Shutdown(context.Background())
	cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
	cmd.Env = append(environ, "KNOWLEX_URL=http://"+l.Addr().String())
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		fmt.Fprintf(stderr, "http-knowlex: %v\n", err)
		return 1
	}
	return 0
}

// busyFirst answers the first n questions (POST /api/kb/ask) with 503, as a
// service that is briefly overloaded does, and passes the rest to h.
func busyFirst(h http.Handler, n int64) http.Handler {
	var asked atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/api/kb/ask" && asked.Add(1) <= n {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "busy, try again"})
			return
		}
		h.ServeHTTP(w, r)
	})
}

// doc is one ingested document, split into sentences.
type doc struct {
	title     string
	bytes     int // of title and content, as ingested
	sentences []string
	words     map[string]bool
}

type server struct {
	token string
	mu    sync.RWMutex
	docs  map[string]*doc // by title; ingesting a title again replaces it
}

// NewServer returns the service. With a non-empty token every /api request
// needs "Authorization: Bearer TOKEN".
func NewServer(token string) http.Handler {
	s := &server{token: token, docs: map[string]*doc{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/kb/ingest", s.auth(s.ingest))
	mux.HandleFunc("POST /api/kb/ask", s.auth(s.ask))
	mux.HandleFunc("GET /api/kb/stats", s.auth(s.stats))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	return mux
}

func (s *server) auth(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.token != "" && r.Header.Get("Authorization") != "Bearer "+s.token {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "missing or wrong bearer token"})
			return
		}
		next(w, r)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *server) ingest(w http.ResponseWriter, r *http.Request) {
	var in struct{ Title, Content string }
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&in); err != nil || in.Title == "" || in.Content == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "want {\"title\", \"content\"}"})
		return
	}
	d := &doc{title: in.Title, bytes: len(in.Title) + len(in.Content), sentences: sentences(in.Content), words: map[string]bool{}}
	for _, t := range terms(in.Title + " " + in.Content) {
		d.words[t] = true
	}
	s.mu.Lock()
	s.docs[in.Title] = d
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"title": in.Title, "sentences": len(d.sentences)})
}

// stats reports the size of what was ingested: {"documents": N,
// "index": {"bytes": B}}, B the bytes of every title and content held.
func (s *server) stats(w http.ResponseWriter, r *http.Request) {
	s.mu.RLock()
	n, b := len(s.docs), 0
	for _, d := range s.docs {
		b += d.bytes
	}
	s.mu.RUnlock()
	w.Header().Set("X-Knowlex-Documents", fmt.Sprint(n))
	writeJSON(w, http.StatusOK, map[string]any{"documents": n, "index": map[string]int{"bytes": b}})
}

func (s *server) ask(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Question string
		K        int
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&in); err != nil || in.Question == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "want {\"question\", \"k\"}"})
		return
	}
	if in.K <= 0 {
		in.K = 3
	}
	q := terms(in.Question)
	type hit struct {
		d     *doc
		score int
	}
	var hits []hit
	s.mu.RLock()
	for _, d := range s.docs {
		n := 0
		for _, t := range q {
			if d.words[t] {
				n++
			}
		}
		// A document is used when it shares at least two question words.
		if n >= 2 {
			hits = append(hits, hit{d, n})
		}
	}
	s.mu.RUnlock()
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].d.title < hits[j].d.title
	})
	if len(hits) > in.K {
		hits = hits[:in.K]
	}
	if len(hits) == 0 {
		w.Header()["X-Knowlex-Docs"] = []string{""} // as Knowlex does: present and empty on a refusal
		writeJSON(w, http.StatusOK, map[string]string{"answer": "The knowledge base does not contain information about that, so I cannot answer."})
		return
	}
	titles := make([]string, len(hits))
	for i, h := range hits {
		titles[i] = url.PathEscape(h.d.title)
	}
	w.Header().Set("x-knowlex-docs", strings.Join(titles, ","))
	writeJSON(w, http.StatusOK, map[string]string{"answer": bestSentence(hits[0].d, q) + " [1]"})
}

// bestSentence is the sentence of d sharing the most question words.
func bestSentence(d *doc, q []string) string {
	best, bestN := d.sentences[0], -1
	for _, s := range d.sentences {
		words := map[string]bool{}
		for _, t := range terms(s) {
			words[t] = true
		}
		n := 0
		for _, t := range q {
			if words[t] {
				n++
			}
		}
		if n > bestN {
			best, bestN = s, n
		}
	}
	return best
}

func sentences(text string) []string {
	var out []string
	for _, s := range strings.SplitAfter(text, ". ") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be by can do does for from has have how i in is it
		its of on or that the their this to was what when where which who why will with you your
		much many long often does did tell me about there any`) {
		stopwords[w] = true
	}
}

// terms lowercases text and keeps its content words, with a crude plural
// fold so "backups" meets "backup".
func terms(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
	}) {
		f = strings.Trim(f, "-")
		if f == "" || stopwords[f] {
			continue
		}
		if len(f) > 4 && strings.HasSuffix(f, "s") && !strings.HasSuffix(f, "ss") {
			f = f[:len(f)-1]
		}
		out = append(out, f)
	}
	return out
}
