package target

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
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
	// coll is each document's collection (engine.Collection), colls the
	// distinct ones.
	coll  []string
	colls map[string]bool
	hy    *hybrid // nil: BM25 only
}

var (
	_ assay.Target    = (*Builtin)(nil)
	_ assay.Describer = (*Builtin)(nil)
	_ assay.Setupper  = (*Builtin)(nil)
	_ assay.Measurer  = (*Builtin)(nil)
)

// builtinParams are the query parameters a builtin spec accepts.
var builtinParams = []string{"k1", "b", "analyzer", "fb_docs", "fb_terms", "original_query_weight", "mode", "preset", "rrf_k", "depth", "rerank_top"}

// ParseBuiltinSpec reads "builtin", "builtin:rm3" and either with
// "?k1=1.2&b=0.75&analyzer=de&fb_docs=10&fb_terms=10&original_query_weight=0.5"
// into engine options, starting from engine.DefaultOptions (ParseBuiltin
// reads the hybrid forms too).
func ParseBuiltinSpec(spec string) (engine.Options, error) {
	bs, err := ParseBuiltin(spec)
	return bs.Engine, err
}

// ParseBuiltin reads a builtin spec: "builtin", "builtin:rm3",
// "builtin:hybrid", with parameters "?k1=..&b=..&analyzer=..", for RM3
// "fb_docs", "fb_terms", "original_query_weight", and for hybrid
// "mode=bm25|rm3|hybrid", "preset=fast|balanced|thorough" (implies
// hybrid), "rrf_k", "depth", "rerank_top". A preset sets its values first;
// the other parameters override them.
func ParseBuiltin(spec string) (BuiltinSpec, error) {
	bs := BuiltinSpec{Engine: engine.DefaultOptions(), RRFK: engine.DefaultRRFK}
	o := &bs.Engine
	rest, ok := strings.CutPrefix(spec, "builtin")
	if !ok {
		return bs, fmt.Errorf("builtin target: spec %q does not start with builtin", spec)
	}
	variant, query, _ := strings.Cut(rest, "?")
	setMode := func(mode string) bool {
		switch mode {
		case "", "bm25":
		case "rm3", "bm25+rm3":
			o.RM3 = true
		case "hybrid":
			bs.Hybrid = true
		default:
			return false
		}
		return true
	}
	if !setMode(strings.TrimPrefix(variant, ":")) || variant == ":" {
		return bs, fmt.Errorf("builtin target: unknown variant %q (valid: builtin, builtin:rm3, builtin:hybrid)", strings.TrimPrefix(variant, ":"))
	}
	vals, err := url.ParseQuery(query)
	if err != nil {
		return bs, fmt.Errorf("builtin target: bad parameters %q: %v", query, err)
	}
	if p := vals.Get("preset"); vals.Has("preset") {
		preset, ok := hybridPresets[p]
		if !ok {
			return bs, fmt.Errorf("builtin target: unknown preset %q (valid: %s)", p, strings.Join(HybridPresets, ", "))
		}
		preset.Engine, preset.Preset = bs.Engine, p
		bs = preset
		o = &bs.Engine
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
		if key != "analyzer" && key != "mode" && key != "preset" {
			if f, err = num(); err != nil {
				return bs, err
			}
		}
		count := func() (int, error) {
			if f != math.Trunc(f) || f < 0 || f > MaxHybridDepth {
				return 0, fmt.Errorf("builtin target: %s=%s: want a whole number 0..%d", key, v, MaxHybridDepth)
			}
			return int(f), nil
		}
		switch key {
		case "mode":
			if !setMode(v) {
				return bs, fmt.Errorf("builtin target: mode=%q: want bm25, rm3 or hybrid", v)
			}
		case "preset":
		case "rrf_k":
			if bs.RRFK, err = count(); err != nil {
				return bs, err
			}
			if bs.RRFK < 1 {
				return bs, fmt.Errorf("builtin target: rrf_k=%s: must be at least 1", v)
			}
		case "depth":
			if bs.Depth, err = count(); err != nil {
				return bs, err
			}
		case "rerank_top":
			if bs.RerankTop, err = count(); err != nil {
				return bs, err
			}
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
			return bs, fmt.Errorf("builtin target: unknown parameter %q (valid: %s)", key, strings.Join(builtinParams, ", "))
		}
	}
	if err := o.Validate(); err != nil {
		return bs, fmt.Errorf("builtin target: %v", err)
	}
	if bs.Hybrid {
		// RM3 is the BM25 leg's expansion in a hybrid.
		bs.Expand = bs.Expand || o.RM3
		o.RM3 = bs.Expand
	} else {
		for _, p := range []string{"rrf_k", "depth", "rerank_top"} {
			if vals.Has(p) {
				return bs, fmt.Errorf("builtin target: %s is a parameter of builtin:hybrid", p)
			}
		}
	}
	return bs, nil
}

