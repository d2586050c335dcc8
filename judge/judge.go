package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/cache"
	"github.com/assay-eval/assay/llm"
	"github.com/assay-eval/assay/redact"
)

// Defaults of a judge definition.
const (
	DefaultConcurrency = 4
	DefaultRetries     = 2
	DefaultTimeout     = 60 * time.Second
	// MaxRepeats bounds --judge-repeats.
	MaxRepeats = assay.MaxJudgeRepeats
	// MaxAnswerBody is the largest response the judge reads from its
	// endpoint (the body, read up to this size and refused past it): an
	// answer is a few scores and a line of reasoning.
	MaxAnswerBody = 1 << 20
	// BreakerFailures is how many requests in a row (retries included)
	// may fail before the judge stops judging the run: the circuit
	// breaker opens, the requests in flight are abandoned, and every
	// later result is not judged.
	BreakerFailures = 5
	// maxWarnings bounds the warnings a judge keeps.
	maxWarnings = 20
)

// CacheKind is the kind of the judge's cache entries.
const CacheKind = "judge"

// Store is the cache the judge reads and fills (cache.Cache).
type Store interface {
	Get(kind, key string) ([]byte, bool, error)
	Put(kind, key string, value []byte) error
}

var _ Store = (*cache.Cache)(nil)

// Options are what New needs besides the definition.
type Options struct {
	// Getenv expands api_key: ${VAR} (nil: nothing is set).
	Getenv func(string) string
	// Secrets, when set, gets the expanded key, so that whoever redacts
	// with it (the run, its outputs) takes the key out.
	Secrets *redact.Redactor
	// Cache, when set, answers a call asked before and keeps each new
	// answer (kind CacheKind).
	Cache Store
	// Repeats asks each case that many times, with different seeds (1
	// when 0).
	Repeats int
	// Client is the HTTP client (nil: package llm's default).
	Client *http.Client
	// AllowLiteralSecrets lets a credential written in the url's query
	// (?api_key=...) through, as a secret (--allow-literal-secrets).
	AllowLiteralSecrets bool
	// Corpus is the suite's documents: the text of a retrieved passage
	// the observation does not carry is looked up there by id (else by
	// path).
	Corpus []assay.Document
	// Probes are bias probes asked besides the definition's own
	// (assay.JudgeProbes; --judge-probes).
	Probes []string
}

// redactURL is a url as shown in messages: user info and credential query
// values hidden.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable url)"
	}
	return redact.URL(u)
}

// Judge grades observations with a model. It is safe for concurrent use.
type Judge struct {
	cfg     assay.JudgeConfig
	rubric  []assay.JudgeCriterion
	ep      *llm.Endpoint
	cache   Store
	repeats int
	temp    float64
	sem     chan struct{}
	schema  json.RawMessage
	budget  *budget
	secrets *redact.Redactor // what answers are redacted of before a cut
	// maxTokens is the completion limit sent (the definition's, else
	// DefaultAnswerTokens when the budget bounds tokens or cost).
	maxTokens int
	// docs finds a passage's text by id, then by path.
	docs   map[string]*assay.Document
	paths  map[string]*assay.Document
	probes []string // in assay.JudgeProbes order

	// dead is done when the circuit breaker opens (kill opens it).
	dead context.Context
	kill context.CancelFunc

	mu      sync.Mutex
	flights map[string]*flight // the prompts of the run, by cache key
	fails   int                // requests failed in a row
	stopped string             // why the breaker opened ("" while closed)
	warns   []string
	dropped int
}

