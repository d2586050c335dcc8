package target

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/engine"
	"github.com/assay-eval/assay/internal/hybridtest"
	"github.com/assay-eval/assay/llm/llmtest"
)

// hybridSuite has an English query whose German answer shares no word
// with it (BM25 misses it; the concept vectors of hybridtest find it).
func hybridSuite(url string) *assay.Suite {
	return &assay.Suite{
		Name:     "xlang",
		Defaults: assay.Defaults{K: 3},
		Corpus: []assay.Document{
			{ID: "de/passwort.md", Path: "de/passwort.md", Title: "Passwort", Text: "Ein vergessenes Passwort zurücksetzen Sie auf der Kontoseite."},
			{ID: "en/billing.md", Path: "en/billing.md", Title: "Billing", Text: "Invoices are sent monthly. Reset the billing address on the invoice page."},
			{ID: "en/email.md", Path: "en/email.md", Title: "Email", Text: "Change the email address of your account from the settings page."},
			{ID: "fr/factures.md", Path: "fr/factures.md", Title: "Factures", Text: "Les factures sont envoyées chaque mois."},
		},
		Embeddings: &assay.ModelEndpoint{URL: url, Model: "concepts", Batch: 3, APIKey: "${EMB_KEY}", Pos: map[string]string{"": "suite.yaml:3:3", "api_key": "suite.yaml:6:12"}},
		Rerank:     &assay.ModelEndpoint{URL: url, Model: "concept-rerank", APIKey: "${EMB_KEY}"},
	}
}

const testKey = "sk-test-0123456789"

func standIn(t *testing.T) *llmtest.Server {
	s := llmtest.New(t, llmtest.Handlers{Embed: hybridtest.Vector, Rerank: hybridtest.Rerank})
	s.Key = testKey
	return s
}

func getenv(name string) string {
	if name == "EMB_KEY" {
		return testKey
	}
	return ""
}

