package target

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/engine"
)

// Builtin is the built-in baseline target: the engine's BM25 (or BM25+RM3)
// index over the suite's corpus and its extractive answerer. It is safe for
// concurrent use; the index is built once, by NewBuiltin.
type Builtin struct {
	spec  string
	ix    *engine.Index
	k     int // the suite's default k (0: assay.DefaultK)
	info  assay.TargetInfo
	vers  map[string]string
	clock func() time.Time
}

var (
	_ assay.Target    = (*Builtin)(nil)
	_ assay.Describer = (*Builtin)(nil)
)

// builtinParams are the query parameters a builtin spec accepts.
var builtinParams = []string{"k1", "b", "analyzer", "fb_docs", "fb_terms", "original_query_weight"}

// ParseBuiltinSpec reads "builtin", "builtin:rm3" and either with
// "?k1=1.2&b=0.75&analyzer=de&fb_docs=10&fb_terms=10&original_query_weight=0.5"
// into engine options, starting from engine.DefaultOptions.
func ParseBuiltinSpec(spec string) (engine.Options, error) {
	o := engine.DefaultOptions()
	rest, ok := strings.CutPrefix(spec, "builtin")
	if !ok {
		return o, fmt.Errorf("builtin target: spec %q does not start with builtin", spec)
	}
	variant, query, _ := strings.Cut(rest, "?")
	switch variant {
	case "", ":bm25":
	case ":rm3", ":bm25+rm3":
		o.RM3 = true
	default:
		return o, fmt.Errorf("builtin target: unknown variant %q (valid: builtin, builtin:rm3)", strings.TrimPrefix(variant, ":"))
	}
	vals, err := url.ParseQuery(query)
	if err != nil {
		return o, fmt.Errorf("builtin target: bad parameters %q: %v", query, err)
	}
	keys := make([]string, 0, len(vals))
	for key := range vals {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		v := vals.Get(key)
		num := func() (float64, error) {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, fmt.Errorf("builtin target: %s=%q is not a number", key, v)
			}
			return f, nil
		}
		var f float64
		if key != "analyzer" {
			if f, err = num(); err != nil {
				return o, err
			}
		}
		switch key {
		case "k1":
			o.K1 = f
		case "b":
			o.B = f
		case "analyzer":
			o.Analyzer = v
		case "fb_docs":
			o.FbDocs = int(f)
		case "fb_terms":
			o.FbTerms = int(f)
		case "original_query_weight":
			o.OriginalQueryWeight = f
		default:
			return o, fmt.Errorf("builtin target: unknown parameter %q (valid: %s)", key, strings.Join(builtinParams, ", "))
		}
	}
	if err := o.Validate(); err != nil {
		return o, fmt.Errorf("builtin target: %v", err)
	}
	return o, nil
}

func newBuiltin(spec string, o Options) (assay.Target, error) {
	return NewBuiltin(spec, o.Suite)
}

// NewBuiltin builds the builtin target a spec names over s's corpus. The
// suite's analyzer option is the default language unless the spec sets one.
func NewBuiltin(spec string, s *assay.Suite) (*Builtin, error) {
	opts, err := ParseBuiltinSpec(spec)
	if err != nil {
		return nil, err
	}
	if s == nil {
		s = &assay.Suite{}
	}
	if opts.Analyzer == "" && s.Analyzer != "" {
		opts.Analyzer = s.Analyzer
		if err := opts.Validate(); err != nil {
			return nil, fmt.Errorf("suite analyzer: %v", err)
		}
	}
	if len(s.Corpus) == 0 {
		return nil, fmt.Errorf("builtin target: the suite has no corpus (add corpus: to the suite, or choose another --target)")
	}
	ix, err := engine.Build(s.Corpus, opts)
	if err != nil {
		return nil, fmt.Errorf("builtin target: %v", err)
	}
	return newBuiltinFromIndex(spec, ix, s.Defaults.K), nil
}

// NewBuiltinIndex wraps an already built index (for assay serve).
func NewBuiltinIndex(spec string, ix *engine.Index, defaultK int) *Builtin {
	return newBuiltinFromIndex(spec, ix, defaultK)
}

