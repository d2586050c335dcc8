package target

import (
	"cmp"
	"context"
	"crypto/sha256"
	bin "encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/cache"
	"github.com/assay-eval/assay/engine"
	"github.com/assay-eval/assay/llm"
	"github.com/assay-eval/assay/redact"
)

// The hybrid builtin (builtin:hybrid, builtin?mode=hybrid, builtin?preset=NAME).
//
// Retrieval runs two legs over the suite's corpus, fuses them and, when
// asked, reranks the top of the fusion:
//
//	analyze   the query's BM25 terms (as builtin)
//	bm25      BM25 (BM25+RM3 with expansion) top Depth
//	embed     the query's vector from the embeddings endpoint (POST URL/embeddings)
//	vector    exact cosine search of the document vectors, top Depth
//	fuse      reciprocal rank fusion of the two rankings (engine.RRF, k = RRFK)
//	rerank    the fused top RerankTop sent to URL/rerank, reordered by its scores
//	answer    the extractive answer over the final top k
//
// Each stage is a span of the observation, so the run summary aggregates
// them per stage. Document vectors are computed by Setup, before the first
// case, in batches of Batch (ceil(N/Batch) requests), and kept in the cache
// as one entry per corpus and model (kind "embed", keyed by the model, the
// dimensions and every document's text embedded, in order: not the URL, so
// the same model served at another address reuses it, and never the key),
// so a second run over the same corpus sends only the queries; a changed
// corpus is embedded again whole. After changing what a model name serves,
// clear them: assay cache clear embed.

// Hybrid presets, mirroring GNO's search modes (gno query --fast, the
// default, --thorough).
var hybridPresets = map[string]BuiltinSpec{
	"fast":     {Hybrid: true, RRFK: engine.DefaultRRFK},
	"balanced": {Hybrid: true, RRFK: engine.DefaultRRFK, RerankTop: 20},
	"thorough": {Hybrid: true, RRFK: engine.DefaultRRFK, RerankTop: 40, Expand: true},
}

// HybridPresets lists the preset names, for messages.
var HybridPresets = []string{"fast", "balanced", "thorough"}

// BuiltinSpec is a parsed builtin spec.
type BuiltinSpec struct {
	Engine engine.Options
	// Hybrid is builtin:hybrid: BM25 and dense retrieval fused.
	Hybrid bool
	// Preset is the preset named (fast, balanced, thorough), or "".
	Preset string
	// RRFK is the k of reciprocal rank fusion (engine.DefaultRRFK).
	RRFK int
	// Depth is the number of candidates each leg retrieves; 0 means
	// max(2·k, RerankTop) for a case's k.
	Depth int
	// RerankTop is how many of the fused ranking are reranked; 0: none.
	RerankTop int
	// Expand runs the BM25 leg with RM3 expansion.
	Expand bool
}

// MaxHybridDepth bounds Depth and RerankTop.
const MaxHybridDepth = 1000

// MaxEmbedChars bounds the text of one document or query sent to the
// embeddings endpoint (cut at a character boundary), and MaxRerankChars
// that of one document sent to rerank (GNO reranks 4K-character chunks).
const (
	MaxEmbedChars  = 8192
	MaxRerankChars = 4096
)

// DefaultEmbedBatch is the number of documents per embeddings request
// when batch: is not set.
const DefaultEmbedBatch = 64

// endpointConf is an embeddings: or rerank: block ready to use.
type endpointConf struct {
	written assay.ModelEndpoint // as written (api_key "${VAR}")
	url     string              // the expanded URL
	urlName string              // VAR of url: ${VAR}, when it came from the environment
	key     string              // the expanded key
	keyName string              // VAR of api_key: ${VAR}
	where   string              // file:line:col of the block
	literal []redact.Secret     // literal credentials of the url --allow-literal-secrets let through
}

// checkLiteralURL refuses a credential written in the clear in the url (a
// query parameter named like one: ?api_key=...), unless allow; a literal
// let through is a secret of c.
func (c *endpointConf) checkLiteralURL(written, expanded string, allow bool) error {
	what := redact.LiteralInURL(written)
	if what == "" {
		return nil
	}
	if !allow {
		return fmt.Errorf("literal credential (%s); give the key as api_key: ${VAR} (or pass --allow-literal-secrets)", what)
	}
	c.literal = append(c.literal, urlSecrets(expanded, true)...)
	return nil
}