func openHybrid(t *testing.T, spec string, s *assay.Suite, cacheDir string) *Builtin {
	t.Helper()
	tg, err := Open(spec, Options{Suite: s, Getenv: getenv, CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	b := tg.(*Builtin)
	if err := b.Setup(context.Background()); err != nil {
		t.Fatal(err)
	}
	return b
}

func ids(obs assay.Observation) []string {
	var out []string
	for _, h := range obs.Retrieved {
		out = append(out, h.ID)
	}
	return out
}

var xlangCase = assay.Case{ID: "x1", Query: "reset a forgotten password"}

func TestHybridRanksTheDocumentBM25Misses(t *testing.T) {
	srv := standIn(t)
	s := hybridSuite(srv.URL)
	bm, err := Open("builtin", Options{Suite: s})
	if err != nil {
		t.Fatal(err)
	}
	obs, _ := bm.Observe(context.Background(), xlangCase)
	for _, id := range ids(obs) {
		if id == "de/passwort.md" {
			t.Fatalf("BM25 retrieved %v: the fixture no longer needs dense retrieval", ids(obs))
		}
	}
	b := openHybrid(t, "builtin:hybrid", s, "")
	obs, err = b.Observe(context.Background(), xlangCase)
	if err != nil {
		t.Fatal(err)
	}
	// BM25's hit (en/billing.md, by "reset") is in both legs and ranks
	// first; the German answer, dense rank 1, comes next.
	if got := strings.Join(ids(obs), " "); !strings.HasPrefix(got, "en/billing.md de/passwort.md") {
		t.Errorf("hybrid ranking %v, want en/billing.md (in both legs), then de/passwort.md (dense only)", got)
	}
	var names []string
	for _, sp := range obs.Spans {
		names = append(names, sp.Name)
	}
	if got := strings.Join(names, ","); got != "analyze,bm25,embed,vector,fuse,answer" {
		t.Errorf("spans %s", got)
	}
}

func TestHybridScoresAreRRFExactly(t *testing.T) {
	srv := standIn(t)
	s := hybridSuite(srv.URL)
	b := openHybrid(t, "builtin:hybrid?rrf_k=60", s, "")
	obs, err := b.Observe(context.Background(), xlangCase)
	if err != nil {
		t.Fatal(err)
	}
	// The legs as the target runs them (depth = 2k = 6).
	lex := b.ix.Search(engine.Query{Text: xlangCase.Query, K: 6})
	dense, _ := b.hy.vecs.Search(hybridtest.Vector(xlangCase.Query), 6, nil)
	rank := func(list []engine.Result, doc int) int {
		for i, r := range list {
			if r.Doc == doc {
				return i + 1
			}
		}
		return 0
	}
	for _, h := range obs.Retrieved {
		doc := -1
		for i := range b.ix.Len() {
			if b.ix.Doc(i).ID == h.ID {
				doc = i
			}
		}
		want := 0.0
		for _, r := range []int{rank(lex, doc), rank(dense, doc)} {
			if r > 0 {
				want += 1 / float64(60+r)
			}
		}
		if h.Score != want {
			t.Errorf("%s: score %v, want 1/(60+r1)+1/(60+r2) = %v exactly", h.ID, h.Score, want)
		}
	}
}

func TestHybridEmbedsTheCorpusOnceInBatches(t *testing.T) {
	srv := standIn(t)
	s := hybridSuite(srv.URL)
	dir := t.TempDir()
	b := openHybrid(t, "builtin:hybrid", s, dir)
	// 4 documents, batch 3: ceil(4/3) = 2 requests.
	if n := srv.Count(llmtest.EmbedPath); n != 2 {
		t.Errorf("indexing sent %d embeddings requests, want ceil(4/3) = 2", n)
	}
	if m := b.Measures(); m["embed_requests"] != 2 || m["embed_cached"] != 0 {
		t.Errorf("measures %v", m)
	}
	srv.Reset()
	b2 := openHybrid(t, "builtin:hybrid", s, dir)
	if n := srv.Count(llmtest.EmbedPath); n != 0 {
		t.Errorf("second run sent %d embeddings requests while indexing, want 0 (every vector cached)", n)
	}
	if m := b2.Measures(); m["embed_requests"] != 0 || m["embed_cached"] != 4 {
		t.Errorf("second run measures %v", m)
	}
	if _, err := b2.Observe(context.Background(), xlangCase); err != nil {
		t.Fatal(err)
	}
	if n := srv.Count(llmtest.EmbedPath); n != 1 {
		t.Errorf("one case sent %d embeddings requests, want 1 (the query)", n)
	}
	// A changed corpus is embedded again (one entry per corpus and model).
	srv.Reset()
	s.Corpus[2].Text += " Updated."
	openHybrid(t, "builtin:hybrid", s, dir)
	if n := srv.Count(llmtest.EmbedPath); n != 2 {
		t.Errorf("after one document changed: %d requests, want 2", n)
	}
	// Another model does not read this model's vectors.
	srv.Reset()
	other := *s
	other.Embeddings = &assay.ModelEndpoint{URL: srv.URL, Model: "concepts-2", Batch: 4, APIKey: "${EMB_KEY}"}
	openHybrid(t, "builtin:hybrid", &other, dir)
	if n := srv.Count(llmtest.EmbedPath); n != 1 {
		t.Errorf("another model: %d requests, want 1", n)
	}
}

func TestHybridKeyIsSentNeverStored(t *testing.T) {
	srv := standIn(t)
	s := hybridSuite(srv.URL)
	dir := t.TempDir()
	b := openHybrid(t, "builtin?preset=balanced", s, dir)
	if _, err := b.Observe(context.Background(), xlangCase); err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.Requests() {
		if r.Authorization != "Bearer "+testKey {
			t.Fatalf("%s sent Authorization %q", r.Path, r.Authorization)
		}
	}
	desc, _ := json.Marshal(b.Describe())
	if strings.Contains(string(desc), testKey) || !strings.Contains(string(desc), "${EMB_KEY}") {
		t.Errorf("description %s: want the key as written, never its value", desc)
	}
	if len(b.Secrets()) == 0 || b.Secrets()[0].Value != testKey || b.Secrets()[0].Name != "EMB_KEY" {
		t.Errorf("secrets %+v", b.Secrets())
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, _ := os.ReadFile(p); strings.Contains(string(data), testKey) {
				t.Errorf("%s holds the key", p)
			}
		}
		return nil
	})
}