func newBuiltinFromIndex(spec string, ix *engine.Index, defaultK int) *Builtin {
	opts := ix.Options()
	engineName := "bm25"
	if opts.RM3 {
		engineName = "bm25+rm3"
	}
	analyzer := opts.Analyzer
	if analyzer == "" {
		analyzer = "auto:" + strings.Join(ix.Languages(), ",")
	}
	config := map[string]any{"engine": engineName, "k1": opts.K1, "b": opts.B, "analyzer": analyzer}
	if opts.RM3 {
		config["fb_docs"] = opts.FbDocs
		config["fb_terms"] = opts.FbTerms
		config["original_query_weight"] = opts.OriginalQueryWeight
	}
	vers := map[string]string{"engine": engineName, "analyzer": analyzer, "assay": assay.Version}
	b := &Builtin{spec: spec, ix: ix, k: defaultK, vers: vers, clock: time.Now}
	b.info = assay.TargetInfo{Kind: "builtin", Spec: spec, Config: config, Fingerprint: builtinFingerprint(config, ix), Versions: vers}
	return b
}

// builtinFingerprint is sha256 over the canonical config and every document's
// id, title, path, lang and text.
func builtinFingerprint(config map[string]any, ix *engine.Index) string {
	h := sha256.New()
	cj, _ := json.Marshal(config) // map keys are sorted
	h.Write(cj)
	for i := 0; i < ix.Len(); i++ {
		d := ix.Doc(i)
		for _, f := range []string{d.ID, d.Title, d.Path, d.Lang, d.Text} {
			fmt.Fprintf(h, "%d:%s", len(f), f)
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Describe says what the target is (the run record's target).
func (b *Builtin) Describe() assay.TargetInfo {
	info := b.info
	info.Config = maps.Clone(b.info.Config)
	info.Versions = maps.Clone(b.info.Versions)
	return info
}

// Index returns the engine index the target searches.
func (b *Builtin) Index() *engine.Index { return b.ix }

// Observe searches and answers one case.
func (b *Builtin) Observe(ctx context.Context, c assay.Case) (assay.Observation, error) {
	if err := ctx.Err(); err != nil {
		return assay.Observation{}, assay.Errorf(assay.ErrCanceled, "%v", err)
	}
	k := c.K
	if k <= 0 {
		k = b.k
	}
	if k <= 0 {
		k = assay.DefaultK
	}
	return b.ObserveQuery(c.ID, assay.TrialFrom(ctx), c.Query, k, c.Tags["lang"]), nil
}

// ObserveQuery runs one query: analysis, retrieval of the k best documents,
// and the extractive answer, timed as three spans.
func (b *Builtin) ObserveQuery(caseID string, trial int, query string, k int, lang string) assay.Observation {
	start := b.clock()
	ms := func(t time.Time) float64 { return float64(t.Sub(start).Microseconds()) / 1000 }
	q := engine.Query{Text: query, K: k, Lang: lang}
	terms := b.ix.Terms(q)
	tAnalyze := b.clock()
	res := b.ix.SearchTerms(terms, k, b.ix.Options().RM3)
	tRetrieve := b.clock()
	ans := b.ix.Answer(q, res)
	tAnswer := b.clock()

	obs := assay.Observation{Case: caseID, Trial: trial, Answer: ans.Text, Versions: maps.Clone(b.vers)}
	obs.Retrieved = make([]assay.Hit, 0, len(res))
	for _, r := range res {
		d := b.ix.Doc(r.Doc)
		obs.Retrieved = append(obs.Retrieved, assay.Hit{ID: d.ID, Score: r.Score, Title: d.Title, Path: d.Path})
	}
	for _, doc := range ans.Docs() {
		d := b.ix.Doc(doc)
		var quotes []string
		for _, s := range ans.Sentences {
			if s.Doc == doc {
				quotes = append(quotes, s.Text)
			}
		}
		obs.Citations = append(obs.Citations, assay.Citation{ID: d.ID, Title: d.Title, Path: d.Path, Quote: strings.Join(quotes, " ")})
	}
	refused := ans.Refused
	obs.Refused = &refused
	lat := ms(tAnswer)
	obs.LatencyMs = &lat
	obs.Spans = []assay.Span{
		{Name: "analyze", StartMs: 0, EndMs: ms(tAnalyze)},
		{Name: "retrieve", StartMs: ms(tAnalyze), EndMs: ms(tRetrieve)},
		{Name: "answer", StartMs: ms(tRetrieve), EndMs: ms(tAnswer)},
	}
	return obs
}

// MaxServeK bounds the k a Handler request may ask for.
const MaxServeK = 10000

// serveRequest is the body of POST /search and POST /ask.
type serveRequest struct {
	Query string `json:"query"`
	K     int    `json:"k"`
	Lang  string `json:"lang"`
	ID    string `json:"id"`
}

// Handler serves the target over HTTP (assay serve):
//
//	POST /search {"query", "k", "lang"?}   -> {"retrieved": [{id, score, title, path}, ...]}
//	POST /ask    {"query", "k", "lang"?, "id"?} -> an observation in the trace shape
//	GET  /healthz                          -> {"status": "ok", "documents": N, "engine": ...}
//
// k defaults to the suite's k (else 10) and is capped at MaxServeK. Bad
// requests get a 4xx status with {"error": "..."}.
func (b *Builtin) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			httpError(w, http.StatusMethodNotAllowed, "use GET /healthz")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "documents": b.ix.Len(), "engine": b.vers["engine"]})
	})
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		req, ok := b.readRequest(w, r)
		if !ok {
			return
		}
		obs := b.ObserveQuery(req.ID, 0, req.Query, req.K, req.Lang)
		writeJSON(w, http.StatusOK, map[string]any{"retrieved": obs.Retrieved, "latency_ms": obs.LatencyMs})
	})
	mux.HandleFunc("/ask", func(w http.ResponseWriter, r *http.Request) {
		req, ok := b.readRequest(w, r)
		if !ok {
			return
		}
		writeJSON(w, http.StatusOK, b.ObserveQuery(req.ID, 0, req.Query, req.K, req.Lang))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		httpError(w, http.StatusNotFound, fmt.Sprintf("no route %s %s (routes: POST /search, POST /ask, GET /healthz)", r.Method, r.URL.Path))
	})
	return mux
}