// endpoint is the llm client of c.
func (c *endpointConf) endpoint() llm.Endpoint {
	return llm.Endpoint{URL: c.url, Model: c.written.Model, APIKey: c.key, KeyName: c.keyName, Retries: 2}
}

// secrets are the values c took from the environment.
func (c *endpointConf) secrets() []redact.Secret {
	var out []redact.Secret
	if c != nil && c.key != "" {
		out = append(out, redact.Secret{Name: c.keyName, Value: c.key})
	}
	if c != nil && c.urlName != "" {
		out = append(out, redact.Secret{Name: c.urlName, Value: c.url})
	}
	if c != nil {
		out = append(out, c.literal...)
	}
	return out
}

// describe is the block as the run records it: the key as written.
func (c *endpointConf) describe() map[string]any {
	m := map[string]any{"url": c.written.URL, "model": c.written.Model}
	if c.written.APIKey != "" {
		m["api_key"] = c.written.APIKey
	}
	if c.written.Dimensions > 0 {
		m["dimensions"] = c.written.Dimensions
	}
	if c.written.Batch > 0 {
		m["batch"] = c.written.Batch
	}
	return m
}

// suiteEndpoint expands a suite's block: its api_key through getenv.
func suiteEndpoint(e *assay.ModelEndpoint, getenv func(string) string, allowLiteral bool) (*endpointConf, error) {
	if e == nil {
		return nil, nil
	}
	c := &endpointConf{written: *e, where: e.Pos[""], url: e.URL}
	if err := c.checkLiteralURL(e.URL, e.URL, allowLiteral); err != nil {
		return nil, fmt.Errorf("%s: url: %v", posOr(e.Pos["url"], c.where), err)
	}
	if strings.Contains(e.URL, "${") {
		u, _, err := newSecrets().expand(e.URL, getenv)
		if err == nil {
			if msg := assay.CheckModelEndpointField("url", u, 0); msg != "" {
				err = errors.New(strings.ReplaceAll(msg, u, e.URL))
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", posOr(e.Pos["url"], c.where), strings.TrimPrefix(err.Error(), "url: "))
		}
		c.url, c.urlName = u, varName(e.URL)
	}
	if e.APIKey != "" {
		key, _, err := newSecrets().expand(e.APIKey, getenv)
		if err != nil {
			return nil, fmt.Errorf("%s: api_key: %v", posOr(e.Pos["api_key"], c.where), err)
		}
		c.key, c.keyName = key, varName(e.APIKey)
	}
	return c, nil
}

func posOr(p, q string) string {
	if p != "" {
		return p
	}
	if q != "" {
		return q
	}
	return "suite"
}

// varName is NAME when s is exactly "${NAME}", else "".
func varName(s string) string {
	if strings.HasPrefix(s, "${") && strings.HasSuffix(s, "}") && strings.Count(s, "${") == 1 {
		return s[2 : len(s)-1]
	}
	return ""
}

// fileEndpoint reads an embeddings: or rerank: block of a target file
// (already expanded: n.written keeps what the file says).
func (fc *fileCtx) fileEndpoint(n *node, name string) (*endpointConf, error) {
	if n == nil {
		return nil, nil
	}
	if n.kind != mapNode {
		return nil, n.errorf("%s: want a mapping of %s", name, strings.Join(assay.ModelEndpointFields, ", "))
	}
	if err := n.checkKeys(name, assay.ModelEndpointFields...); err != nil {
		return nil, err
	}
	c := &endpointConf{where: fmt.Sprintf("%s:%d:%d", n.file, n.line, n.col)}
	for i, k := range n.keys {
		v := n.vals[i]
		var s string
		var num int
		var err error
		if k == "dimensions" || k == "batch" {
			num, err = v.integer(name + "." + k)
		} else {
			s, err = v.str(name + "." + k)
		}
		if err != nil {
			return nil, err
		}
		if k == "api_key" {
			if err := fc.checkLiteral(v, name, k, s); err != nil {
				return nil, err
			}
			c.key, c.written.APIKey = s, v.written
			if !v.env {
				c.written.APIKey = "[redacted]"
				c.keyName = ""
			} else {
				c.keyName = varName(v.written)
			}
			continue
		}
		if msg := assay.CheckModelEndpointField(k, s, num); msg != "" {
			return nil, v.errorf("%s.%s", name, fc.sc.redact(msg))
		}
		switch k {
		case "url":
			written := v.written
			if written == "" {
				written = s
			}
			if err := c.checkLiteralURL(written, s, fc.o.AllowLiteralSecrets); err != nil {
				return nil, v.errorf("%s.url: %v", name, err)
			}
			c.written.URL, c.url = v.written, s
			if v.env {
				c.urlName = varName(v.written)
			} else {
				c.written.URL = s
			}
		case "model":
			c.written.Model = s
		case "dimensions":
			c.written.Dimensions = num
		case "batch":
			c.written.Batch = num
		}
	}
	for _, req := range []string{"url", "model"} {
		if n.get(req) == nil {
			return nil, n.errorf("%s: missing %q", name, req)
		}
	}
	return c, nil
}

// hybrid is the dense leg, fusion and rerank of a Builtin.
type hybrid struct {
	spec     BuiltinSpec
	emb      *endpointConf
	rer      *endpointConf // nil: no rerank
	cacheDir string

	vecs     *engine.Vectors // set by Setup
	dim      int
	measures map[string]float64
}

// hybridSetupError is what Observe returns before Setup.
var errNoVectors = errors.New("builtin:hybrid: the document vectors are not built (the runner calls Setup before the first case)")

// Setup embeds the corpus (documents in the cache are not sent again).
func (b *Builtin) Setup(ctx context.Context) error {
	h := b.hy
	if h == nil || h.vecs != nil {
		return nil
	}
	start := time.Now()
	var c *cache.Cache
	if h.cacheDir != "" {
		var err error
		if c, err = cache.Open(h.cacheDir); err != nil {
			return fmt.Errorf("builtin:hybrid: %v", err)
		}
		c.Redact(h.emb.secrets()...)
	}
	ep := h.emb.endpoint()
	dims, batch := h.emb.written.Dimensions, h.emb.written.Batch
	if batch <= 0 {
		batch = DefaultEmbedBatch
	}
	n := b.ix.Len()
	if n == 0 {
		return errors.New("builtin:hybrid: the corpus is empty")
	}
	texts := make([]string, n)
	digest := sha256.New()
	for i := range n {
		texts[i] = embedText(b.ix.Doc(i))
		fmt.Fprintf(digest, "%d:%s", len(texts[i]), texts[i])
	}
	key := cache.Key("embed/v1", h.emb.written.Model, dims, n, hex.EncodeToString(digest.Sum(nil)))
	vecs, cached := [][]float32(nil), false
	if c != nil {
		if v, ok, _ := c.Get("embed", key); ok {
			vecs, cached = decodeVectors(v, n)
		}
	}
	requests := 0
	dim := 0
	// check is applied to each vector as it arrives, so that vectors past
	// the index's dimension cap, or of differing lengths, stop the
	// indexing at the batch that brought them instead of being held for
	// the whole corpus first.
	check := func(i int, v []float32) error {
		if dim == 0 {
			dim = len(v)
		}
		if len(v) > engine.MaxVectorDim {
			return fmt.Errorf("builtin:hybrid: document %q has a %d-dimensional vector, more than the %d dimensions a vector index holds (set embeddings.dimensions)", b.ix.Doc(i).ID, len(v), engine.MaxVectorDim)
		}
		if len(v) != dim || dim == 0 {
			return fmt.Errorf("builtin:hybrid: document %q has a %d-dimensional vector, the others %d (set embeddings.dimensions, or clear the cache: assay cache clear embed)", b.ix.Doc(i).ID, len(v), dim)
		}
		return nil
	}
	if !cached {
		vecs = make([][]float32, 0, n)
		for lo := 0; lo < n; lo += batch {
			hi := min(lo+batch, n)
			resp, err := ep.Embed(ctx, texts[lo:hi], dims)
			requests++
			if err != nil {
				return fmt.Errorf("builtin:hybrid: embedding the corpus (documents %d-%d of %d): %v", lo+1, hi, n, err)
			}
			for j, v := range resp.Vectors {
				if err := check(lo+j, v); err != nil {
					return err
				}
			}
			vecs = append(vecs, resp.Vectors...)
		}
	} else {
		for i, v := range vecs {
			if err := check(i, v); err != nil {
				return err
			}
		}
	}
	stored := cached
	if !cached && c != nil {
		// A corpus whose vectors pass cache.MaxValue, or a cache that
		// cannot be written, only costs the next run the requests.
		stored = c.Put("embed", key, encodeVectors(vecs)) == nil
	}
	vx, err := engine.NewVectors(n, dim)
	if err != nil {
		return fmt.Errorf("builtin:hybrid: %v", err)
	}
	for i, v := range vecs {
		if err := vx.Set(i, v); err != nil {
			return fmt.Errorf("builtin:hybrid: document %q: %v", b.ix.Doc(i).ID, err)
		}
	}
	h.vecs, h.dim = vx, dim
	h.measures = map[string]float64{
		"embed_requests": float64(requests),
		"embed_cached":   float64(n * boolInt(cached)),
		"embed_docs":     float64(n),
		"embed_index_ms": float64(time.Since(start).Microseconds()) / 1000,
		"embed_stored":   float64(boolInt(stored)),
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Measures reports how the document vectors were obtained: embed_requests
// (embeddings requests sent while indexing; 0 when the vectors came from
// the cache), embed_cached (documents whose vectors came from it),
// embed_docs, embed_index_ms, and embed_stored (1 when the vectors are in
// the cache for the next run: 0 without a store, or when the entry would
// pass cache.MaxValue or could not be written).
func (b *Builtin) Measures() map[string]float64 {
	if b.hy == nil {
		return nil
	}
	return b.hy.measures
}

// Secrets are the keys of the embeddings and rerank endpoints.
func (b *Builtin) Secrets() []redact.Secret {
	if b.hy == nil {
		return nil
	}
	return append(b.hy.emb.secrets(), b.hy.rer.secrets()...)
}

// embedText is what is embedded of a document: title and text.
func embedText(d assay.Document) string {
	t := strings.TrimSpace(d.Title + "\n" + d.Text)
	if t == "" {
		t = d.ID
	}
	return cut(t, MaxEmbedChars)
}

// cut keeps at most n bytes of s, at a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// encodeVectors is the cache entry of a corpus's vectors: every vector's
// float32 components, little-endian, in corpus order.
func encodeVectors(vecs [][]float32) []byte {
	out := make([]byte, 0, 4*len(vecs)*len(vecs[0]))
	for _, v := range vecs {
		for _, x := range v {
			out = bin.LittleEndian.AppendUint32(out, math.Float32bits(x))
		}
	}
	return out
}

// decodeVectors reads n vectors of one dimension, at most
// engine.MaxVectorDim, from an entry; ok is false when it does not hold
// that (a corrupt entry is a miss).
func decodeVectors(b []byte, n int) ([][]float32, bool) {
	if n == 0 || len(b) == 0 || len(b)%(4*n) != 0 {
		return nil, false
	}
	dim := len(b) / 4 / n
	if dim > engine.MaxVectorDim {
		return nil, false
	}
	flat := make([]float32, n*dim)
	for i := range flat {
		flat[i] = math.Float32frombits(bin.LittleEndian.Uint32(b[4*i:]))
	}
	vecs := make([][]float32, n)
	for i := range vecs {
		vecs[i] = flat[i*dim : (i+1)*dim : (i+1)*dim]
	}
	return vecs, true
}

// rerankRequest is the Cohere/Jina /rerank request body.
type rerankRequest struct {
	Model           string   `json:"model"`
	Query           string   `json:"query"`
	Documents       []string `json:"documents"`
	TopN            int      `json:"top_n"`
	ReturnDocuments bool     `json:"return_documents"`
}

// rerankResponse is its answer: results [{index, relevance_score}].
type rerankResponse struct {
	Results []struct {
		Index *int     `json:"index"`
		Score *float64 `json:"relevance_score"`
	} `json:"results"`
}

// observeHybrid runs the hybrid pipeline for one query.
func (b *Builtin) observeHybrid(ctx context.Context, caseID string, trial int, query string, k int, lang string, keep func(int) bool) (assay.Observation, error) {
	h := b.hy
	if h.vecs == nil {
		return assay.Observation{}, assay.Errorf(assay.ErrExec, "%v", errNoVectors)
	}
	depth := h.spec.Depth
	if depth <= 0 {
		depth = max(2*k, h.spec.RerankTop)
	}
	start := b.clock()
	ms := func(t time.Time) float64 { return float64(t.Sub(start).Microseconds()) / 1000 }
	var spans []assay.Span
	last := start
	mark := func(name string) {
		now := b.clock()
		spans = append(spans, assay.Span{Name: name, StartMs: ms(last), EndMs: ms(now)})
		last = now
	}
	q := engine.Query{Text: query, K: k, Lang: lang}
	terms := b.ix.Terms(q)
	mark("analyze")
	lex := b.ix.SearchTermsIn(terms, depth, h.spec.Expand, keep)
	mark("bm25")
	ep := h.emb.endpoint()
	er, err := ep.Embed(ctx, []string{cut(query, MaxEmbedChars)}, h.emb.written.Dimensions)
	if err != nil {
		return assay.Observation{}, llmError("embeddings", err)
	}
	mark("embed")
	dense, err := h.vecs.Search(er.Vectors[0], depth, keep)
	if err != nil {
		return assay.Observation{}, assay.Errorf(assay.ErrMalformed, "embeddings: %v (the documents' vectors have %d dimensions)", err, h.dim)
	}
	mark("vector")
	fused := engine.RRF(h.spec.RRFK, lex, dense)
	mark("fuse")
	res := make([]engine.Result, len(fused))
	for i, f := range fused {
		res[i] = engine.Result{Doc: f.Doc, ID: b.ix.Doc(f.Doc).ID, Score: f.Score}
	}
	attempts := er.Attempts // 1 + retries, over the embed and rerank requests
	if h.rer != nil && h.spec.RerankTop > 0 && len(res) > 0 {
		top := min(h.spec.RerankTop, len(res))
		reordered, n, err := b.rerank(ctx, query, res[:top])
		attempts += max(n-1, 0)
		if err != nil {
			return assay.Observation{}, err
		}
		copy(res, reordered)
		mark("rerank")
	}
	if len(res) > k {
		res = res[:k]
	}
	ans := b.ix.Answer(q, res)
	mark("answer")
	obs := b.observation(caseID, trial, res, ans)
	lat := ms(last)
	obs.LatencyMs = &lat
	obs.Spans = spans
	obs.Attempts = attempts
	return obs, nil
}

// rerank reorders cands by the rerank endpoint's scores (best first;
// equal scores, and documents the answer leaves out, keep the fused
// order, after those it scored). The score of a reranked hit is its
// relevance score.
func (b *Builtin) rerank(ctx context.Context, query string, cands []engine.Result) ([]engine.Result, int, error) {
	h := b.hy
	docs := make([]string, len(cands))
	for i, c := range cands {
		docs[i] = cut(embedText(b.ix.Doc(c.Doc)), MaxRerankChars)
	}
	ep := h.rer.endpoint()
	var resp rerankResponse
	n, err := ep.PostJSON(ctx, "/rerank", rerankRequest{Model: h.rer.written.Model, Query: query, Documents: docs, TopN: len(docs)}, &resp)
	if err != nil {
		return nil, n, llmError("rerank", err)
	}
	got, err := rerankOrder(resp, len(cands))
	if err != nil {
		return nil, n, err
	}
	seen := make([]bool, len(cands))
	out := make([]engine.Result, 0, len(cands))
	for _, g := range got {
		r := cands[g.i]
		r.Score = g.s
		out = append(out, r)
		seen[g.i] = true
	}
	for i, c := range cands {
		if !seen[i] {
			out = append(out, c)
		}
	}
	return out, n, nil
}

type scoredIdx struct {
	i int
	s float64
}

// rerankOrder checks a rerank answer for n documents (each result has an
// index in range, given once, and a finite relevance_score) and returns
// its results best first, equal scores in the order the documents were
// sent.
func rerankOrder(resp rerankResponse, n int) ([]scoredIdx, error) {
	seen := make([]bool, n)
	got := make([]scoredIdx, 0, min(len(resp.Results), n))
	for _, r := range resp.Results {
		if r.Index == nil || r.Score == nil {
			return nil, assay.Errorf(assay.ErrMalformed, "rerank: a result without index or relevance_score")
		}
		i := *r.Index
		if i < 0 || i >= n || seen[i] {
			return nil, assay.Errorf(assay.ErrMalformed, "rerank: result index %d is out of range or repeated (%d documents sent)", i, n)
		}
		if math.IsNaN(*r.Score) || math.IsInf(*r.Score, 0) {
			return nil, assay.Errorf(assay.ErrMalformed, "rerank: relevance_score of document %d is not a finite number", i)
		}
		seen[i] = true
		got = append(got, scoredIdx{i, *r.Score})
	}
	slices.SortFunc(got, func(x, y scoredIdx) int {
		if c := cmp.Compare(y.s, x.s); c != 0 {
			return c
		}
		return cmp.Compare(x.i, y.i)
	})
	return got, nil
}

// llmError is err as an observation error naming the stage.
func llmError(stage string, err error) error {
	var le *llm.Error
	if errors.As(err, &le) {
		e := le.AsObservationError()
		e.Message = stage + ": " + e.Message
		return e
	}
	return assay.Errorf(assay.ErrTransport, "%s: %v", stage, err)
}