func newBuiltin(spec string, o Options) (assay.Target, error) {
	return openBuiltin(spec, o, nil, nil)
}

// openBuiltin opens a builtin spec; emb and rer are a target file's
// embeddings: and rerank: blocks (nil: the suite's).
func openBuiltin(spec string, o Options, emb, rer *endpointConf) (*Builtin, error) {
	bs, err := ParseBuiltin(spec)
	if err != nil {
		return nil, err
	}
	s := o.Suite
	if s == nil {
		s = &assay.Suite{}
	}
	if !bs.Hybrid {
		return buildBuiltin(spec, bs, s)
	}
	if emb == nil {
		if emb, err = suiteEndpoint(s.Embeddings, o.Getenv, o.AllowLiteralSecrets); err != nil {
			return nil, err
		}
	}
	if rer == nil {
		if rer, err = suiteEndpoint(s.Rerank, o.Getenv, o.AllowLiteralSecrets); err != nil {
			return nil, err
		}
	}
	if emb == nil {
		return nil, fmt.Errorf("builtin target: %s needs an embeddings endpoint: add embeddings: {url: ..., model: ...} to the suite or the target file", spec)
	}
	if bs.RerankTop > 0 && rer == nil {
		return nil, fmt.Errorf("builtin target: %s reranks the fused top %d and needs a rerank endpoint: add rerank: {url: ..., model: ...} to the suite or the target file (or rerank_top=0)", spec, bs.RerankTop)
	}
	b, err := buildBuiltin(spec, bs, s)
	if err != nil {
		return nil, err
	}
	b.hy = &hybrid{spec: bs, emb: emb, rer: rer, cacheDir: o.CacheDir}
	if bs.RerankTop == 0 {
		b.hy.rer = nil
	}
	b.describeHybrid()
	return b, nil
}

// NewBuiltin builds the builtin target a spec names over s's corpus. The
// suite's analyzer option is the default language unless the spec sets one.
// A hybrid spec needs Open (its endpoints' keys come through Getenv).
func NewBuiltin(spec string, s *assay.Suite) (*Builtin, error) {
	bs, err := ParseBuiltin(spec)
	if err != nil {
		return nil, err
	}
	if bs.Hybrid {
		return nil, fmt.Errorf("builtin target: %s is opened with target.Open (it needs its endpoints), not NewBuiltin", spec)
	}
	if s == nil {
		s = &assay.Suite{}
	}
	return buildBuiltin(spec, bs, s)
}

func buildBuiltin(spec string, bs BuiltinSpec, s *assay.Suite) (*Builtin, error) {
	opts := bs.Engine
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
	b := &Builtin{spec: spec, ix: ix, k: defaultK, vers: vers, clock: time.Now, coll: make([]string, ix.Len()), colls: map[string]bool{}}
	for i := range ix.Len() {
		c := engine.Collection(ix.Doc(i))
		b.coll[i] = c
		if c != "" {
			b.colls[c] = true
		}
	}
	b.info = assay.TargetInfo{Kind: "builtin", Spec: spec, Config: config, Fingerprint: builtinFingerprint(config, ix), Versions: vers}
	return b
}