func TestHybridRerank(t *testing.T) {
	srv := standIn(t)
	s := hybridSuite(srv.URL)
	b := openHybrid(t, "builtin?preset=balanced", s, "")
	obs, err := b.Observe(context.Background(), assay.Case{ID: "r1", Query: "monthly invoices"})
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Model     string   `json:"model"`
		Query     string   `json:"query"`
		Documents []string `json:"documents"`
		TopN      int      `json:"top_n"`
	}
	var sent int
	for _, r := range srv.Requests() {
		if r.Path == llmtest.RerankPath {
			sent++
			if err := json.Unmarshal(r.Body, &body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if sent != 1 || body.Model != "concept-rerank" || body.Query != "monthly invoices" || len(body.Documents) == 0 || body.TopN != len(body.Documents) {
		t.Fatalf("rerank requests %d, last %+v", sent, body)
	}
	// The hits are in the order of the stand-in's scores, which they carry.
	for i, h := range obs.Retrieved {
		d := s.Corpus[0]
		for _, c := range s.Corpus {
			if c.ID == h.ID {
				d = c
			}
		}
		if want := hybridtest.Rerank("monthly invoices", []string{embedText(d)})[0]; h.Score != want {
			t.Errorf("%s: score %v, want its rerank score %v", h.ID, h.Score, want)
		}
		if i > 0 && h.Score > obs.Retrieved[i-1].Score {
			t.Errorf("ranking not by rerank score: %+v", obs.Retrieved)
		}
	}
	if ids(obs)[0] != "fr/factures.md" && ids(obs)[0] != "en/billing.md" {
		t.Errorf("ranking %v: want an invoice document first", ids(obs))
	}
	if obs.Spans[5].Name != "rerank" {
		t.Errorf("spans %+v: want rerank after fuse", obs.Spans)
	}
}

func TestHybridRerankMalformed(t *testing.T) {
	srv := standIn(t)
	s := hybridSuite(srv.URL)
	b := openHybrid(t, "builtin?preset=balanced", s, "")
	srv.Inject(1, llmtest.Fault{Path: llmtest.RerankPath, Body: `{"results": [{"index": 99, "relevance_score": 1}]}`})
	_, err := b.Observe(context.Background(), xlangCase)
	var e *assay.Error
	if !errors.As(err, &e) || e.Class != assay.ErrMalformed || !strings.Contains(e.Message, "index 99") {
		t.Errorf("err = %v, want a malformed error naming index 99", err)
	}
}

func TestCollections(t *testing.T) {
	srv := standIn(t)
	s := hybridSuite(srv.URL)
	for _, spec := range []string{"builtin", "builtin:hybrid"} {
		tg, err := Open(spec, Options{Suite: s, Getenv: getenv})
		if err != nil {
			t.Fatal(err)
		}
		if err := tg.(*Builtin).Setup(context.Background()); err != nil {
			t.Fatal(err)
		}
		obs, err := tg.Observe(context.Background(), assay.Case{ID: "c", Query: "reset billing invoices password", Tags: map[string]string{"collection": "en"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids(obs) {
			if !strings.HasPrefix(id, "en/") {
				t.Errorf("%s: collection en retrieved %s", spec, id)
			}
		}
		if len(ids(obs)) == 0 {
			t.Errorf("%s: collection en retrieved nothing", spec)
		}
		_, err = tg.Observe(context.Background(), assay.Case{ID: "c", Query: "x", Tags: map[string]string{"collection": "es"}})
		var e *assay.Error
		if !errors.As(err, &e) || e.Class != assay.ErrMissing || !strings.Contains(e.Message, "collections: de, en, fr") {
			t.Errorf("%s: unknown collection: %v", spec, err)
		}
	}
	if c := engine.Collection(assay.Document{Path: "en/x.md", Meta: map[string]string{"collection": "kb"}}); c != "kb" {
		t.Errorf("metadata collection: %q", c)
	}
}

func TestBuiltinHybridSpecs(t *testing.T) {
	for _, c := range []struct {
		spec string
		want BuiltinSpec
		err  string
	}{
		{spec: "builtin:hybrid", want: BuiltinSpec{Hybrid: true, RRFK: 60}},
		{spec: "builtin?mode=hybrid&rrf_k=10&depth=50", want: BuiltinSpec{Hybrid: true, RRFK: 10, Depth: 50}},
		{spec: "builtin?preset=fast", want: BuiltinSpec{Hybrid: true, RRFK: 60, Preset: "fast"}},
		{spec: "builtin?preset=balanced", want: BuiltinSpec{Hybrid: true, RRFK: 60, RerankTop: 20, Preset: "balanced"}},
		{spec: "builtin?preset=thorough", want: BuiltinSpec{Hybrid: true, RRFK: 60, RerankTop: 40, Expand: true, Preset: "thorough"}},
		{spec: "builtin?preset=balanced&rerank_top=5", want: BuiltinSpec{Hybrid: true, RRFK: 60, RerankTop: 5, Preset: "balanced"}},
		{spec: "builtin:hybrid?mode=rm3", want: BuiltinSpec{Hybrid: true, RRFK: 60, Expand: true}},
		{spec: "builtin?preset=deep", err: `unknown preset "deep" (valid: fast, balanced, thorough)`},
		{spec: "builtin?rrf_k=60", err: "rrf_k is a parameter of builtin:hybrid"},
		{spec: "builtin:hybrid?rrf_k=0", err: "rrf_k=0: must be at least 1"},
		{spec: "builtin:hybrid?depth=2.5", err: "depth=2.5: want a whole number 0..1000"},
		{spec: "builtin?mode=dense", err: `mode="dense": want bm25, rm3 or hybrid`},
	} {
		got, err := ParseBuiltin(c.spec)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.spec, err)
			continue
		}
		got.Engine = engine.Options{}
		if got != c.want {
			t.Errorf("%s: %+v, want %+v", c.spec, got, c.want)
		}
	}
}

func TestHybridConfigErrors(t *testing.T) {
	srv := standIn(t)
	s := hybridSuite(srv.URL)
	noEmb := *s
	noEmb.Embeddings = nil
	if _, err := Open("builtin:hybrid", Options{Suite: &noEmb, Getenv: getenv}); err == nil || !strings.Contains(err.Error(), "needs an embeddings endpoint") {
		t.Errorf("no embeddings: %v", err)
	}
	noRer := *s
	noRer.Rerank = nil
	if _, err := Open("builtin?preset=balanced", Options{Suite: &noRer, Getenv: getenv}); err == nil || !strings.Contains(err.Error(), "needs a rerank endpoint") {
		t.Errorf("no rerank: %v", err)
	}
	if _, err := Open("builtin:hybrid", Options{Suite: s}); err == nil || err.Error() != "suite.yaml:6:12: api_key: ${EMB_KEY} is not set in the environment" {
		t.Errorf("unset key: %v", err)
	}
	for _, c := range []struct{ file, err string }{
		{"builtin: builtin:hybrid\nembeddings: {model: m}\n", "t.yaml:2:14: embeddings: missing \"url\""},
		{"builtin: builtin:hybrid\nembeddings: {url: ftp://x, model: m}\n", "t.yaml:2:19: embeddings.url: want an http:// or https:// base URL"},
		{"builtin: builtin:hybrid\nembeddings: {url: http://x/v1, model: m, api_key: sk-1234}\n", "t.yaml:2:51: embeddings.api_key: literal credential in the file"},
		{"builtin: builtin:hybrid\nembeddings: {url: http://x/v1, model: m, batch: 0}\n", "t.yaml:2:49: embeddings.batch: must be 1..2048, got 0"},
		{"builtin: builtin:hybrid\nembeddings: {url: http://x/v1, modle: m}\n", "t.yaml:2:32: unknown field \"modle\" in embeddings (did you mean \"model\"?)"},
		{"http: {url: http://x}\nembeddings: {url: http://x/v1, model: m}\n", "t.yaml:2:14: embeddings: and rerank: configure builtin:hybrid"},
	} {
		_, err := ParseFile("t.yaml", []byte(c.file), Options{Suite: s, Getenv: getenv})
		if err == nil || !strings.HasPrefix(err.Error(), c.err) {
			t.Errorf("%q:\n got %v\nwant %s", c.file, err, c.err)
		}
	}
}

func TestHybridTargetFileEndpoints(t *testing.T) {
	srv := standIn(t)
	s := hybridSuite("http://127.0.0.1:1/v1") // the file's endpoints win
	file := "builtin: \"builtin?preset={{.Variant.preset}}\"\n" +
		"embeddings: {url: " + srv.URL + ", model: concepts, api_key: \"${EMB_KEY}\", batch: 2}\n" +
		"rerank: {url: " + srv.URL + ", model: concept-rerank, api_key: \"${EMB_KEY}\"}\n" +
		"variants: {preset: [fast, balanced, thorough]}\n"
	for _, p := range []string{"fast", "balanced", "thorough"} {
		tg, err := ParseFile("t.yaml", []byte(file), Options{Suite: s, Getenv: getenv, Variant: map[string]string{"preset": p}})
		if err != nil {
			t.Fatal(err)
		}
		b := tg.(*Builtin)
		if err := b.Setup(context.Background()); err != nil {
			t.Fatal(err)
		}
		obs, err := b.Observe(context.Background(), xlangCase)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(obs); !strings.Contains(strings.Join(got, " "), "de/passwort.md") {
			t.Errorf("%s: %v", p, got)
		}
		if d := b.Describe(); d.Config["preset"] != p || !strings.Contains(toJSON(d), `"api_key":"${EMB_KEY}"`) {
			t.Errorf("%s: description %s", p, toJSON(d))
		}
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestHybridConcurrentObserve(t *testing.T) {
	srv := standIn(t)
	b := openHybrid(t, "builtin?preset=thorough", hybridSuite(srv.URL), t.TempDir())
	want, err := b.Observe(context.Background(), xlangCase)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			obs, err := b.Observe(context.Background(), xlangCase)
			if err == nil && strings.Join(ids(obs), " ") != strings.Join(ids(want), " ") {
				err = errors.New("ranking differs: " + strings.Join(ids(obs), " "))
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// A vector longer than the index's dimension cap stops the indexing at the
// batch that brought it: one request, an error naming the document and the
// cap. The vectors used to be collected for the whole corpus before the
// cap was checked (200,000 dimensions: 2.2 GB held before the error).
func TestHybridVectorPastTheDimensionCapIsRefusedAtItsBatch(t *testing.T) {
	srv := llmtest.New(t, llmtest.Handlers{Embed: func(string) []float32 { return make([]float32, engine.MaxVectorDim+1) }})
	srv.Key = testKey
	s := hybridSuite(srv.URL)
	s.Embeddings.Batch = 1
	tg, err := Open("builtin:hybrid", Options{Suite: s, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	err = tg.(*Builtin).Setup(context.Background())
	want := `builtin:hybrid: document "de/passwort.md" has a 65537-dimensional vector, more than the 65536 dimensions a vector index holds (set embeddings.dimensions)`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	if n := srv.Count(llmtest.EmbedPath); n != 1 {
		t.Errorf("%d embeddings requests, want 1 (the first batch's vector is past the cap)", n)
	}
}

// Vectors whose lengths differ stop the indexing at the batch where they
// first differ.
func TestHybridVectorsOfDifferentLengthsAreRefusedAtTheirBatch(t *testing.T) {
	calls := 0
	srv := llmtest.New(t, llmtest.Handlers{Embed: func(string) []float32 {
		calls++
		return make([]float32, 4*calls)
	}})
	srv.Key = testKey
	s := hybridSuite(srv.URL)
	s.Embeddings.Batch = 1
	tg, err := Open("builtin:hybrid", Options{Suite: s, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	err = tg.(*Builtin).Setup(context.Background())
	if err == nil || !strings.Contains(err.Error(), "has a 8-dimensional vector, the others 4") {
		t.Errorf("err = %v", err)
	}
	if n := srv.Count(llmtest.EmbedPath); n != 2 {
		t.Errorf("%d embeddings requests, want 2 (the second batch differs)", n)
	}
}