// maxServeBody bounds a request body of assay serve (1 MiB); a larger one
// is answered 413.
const maxServeBody = 1 << 20

func (b *Builtin) readRequest(w http.ResponseWriter, r *http.Request) (serveRequest, bool) {
	var req serveRequest
	if r.Method != http.MethodPost {
		httpError(w, http.StatusMethodNotAllowed, "use POST with a JSON body {\"query\": ..., \"k\": ...}")
		return req, false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxServeBody))
	if err := dec.Decode(&req); err != nil {
		var tooBig *http.MaxBytesError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &tooBig):
			httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes", int64(maxServeBody)))
		case errors.As(err, &te) && te.Field == "":
			httpError(w, http.StatusBadRequest, "body is not a JSON object {\"query\": ..., \"k\": ...}: got "+te.Value)
		case errors.As(err, &te):
			want := "a string"
			if te.Field == "k" {
				want = "an integer"
			}
			httpError(w, http.StatusBadRequest, fmt.Sprintf("%q: want %s, got %s", te.Field, want, te.Value))
		default:
			httpError(w, http.StatusBadRequest, "body is not a JSON object {\"query\": ..., \"k\": ...}: "+strings.TrimPrefix(err.Error(), "json: "))
		}
		return req, false
	}
	if strings.TrimSpace(req.Query) == "" {
		httpError(w, http.StatusBadRequest, "missing \"query\"")
		return req, false
	}
	if req.K < 0 {
		httpError(w, http.StatusBadRequest, fmt.Sprintf("k must be >= 1, got %d", req.K))
		return req, false
	}
	if req.K == 0 {
		req.K = b.k
	}
	if req.K <= 0 {
		req.K = assay.DefaultK
	}
	req.K = min(req.K, MaxServeK)
	return req, true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func httpError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