// describeHybrid adds the hybrid's settings and endpoints to the
// description, its fingerprint and the versions.
func (b *Builtin) describeHybrid() {
	h := b.hy
	c := b.info.Config
	c["retrieval"] = "hybrid"
	c["rrf_k"] = h.spec.RRFK
	c["depth"] = h.spec.Depth
	c["rerank_top"] = h.spec.RerankTop
	if h.spec.Preset != "" {
		c["preset"] = h.spec.Preset
	}
	c["embeddings"] = h.emb.describe()
	b.vers["embedding"] = h.emb.written.Model
	if h.rer != nil {
		c["rerank"] = h.rer.describe()
		b.vers["rerank"] = h.rer.written.Model
	}
	b.info.Fingerprint = builtinFingerprint(c, b.ix)
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

// Observe searches and answers one case. A case tagged collection: X
// searches only the documents of collection X (engine.Collection); a
// collection no document is in is an error of class missing. A turn of a
// conversation searches with its own message after the user messages of
// the earlier turns (ConversationQuery), so a follow-up that leans on
// them ("and for the team plan?") finds what they named; the answers of
// the earlier turns are not searched with.
func (b *Builtin) Observe(ctx context.Context, c assay.Case) (assay.Observation, error) {
	c.Query = ConversationQuery(c)
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
	var keep func(int) bool
	if coll := c.Tags["collection"]; coll != "" {
		if !b.colls[coll] {
			return assay.Observation{}, assay.Errorf(assay.ErrMissing, "collection %q: no document of the corpus is in it (collections: %s)", coll, strings.Join(slices.Sorted(maps.Keys(b.colls)), ", "))
		}
		keep = func(d int) bool { return b.coll[d] == coll }
	}
	if b.hy != nil {
		return b.observeHybrid(ctx, c.ID, assay.TrialFrom(ctx), c.Query, k, c.Tags["lang"], keep)
	}
	return b.observeQuery(c.ID, assay.TrialFrom(ctx), c.Query, k, c.Tags["lang"], keep), nil
}

// ConversationQuery is what the built-in target searches with for case
// c: its query, after the user messages of its history (a turn of a
// conversation), each on its own line.
func ConversationQuery(c assay.Case) string {
	var b strings.Builder
	for _, m := range c.History {
		if m.Role == assay.RoleUser {
			b.WriteString(m.Content)
			b.WriteByte('\n')
		}
	}
	if b.Len() == 0 {
		return c.Query
	}
	b.WriteString(c.Query)
	return b.String()
}

// ObserveQuery runs one query: analysis, BM25 retrieval of the k best
// documents, and the extractive answer, timed as the spans analyze, bm25
// and answer.
func (b *Builtin) ObserveQuery(caseID string, trial int, query string, k int, lang string) assay.Observation {
	return b.observeQuery(caseID, trial, query, k, lang, nil)
}

func (b *Builtin) observeQuery(caseID string, trial int, query string, k int, lang string, keep func(int) bool) assay.Observation {
	start := b.clock()
	ms := func(t time.Time) float64 { return float64(t.Sub(start).Microseconds()) / 1000 }
	q := engine.Query{Text: query, K: k, Lang: lang}
	terms := b.ix.Terms(q)
	tAnalyze := b.clock()
	res := b.ix.SearchTermsIn(terms, k, b.ix.Options().RM3, keep)
	tRetrieve := b.clock()
	ans := b.ix.Answer(q, res)
	tAnswer := b.clock()

	obs := b.observation(caseID, trial, res, ans)
	lat := ms(tAnswer)
	obs.LatencyMs = &lat
	obs.Spans = []assay.Span{
		{Name: "analyze", StartMs: 0, EndMs: ms(tAnalyze)},
		{Name: "bm25", StartMs: ms(tAnalyze), EndMs: ms(tRetrieve)},
		{Name: "answer", StartMs: ms(tRetrieve), EndMs: ms(tAnswer)},
	}
	return obs
}

// observation is the ranking and answer as an observation.
func (b *Builtin) observation(caseID string, trial int, res []engine.Result, ans engine.Answer) assay.Observation {
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
