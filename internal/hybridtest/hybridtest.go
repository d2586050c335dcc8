// Package hybridtest is the embedding and rerank stand-in of the hybrid
// builtin's tests: deterministic "concept" vectors in which words of
// several languages that mean the same thing point the same way (so dense
// retrieval finds a German document for an English query, which BM25
// cannot), a rerank score from those vectors, and Main, an
// OpenAI-compatible server on 127.0.0.1 for testscripts.
package hybridtest

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"unicode"
)

// concepts maps a lower-cased word to its concept (a dimension of the
// vectors). Words of English, German and French share a concept when they
// mean the same.
var concepts = map[string]int{
	"password": 0, "passwort": 0, "passe": 0, "kennwort": 0,
	"reset": 1, "zurücksetzen": 1, "réinitialiser": 1, "recover": 1,
	"forgotten": 2, "vergessen": 2, "oublié": 2, "lost": 2, "forgot": 2,
	"account": 3, "konto": 3, "kontoseite": 3, "compte": 3,
	"invoice": 4, "invoices": 4, "rechnung": 4, "rechnungen": 4, "facture": 4, "factures": 4, "billing": 4,
	"monthly": 5, "monatlich": 5, "mensuel": 5, "mensuelle": 5,
	"deploy": 6, "deployment": 6, "bereitstellung": 6, "déploiement": 6,
	"cluster": 7, "kubernetes": 7,
	"error": 8, "errors": 8, "fehler": 8, "erreur": 8,
	"retry": 9, "wiederholen": 9, "wiederholung": 9, "réessayer": 9,
	"email": 10, "e-mail": 10, "mail": 10, "courriel": 10,
	"link": 11, "verknüpfung": 11, "lien": 11,
}

// Dim is the dimension of the vectors: the concepts, and one more that
// every text has a little of (so no vector is zero).
const Dim = 16

// Vector is the concept vector of text: for each word, 1 in its concept's
// dimension; plus 0.1 in the last dimension.
func Vector(text string) []float32 {
	v := make([]float32, Dim)
	v[Dim-1] = 0.1
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '-'
	}) {
		if c, ok := concepts[w]; ok {
			v[c]++
		}
	}
	return v
}

// Rerank scores each document by the cosine of its concept vector with
// the query's, rounded to 4 decimals.
func Rerank(query string, docs []string) []float64 {
	q := Vector(query)
	out := make([]float64, len(docs))
	for i, d := range docs {
		out[i] = math.Round(cosine(q, Vector(d))*1e4) / 1e4
	}
	return out
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

// Counts are the requests a Handler answered.
type Counts struct {
	mu                                 sync.Mutex
	Embed, EmbedInputs, Rerank, Denied int
}

// Handler serves POST /v1/embeddings ({model, input: [...]} ->
// {data: [{index, embedding}]}) and POST /v1/rerank ({model, query,
// documents, top_n} -> {results: [{index, relevance_score}]}, best
// first), counting into c. With key set, a request without
// "Authorization: Bearer KEY" is answered 401.
func Handler(key string, c *Counts) http.Handler {
	mux := http.NewServeMux()
	auth := func(w http.ResponseWriter, r *http.Request) bool {
		if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
			c.mu.Lock()
			c.Denied++
			c.mu.Unlock()
			writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]string{"message": "invalid api key"}})
			return false
		}
		return true
	}
	mux.HandleFunc("POST /v1/embeddings", func(w http.ResponseWriter, r *http.Request) {
		if !auth(w, r) {
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 64<<20)).Decode(&req); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]string{"message": err.Error()}})
			return
		}
		c.mu.Lock()
		c.Embed++
		c.EmbedInputs += len(req.Input)
		c.mu.Unlock()
		data := make([]any, len(req.Input))
		for i, in := range req.Input {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": Vector(in)}
		}
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
	})
	mux.HandleFunc("POST /v1/rerank", func(w http.ResponseWriter, r *http.Request) {
		if !auth(w, r) {
			return
		}
		var req struct {
			Query     string   `json:"query"`
			Documents []string `json:"documents"`
			TopN      int      `json:"top_n"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 64<<20)).Decode(&req); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]string{"message": err.Error()}})
			return
		}
		c.mu.Lock()
		c.Rerank++
		c.mu.Unlock()
		type result struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		}
		scores := Rerank(req.Query, req.Documents)
		res := make([]result, len(scores))
		for i, s := range scores {
			res[i] = result{i, s}
		}
		for a := 1; a < len(res); a++ { // stable, best first
			for b := a; b > 0 && res[b].Score > res[b-1].Score; b-- {
				res[b], res[b-1] = res[b-1], res[b]
			}
		}
		if req.TopN > 0 && req.TopN < len(res) {
			res = res[:req.TopN]
		}
		writeJSON(w, http.StatusOK, map[string]any{"results": res})
	})
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// Main is the stand-in program: "hybridstub [--key K] -- CMD ARGS..."
// serves on a free 127.0.0.1 port, runs CMD with HYBRID_URL set to the base
// URL (http://127.0.0.1:PORT/v1), prints the requests it answered to
// stdout when CMD ends, and returns CMD's exit status.
func Main(args []string, stdout, stderr io.Writer, environ []string) int {
	fs := flag.NewFlagSet("hybridstub", flag.ContinueOnError)
	fs.SetOutput(stderr)
	key := fs.String("key", "", "bearer key required of every request")
	if err := fs.Parse(args); err != nil || fs.NArg() == 0 {
		fmt.Fprintln(stderr, "usage: hybridstub [--key K] -- CMD ARGS...")
		return 2
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(stderr, "hybridstub: %v\n", err)
		return 1
	}
	var c Counts
	srv := &http.Server{Handler: Handler(*key, &c)}
	go srv.Serve(l)
	cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
	cmd.Env = append(environ, "HYBRID_URL=http://"+l.Addr().String()+"/v1")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Run()
	srv.Shutdown(context.Background())
	c.mu.Lock()
	fmt.Fprintf(stdout, "hybridstub: embeddings %d requests (%d inputs), rerank %d requests, denied %d\n", c.Embed, c.EmbedInputs, c.Rerank, c.Denied)
	c.mu.Unlock()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		fmt.Fprintf(stderr, "hybridstub: %v\n", err)
		return 1
	}
	return 0
}

// Dense is a deterministic dense embedding of dim dimensions, the vectors
// the benchmarks use (768 for SciFact): the sum over the first 16 distinct
// lower-cased words of the text of a pseudo-random normal vector seeded by
// the word, so texts that begin alike point the same way (16 words keep
// the stand-in's cost low; the vectors are dense either way).
func Dense(text string, dim int) []float32 {
	v := make([]float32, dim)
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if seen[w] {
			continue
		}
		if seen[w] = true; len(seen) > 16 {
			break
		}
		h := fnv.New64a()
		h.Write([]byte(w))
		r := rand.New(rand.NewPCG(h.Sum64(), 1))
		for j := range v {
			v[j] += float32(r.NormFloat64())
		}
	}
	return v
}