var envRef = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$`)

// New checks a definition and makes its judge. The api_key must be empty
// or ${VAR} naming a set variable.
func New(cfg assay.JudgeConfig, o Options) (*Judge, error) {
	where := "judge"
	if cfg.Source != "" {
		where = cfg.Source + ": judge"
	}
	switch {
	case cfg.URL == "":
		return nil, fmt.Errorf("%s: no url (an OpenAI-compatible base URL such as http://127.0.0.1:11434/v1)", where)
	case !strings.HasPrefix(cfg.URL, "http://") && !strings.HasPrefix(cfg.URL, "https://"):
		return nil, fmt.Errorf("%s: url %q: want an http(s) base URL", where, redactURL(cfg.URL))
	case cfg.Model == "":
		return nil, fmt.Errorf("%s: no model", where)
	case o.Repeats < 0 || o.Repeats > MaxRepeats:
		return nil, fmt.Errorf("--judge-repeats must be from 1 to %d, got %d", MaxRepeats, o.Repeats)
	}
	// A credential in the url: user info is never sent (the key goes in
	// api_key), a query parameter named like one is refused unless
	// literals are allowed, and is then a secret.
	if _, _, hasUser, _, _ := redact.SplitURL(cfg.URL); hasUser {
		return nil, fmt.Errorf("%s: url %s: user info in the url is not sent: give the key as api_key: ${VAR}", where, redactURL(cfg.URL))
	}
	if what := redact.LiteralInURL(cfg.URL); what != "" {
		if !o.AllowLiteralSecrets {
			return nil, fmt.Errorf("%s: url %s: literal credential (%s); give the key as api_key: ${VAR} (or pass --allow-literal-secrets)", where, redactURL(cfg.URL), what)
		}
		if o.Secrets == nil {
			o.Secrets = redact.New()
		}
		u, _ := url.Parse(cfg.URL)
		for k, vs := range u.Query() {
			for _, v := range vs {
				if redact.IsSecretName(k) {
					o.Secrets.Add(redact.Secret{Value: v})
				}
			}
		}
	}
	if cfg.ResponseFormat != "" && cfg.ResponseFormat != "json_schema" && cfg.ResponseFormat != "json_object" && cfg.ResponseFormat != "none" {
		return nil, fmt.Errorf("%s: response_format %q: want json_schema, json_object or none", where, cfg.ResponseFormat)
	}
	rubric := cfg.Rubric
	if len(rubric) == 0 {
		rubric = DefaultRubric
	}
	seen := map[string]bool{}
	for _, cr := range rubric {
		if cr.Name == "" || cr.Name == "reasoning" || seen[cr.Name] || !(cr.Min < cr.Max) {
			return nil, fmt.Errorf("%s: rubric criterion %q: want a unique name other than reasoning, and min < max", where, cr.Name)
		}
		seen[cr.Name] = true
	}
	ep := &llm.Endpoint{URL: cfg.URL, Model: cfg.Model, Timeout: time.Duration(cfg.Timeout), Retries: DefaultRetries, Client: o.Client, MaxBody: MaxAnswerBody}
	if ep.Timeout <= 0 {
		ep.Timeout = DefaultTimeout
	}
	if cfg.Retries != nil {
		ep.Retries = *cfg.Retries
	}
	if cfg.APIKey != "" {
		m := envRef.FindStringSubmatch(cfg.APIKey)
		if m == nil {
			return nil, fmt.Errorf("%s: api_key: write a reference to the environment such as ${OPENAI_API_KEY}, not the key itself", where)
		}
		getenv := o.Getenv
		if getenv == nil {
			getenv = func(string) string { return "" }
		}
		key := getenv(m[1])
		if key == "" {
			return nil, fmt.Errorf("%s: api_key: environment variable %s is not set", where, m[1])
		}
		ep.APIKey, ep.KeyName = key, m[1]
		if o.Secrets == nil {
			o.Secrets = redact.New()
		}
		o.Secrets.Add(redact.Secret{Name: m[1], Value: key})
	}
	ep.Secrets = o.Secrets
	conc := cfg.Concurrency
	if conc <= 0 {
		conc = DefaultConcurrency
	}
	repeats := max(o.Repeats, 1)
	var probes []string
	for _, p := range append(slices.Clone(cfg.Probes), o.Probes...) {
		if !slices.Contains(assay.JudgeProbes, p) {
			return nil, fmt.Errorf("%s: unknown probe %q (want %s)", where, p, strings.Join(assay.JudgeProbes, ", "))
		}
	}
	for _, p := range assay.JudgeProbes {
		if slices.Contains(cfg.Probes, p) || slices.Contains(o.Probes, p) {
			probes = append(probes, p)
		}
	}
	maxTokens := cfg.MaxTokens
	if maxTokens <= 0 && (cfg.Budget.MaxTokens > 0 || cfg.Budget.MaxCost > 0) {
		maxTokens = DefaultAnswerTokens
	}
	j := &Judge{cfg: cfg, rubric: rubric, ep: ep, cache: o.Cache, repeats: repeats, sem: make(chan struct{}, conc), budget: &budget{b: cfg.Budget, answer: maxTokens}, secrets: o.Secrets, flights: map[string]*flight{}, maxTokens: maxTokens, probes: probes}
	if len(o.Corpus) > 0 {
		j.docs, j.paths = make(map[string]*assay.Document, len(o.Corpus)), map[string]*assay.Document{}
		for i := range o.Corpus {
			d := &o.Corpus[i]
			j.docs[d.ID] = d
			if d.Path != "" {
				j.paths[d.Path] = d
			}
		}
	}
	j.dead, j.kill = context.WithCancel(context.Background())
	if cfg.Temperature != nil {
		j.temp = *cfg.Temperature
	}
	if cfg.ResponseFormat == "" || cfg.ResponseFormat == "json_schema" {
		j.schema = Schema(rubric)
	}
	return j, nil
}

// Rubric is the judge's criteria.
func (j *Judge) Rubric() []assay.JudgeCriterion { return slices.Clone(j.rubric) }

// MetricNames are the metrics the judge adds to each judged result, in
// rubric order: judge.<criterion>.
func (j *Judge) MetricNames() []string {
	out := make([]string, len(j.rubric))
	for i, cr := range j.rubric {
		out[i] = assay.JudgeMetricPrefix + cr.Name
	}
	return out
}

// Repeats is how many times each case is asked.
func (j *Judge) Repeats() int { return j.repeats }

// entry is a cached answer.
type entry struct {
	Content string    `json:"content"`
	Model   string    `json:"model"`
	Usage   llm.Usage `json:"usage"`
}

// params are the decoding parameters of one call, in its cache key.
type params struct {
	Temperature float64         `json:"temperature"`
	Seed        *int            `json:"seed"`
	MaxTokens   int             `json:"max_tokens"`
	Format      string          `json:"response_format"`
	Schema      json.RawMessage `json:"schema,omitempty"`
}

// call is one repeat of a case.
type call struct {
	key    string
	seed   *int
	answer *entry  // from the cache or an earlier identical prompt, or nil
	lead   *flight // the flight this case asks for (a cache miss), or nil
	wait   *flight // the flight of another case asking the same, or nil
	// reserved: the budget holds a request for it not yet sent.
	reserved bool
}

// flight is one prompt asked in a run: its first asker (the lead) fills it,
// later askers of the same key wait for it. A flight that got an answer
// stays for the run (the prompt is judged once); one that did not is
// forgotten once done, and the next asker asks again.
type flight struct {
	done      chan struct{}
	answer    *entry       // the parsed answer, when there is one
	err       *assay.Error // a judge error of the lead's request
	notJudged string       // why the lead sent no request
}

// claim returns what the run knows of key: a finished answer, a flight in
// progress to wait for, or a new flight the caller leads.
func (j *Judge) claim(key string) (answer *entry, wait, lead *flight) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if f, ok := j.flights[key]; ok {
		select {
		case <-f.done:
			return f.answer, nil, nil
		default:
			return nil, f, nil
		}
	}
	f := &flight{done: make(chan struct{})}
	j.flights[key] = f
	return nil, nil, f
}

// land finishes a flight the caller leads.
func (j *Judge) land(key string, f *flight) {
	j.mu.Lock()
	if f.answer == nil {
		delete(j.flights, key)
	}
	j.mu.Unlock()
	close(f.done)
}

// Grade judges one graded result: it sets r.Judge, adds the metrics
// judge.<criterion> when the case was judged, and, for every bound the
// case (or defaults, from bounds) states, a check of kind
// judge.<criterion> that decides r.Pass with the other checks. obs is the
// observation r was graded on (what is sent); a result whose target
// failed is not judged. Grade never returns an error: a failure of the
// judge is r.Judge.Error (class judge), and the run goes on.
func (j *Judge) Grade(ctx context.Context, c assay.Case, obs *assay.Observation, defaults map[string]float64, r *assay.CaseResult) {
	jr := &assay.JudgeResult{Model: j.cfg.Model}
	if j.repeats > 1 {
		jr.Repeats = j.repeats
	}
	r.Judge = jr
	bounds := Bounds(defaults, c.Expect.Judge)
	if r.Error != nil || obs == nil {
		jr.NotJudged = "the target failed: no answer to judge"
		j.check(r, bounds)
		return
	}
	if why := j.broken(); why != "" {
		jr.NotJudged = why
		j.check(r, bounds)
		return
	}
	o, missing := j.passages(*obs)
	rubric := j.rubric
	if missing != "" {
		// A criterion graded against the passages is not asked when they
		// have no text: it would be judged on titles.
		rubric = nil
		for _, cr := range j.rubric {
			if cr.Passages {
				if jr.CriteriaNotJudged == nil {
					jr.CriteriaNotJudged = map[string]string{}
				}
				jr.CriteriaNotJudged[cr.Name] = missing
			} else {
				rubric = append(rubric, cr)
			}
		}
		if len(rubric) == 0 {
			jr.NotJudged = missing
			j.check(r, bounds)
			return
		}
	}
	system, user := Prompt(rubric, c, o)
	calls := make([]call, j.repeats)
	misses := 0
	var h hold
	// Whatever happens below, the flights this case leads are landed, so
	// that no other case waits for them forever, and the requests
	// reserved but never sent give their reservation back.
	defer func() {
		for i := range calls {
			if calls[i].reserved {
				j.budget.settle(h, 1, 0, llm.Usage{})
			}
			if f := calls[i].lead; f != nil {
				if f.answer == nil && f.err == nil && f.notJudged == "" {
					f.err, f.notJudged = jr.Error, jr.NotJudged
				}
				j.land(calls[i].key, f)
			}
		}
	}()
	for i := range calls {
		p := j.params(i)
		cl := &calls[i]
		cl.seed = p.Seed
		cl.key = cache.Key(PromptVersion, j.cfg.Model, system, user, p, r.Trial, i)
		cl.answer, cl.wait, cl.lead = j.claim(cl.key)
		if cl.lead == nil {
			continue // asked by another case of this run
		}
		cl.answer = j.cached(cl.key, rubric)
		if cl.answer == nil {
			misses++
		} else {
			cl.lead.answer = cl.answer
		}
	}
	h, why := j.budget.reserve(ctx, misses, len(system)+len(user))
	if why != "" {
		jr.NotJudged = why
		for i := range calls {
			if f := calls[i].lead; f != nil && f.answer == nil {
				f.notJudged = jr.NotJudged
			}
		}
		j.check(r, bounds)
		return
	}
	for i := range calls {
		calls[i].reserved = calls[i].lead != nil && calls[i].answer == nil
	}
	verdicts := make([]Verdict, len(calls))
	models := make([]string, len(calls))
	asked := false
	// The requests this case leads first, then the answers of others: a
	// case never waits while holding a flight of its own.
	for _, waiting := range []bool{false, true} {
		for i := range calls {
			cl := &calls[i]
			if (cl.wait != nil) != waiting || jr.Error != nil || jr.NotJudged != "" {
				continue
			}
			e := cl.answer
			switch {
			case cl.wait != nil:
				select {
				case <-cl.wait.done:
				case <-ctx.Done():
					jr.Error = &assay.Error{Class: assay.ErrJudge, Message: "judge endpoint: canceled"}
					continue
				}
				e = cl.wait.answer
				if e == nil {
					jr.Error, jr.NotJudged = cl.wait.err, cl.wait.notJudged
					if jr.Error == nil && jr.NotJudged == "" {
						jr.NotJudged = "the same prompt, asked for another case, got no answer"
					}
					continue
				}
			case e == nil:
				cl.reserved = false // ask settles it
				e = j.ask(ctx, system, user, cl.seed, h, jr)
				asked = true
				if e == nil {
					cl.lead.err, cl.lead.notJudged = jr.Error, jr.NotJudged
					continue
				}
			}
			v, err := ParseRedacted(j.secrets, rubric, e.Content)
			if err != nil {
				jr.Error = &assay.Error{Class: assay.ErrJudge, Message: "judge answer: " + err.Error()}
				if cl.lead != nil {
					cl.lead.err = jr.Error
				}
				continue
			}
			if cl.lead != nil && cl.lead.answer == nil {
				// What is kept (for the run and in the cache) is the answer
				// as read: the scores and the reasoning as cut, not the
				// endpoint's whole text.
				e = &entry{Content: v.canonical(rubric), Model: e.Model, Usage: e.Usage}
				cl.lead.answer = e
				j.keep(cl.key, e)
			}
			verdicts[i], models[i] = v, e.Model
		}
	}
	if jr.Error != nil || jr.NotJudged != "" {
		j.check(r, bounds)
		return
	}
	jr.Cached = !asked
	model := models[0]
	if model == "" {
		model = j.cfg.Model
	}
	jr.Model = model
	if r.Metrics == nil {
		r.Metrics = make(map[string]float64, len(rubric))
	}
	for _, cr := range rubric {
		sc := assay.JudgeScore{Criterion: cr.Name, Reason: verdicts[0].Reasoning, Model: model, Cached: jr.Cached}
		lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
		for _, v := range verdicts {
			x := v.Scores[cr.Name]
			sum += x
			lo, hi = math.Min(lo, x), math.Max(hi, x)
			if j.repeats > 1 {
				sc.Repeats = append(sc.Repeats, x)
			}
		}
		sc.Score = sum / float64(len(verdicts))
		if j.repeats > 1 {
			spread := hi - lo
			sc.Spread = &spread
			if b, ok := bounds[cr.Name]; ok && lo < b && hi >= b {
				jr.Unstable = append(jr.Unstable, cr.Name)
			}
		}
		jr.Scores = append(jr.Scores, sc)
		r.Metrics[assay.JudgeMetricPrefix+cr.Name] = sc.Score
	}
	j.runProbes(ctx, c, o, rubric, r.Trial, jr)
	j.check(r, bounds)
}

// keep puts an answer as read in the cache (a failure is a warning).
func (j *Judge) keep(key string, e *entry) {
	if j.cache == nil {
		return
	}
	if b, err := json.Marshal(e); err == nil {
		if err := j.cache.Put(CacheKind, key, b); err != nil {
			j.warn("judge cache: " + err.Error() + ": the answer is asked again next run")
		}
	}
}

// cached is the cache's answer for key, or nil. An entry that cannot be
// read, or that is not an answer the rubric accepts, is a miss and a
// warning of the run.
func (j *Judge) cached(key string, rubric []assay.JudgeCriterion) *entry {
	return j.cachedAs(key, func(content string) error {
		_, err := ParseRedacted(j.secrets, rubric, content)
		return err
	})
}

// cachedAs is cached with the check an entry's answer must pass (the
// rubric's, or a nugget assignment's).
func (j *Judge) cachedAs(key string, check func(content string) error) *entry {
	if j.cache == nil {
		return nil
	}
	b, ok, err := j.cache.Get(CacheKind, key)
	if err != nil {
		j.warn("judge cache: " + err.Error() + ": asked the judge instead")
		return nil
	}
	if !ok {
		return nil
	}
	var e entry
	if err := json.Unmarshal(b, &e); err != nil {
		j.warn(fmt.Sprintf("judge cache: the entry %s is not a judge answer (%s): asked the judge again and replaced it", key, jsonErrLine(err)))
		return nil
	}
	if err := check(e.Content); err != nil {
		j.warn(fmt.Sprintf("judge cache: the entry %s holds an answer the rubric refuses (%s): asked the judge again and replaced it", key, err))
		return nil
	}
	return &e
}

// ask sends one request, reserved as h (its retries reserved as well, its
// failures counted by the circuit breaker), settles it with the budget and
// returns the answer, or nil with jr.Error or jr.NotJudged set.
func (j *Judge) ask(ctx context.Context, system, user string, seed *int, h hold, jr *assay.JudgeResult) *entry {
	return j.askWith(ctx, system, user, seed, h, jr, j.schema, "judgement")
}

// askWith is ask with the answer's JSON Schema and its name.
func (j *Judge) askWith(ctx context.Context, system, user string, seed *int, h hold, jr *assay.JudgeResult, schema json.RawMessage, schemaName string) *entry {
	// A breaker that opens stops the requests in flight too.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(j.dead, cancel)
	defer stop()
	noRetry := ""
	held := 1
	got, err := j.chat(ctx, system, user, seed, schema, schemaName, func(err error, retry bool) bool {
		if err == nil {
			j.succeeded()
			return true
		}
		var le *llm.Error
		if errors.As(err, &le) && le.Class == assay.ErrCanceled {
			return false
		}
		if j.failed(err) {
			return false
		}
		if retry {
			if why := j.budget.retry(h); why != "" {
				noRetry = why
				return false
			}
			held++
		}
		return true
	})
	jr.Calls = addInt(jr.Calls, got.Attempts)
	jr.PromptTokens = addInt(jr.PromptTokens, got.Usage.PromptTokens)
	jr.CompletionTokens = addInt(jr.CompletionTokens, got.Usage.CompletionTokens)
	if cost, ok := j.budget.settle(h, held, got.Attempts, got.Usage); ok {
		jr.Cost = addCost(jr.Cost, cost)
	}
	if err != nil {
		// Not judged only when this request was stopped (by the breaker
		// or while waiting for a slot); the request whose own failure
		// opened the breaker keeps its error. ctx.Err() is not asked:
		// the breaker cancels ctx from another goroutine, so it would
		// class that request by timing.
		var le *llm.Error
		stopped := errors.Is(err, context.Canceled) || errors.As(err, &le) && le.Class == assay.ErrCanceled
		if why := j.broken(); why != "" && stopped {
			jr.NotJudged = why
			return nil
		}
		msg := "judge endpoint: " + err.Error()
		if noRetry != "" {
			msg += " (not retried: " + noRetry + ")"
		}
		jr.Error = &assay.Error{Class: assay.ErrJudge, Message: msg}
		return nil
	}
	return &entry{Content: got.Content, Model: got.Model, Usage: got.Usage}
}

// params are the decoding parameters of repeat i: the definition's seed
// (0 when it sets none and there are repeats) plus i.
func (j *Judge) params(i int) params {
	p := params{Temperature: j.temp, MaxTokens: j.maxTokens, Format: j.cfg.ResponseFormat, Schema: j.schema}
	if p.Format == "" {
		p.Format = "json_schema"
	}
	if j.cfg.Seed != nil || j.repeats > 1 {
		s := i
		if j.cfg.Seed != nil {
			s += *j.cfg.Seed
		}
		p.Seed = &s
	}
	return p
}

// chat sends one request, at most the definition's concurrency at a time;
// attempted sees each attempt (llm.ChatRequest.Attempted).
func (j *Judge) chat(ctx context.Context, system, user string, seed *int, schema json.RawMessage, schemaName string, attempted func(error, bool) bool) (llm.ChatResponse, error) {
	select {
	case j.sem <- struct{}{}:
	case <-ctx.Done():
		return llm.ChatResponse{}, ctx.Err()
	}
	defer func() { <-j.sem }()
	if ctx.Err() != nil || j.Broken() != "" {
		// Waited for a slot while the run was stopped or the breaker
		// opened: nothing is sent.
		return llm.ChatResponse{}, &llm.Error{Class: assay.ErrCanceled, Msg: "canceled"}
	}
	req := llm.ChatRequest{
		Messages:    []llm.Message{{Role: "system", Content: system}, {Role: "user", Content: user}},
		Temperature: j.temp, Seed: seed, MaxTokens: j.maxTokens,
		JSONSchema: schema, SchemaName: schemaName, JSONMode: j.cfg.ResponseFormat == "json_object",
		Attempted: attempted,
	}
	resp, err := j.ep.Chat(ctx, req)
	var le *llm.Error
	if err != nil && !errors.As(err, &le) {
		err = fmt.Errorf("%s", err.Error())
	}
	return resp, err
}

// check adds the judge checks of the bounds and decides r.Pass with them.
func (j *Judge) check(r *assay.CaseResult, bounds map[string]float64) {
	if len(bounds) == 0 {
		return
	}
	jr := r.Judge
	scores := map[string]assay.JudgeScore{}
	for _, s := range jr.Scores {
		scores[s.Criterion] = s
	}
	ok := r.Pass == nil || *r.Pass
	for _, name := range slices.Sorted(maps.Keys(bounds)) {
		b := bounds[name]
		ch := assay.Check{Kind: assay.JudgeMetricPrefix + name}
		switch {
		case !slices.ContainsFunc(j.rubric, func(c assay.JudgeCriterion) bool { return c.Name == name }):
			ch.Detail = fmt.Sprintf("no criterion %q in the judge's rubric (criteria: %s)", name, strings.Join(j.criteria(), ", "))
		case r.Error != nil:
			ch.Detail = r.Error.Error()
		case jr.Error != nil:
			ch.Detail = "not judged: " + jr.Error.Error()
		case jr.NotJudged != "":
			ch.Detail = "not judged: " + jr.NotJudged
		case jr.CriteriaNotJudged[name] != "":
			ch.Detail = "not judged: " + jr.CriteriaNotJudged[name]
		default:
			s := scores[name]
			ch.Pass = s.Score >= b
			if !ch.Pass {
				ch.Detail = fmt.Sprintf("score %s < %s: %s", num(round4(s.Score)), num(b), nonEmpty(s.Reason, "(no reasoning given)"))
			}
		}
		ok = ok && ch.Pass
		r.Checks = append(r.Checks, ch)
	}
	r.Pass = &ok
}

func (j *Judge) criteria() []string {
	out := make([]string, len(j.rubric))
	for i, c := range j.rubric {
		out[i] = c.Name
	}
	return out
}

// Bounds is the judge bounds of a case: the defaults' overlaid with the
// case's own (assay.JudgeBounds).
func Bounds(defaults, own map[string]float64) map[string]float64 {
	return assay.JudgeBounds(defaults, own)
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }

func nonEmpty(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

func addCost(p *float64, c float64) *float64 {
	v := c
	if p != nil {
		v += *p
	}
	return &v
}

// broken is the not_judged of a result the circuit breaker stopped ("" while
// it is closed).
func (j *Judge) broken() string {
	if why := j.Broken(); why != "" {
		return "judge endpoint down: " + why
	}
	return ""
}

// succeeded closes the count of failures in a row.
func (j *Judge) succeeded() {
	j.mu.Lock()
	j.fails = 0
	j.mu.Unlock()
}

// failed counts a failed request and reports whether the breaker is open.
func (j *Judge) failed(err error) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.stopped != "" {
		return true
	}
	j.fails++
	if j.fails < BreakerFailures {
		return false
	}
	j.stopped = fmt.Sprintf("%d requests in a row failed (the last: %s)", j.fails, err)
	j.kill()
	return true
}

// Broken says why the circuit breaker stopped the judging ("" when it did
// not).
func (j *Judge) Broken() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.stopped
}

func (j *Judge) warn(msg string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.warns) >= maxWarnings {
		j.dropped++
		return
	}
	j.warns = append(j.warns, msg)
}

// Warnings are the troubles the judge met that cost no score: cache
// entries that could not be read, were corrupt or could not be written
// (each a miss, asked again), with the cache's own warnings when it keeps
// them. Each is returned once.
func (j *Judge) Warnings() []string {
	j.mu.Lock()
	out := j.warns
	if j.dropped > 0 {
		out = append(out, fmt.Sprintf("judge cache: %d more warnings", j.dropped))
	}
	j.warns, j.dropped = nil, 0
	j.mu.Unlock()
	if w, ok := j.cache.(interface{ Warnings() []string }); ok {
		for _, m := range w.Warnings() {
			out = append(out, "judge "+m)
		}
	}
	return out
}

// addInt adds two counts, saturating at math.MaxInt (a count an endpoint
// reports may be anything up to it); a negative one counts as 0.
func addInt(a, b int) int {
	a, b = max(a, 0), max(b, 0)
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

// jsonErrLine is a JSON decoding error on one line.
func jsonErrLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
