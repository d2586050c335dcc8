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
	MaxRepeats = 20
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
	ep := &llm.Endpoint{URL: cfg.URL, Model: cfg.Model, Timeout: time.Duration(cfg.Timeout), Retries: DefaultRetries, Client: o.Client}
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
	j := &Judge{cfg: cfg, rubric: rubric, ep: ep, cache: o.Cache, repeats: repeats, sem: make(chan struct{}, conc), budget: &budget{b: cfg.Budget}, secrets: o.Secrets}
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
	answer *entry // from the cache, or nil
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
	system, user := Prompt(j.rubric, c, *obs)
	calls := make([]call, j.repeats)
	misses := 0
	for i := range calls {
		p := j.params(i)
		calls[i].seed = p.Seed
		calls[i].key = cache.Key(PromptVersion, j.cfg.Model, system, user, p, r.Trial, i)
		if j.cache != nil {
			if b, ok, err := j.cache.Get(CacheKind, calls[i].key); err == nil && ok {
				var e entry
				if json.Unmarshal(b, &e) == nil {
					calls[i].answer = &e
				}
			}
		}
		if calls[i].answer == nil {
			misses++
		}
	}
	if why := j.budget.reserve(misses); why != "" {
		jr.NotJudged = "budget: " + why
		j.check(r, bounds)
		return
	}
	verdicts := make([]Verdict, len(calls))
	models := make([]string, len(calls))
	for i := range calls {
		cl := &calls[i]
		e := cl.answer
		if e == nil {
			got, err := j.chat(ctx, system, user, cl.seed)
			jr.Calls++
			jr.PromptTokens += got.Usage.PromptTokens
			jr.CompletionTokens += got.Usage.CompletionTokens
			if cost, ok := j.budget.spend(got.Usage); ok {
				jr.Cost = addCost(jr.Cost, cost)
			}
			if err != nil {
				jr.Error = &assay.Error{Class: assay.ErrJudge, Message: "judge endpoint: " + err.Error()}
				break
			}
			e = &entry{Content: got.Content, Model: got.Model, Usage: got.Usage}
		}
		v, err := ParseRedacted(j.secrets, j.rubric, e.Content)
		if err != nil {
			jr.Error = &assay.Error{Class: assay.ErrJudge, Message: "judge answer: " + err.Error()}
			break
		}
		if cl.answer == nil && j.cache != nil {
			if b, err := json.Marshal(e); err == nil {
				_ = j.cache.Put(CacheKind, cl.key, b) // a cache that cannot be written only costs a later call
			}
		}
		verdicts[i], models[i] = v, e.Model
	}
	if jr.Error != nil {
		j.check(r, bounds)
		return
	}
	jr.Cached = misses == 0
	model := models[0]
	if model == "" {
		model = j.cfg.Model
	}
	jr.Model = model
	if r.Metrics == nil {
		r.Metrics = make(map[string]float64, len(j.rubric))
	}
	for _, cr := range j.rubric {
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
	j.check(r, bounds)
}

// params are the decoding parameters of repeat i: the definition's seed
// (0 when it sets none and there are repeats) plus i.
func (j *Judge) params(i int) params {
	p := params{Temperature: j.temp, MaxTokens: j.cfg.MaxTokens, Format: j.cfg.ResponseFormat, Schema: j.schema}
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

// chat sends one request, at most the definition's concurrency at a time.
func (j *Judge) chat(ctx context.Context, system, user string, seed *int) (llm.ChatResponse, error) {
	select {
	case j.sem <- struct{}{}:
	case <-ctx.Done():
		return llm.ChatResponse{}, ctx.Err()
	}
	defer func() { <-j.sem }()
	req := llm.ChatRequest{
		Messages:    []llm.Message{{Role: "system", Content: system}, {Role: "user", Content: user}},
		Temperature: j.temp, Seed: seed, MaxTokens: j.cfg.MaxTokens,
		JSONSchema: j.schema, SchemaName: "judgement", JSONMode: j.cfg.ResponseFormat == "json_object",
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
// case's own.
func Bounds(defaults, own map[string]float64) map[string]float64 {
	if len(defaults) == 0 {
		return own
	}
	out := make(map[string]float64, len(defaults)+len(own))
	for k, v := range defaults {
		out[k] = v
	}
	for k, v := range own {
		out[k] = v
	}
	return out
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
