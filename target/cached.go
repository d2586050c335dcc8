package target

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/cache"
	"github.com/assay-eval/assay/redact"
)

// CacheKind is the cache kind of target responses.
const CacheKind = "target"

// maxCacheWarnings bounds the warnings a cached target keeps.
const maxCacheWarnings = 20

// Cacheable reports whether a target of this kind (TargetInfo.Kind) is
// answered from the cache by run --cache: the kinds that call a system
// (http, command, and a target file of surfaces, which are those). builtin,
// replay and trec are local and deterministic already.
func Cacheable(kind string) bool {
	return kind == "http" || kind == "command" || kind == "surfaces"
}

// CacheOptions are the inputs of a cached target's keys besides the case.
type CacheOptions struct {
	// K is the run's default k (the suite's, or -k): the k a case without
	// its own is sent.
	K int
	// Variant is the matrix variant the target was opened for.
	Variant map[string]string
}

// Cached is a target that answers from a response cache (run --cache):
// each case and trial is looked up by CacheKey; a miss is observed live
// and, when it succeeded, stored. A hit comes back marked Cached, with
// OriginalLatencyMs the stored latency and no latency, attempts or spans of
// its own. Observations that failed are not stored (a transient failure
// must not be replayed). Everything else (Describe, Secrets, Setup,
// Measures, Close) is the wrapped target's; Cleanup runs only after a live
// observation (a cached one made nothing to clean up).
type Cached struct {
	t     assay.Target
	c     *cache.Cache
	fp    string
	o     CacheOptions
	mu    sync.Mutex
	warns []string
	extra int
}

var (
	_ assay.Target    = (*Cached)(nil)
	_ assay.Describer = (*Cached)(nil)
	_ assay.Setupper  = (*Cached)(nil)
	_ assay.Cleaner   = (*Cached)(nil)
	_ assay.Measurer  = (*Cached)(nil)
)

// NewCached wraps t, whose description is info (info.Fingerprint, over its
// redacted configuration, is part of every key). The cache's redactor must
// hold t's secrets (the caller adds them): stored means redacted.
func NewCached(t assay.Target, info assay.TargetInfo, c *cache.Cache, o CacheOptions) *Cached {
	return &Cached{t: t, c: c, fp: info.Fingerprint, o: o}
}

// cacheCase is what of a case a target's request is built from: the
// fields its templates and its stdin line see (id, query, k, tags, vars,
// and a turn's number and history) and the surface it is sent to. Expectations, judgments and guards are
// not in it: changing how a case is graded keeps its cached response.
type cacheCase struct {
	ID      string            `json:"id"`
	Query   string            `json:"query"`
	K       int               `json:"k"`
	Tags    map[string]string `json:"tags,omitempty"`
	Vars    map[string]string `json:"vars,omitempty"`
	Surface string            `json:"surface,omitempty"`
	// Turn and History, for a turn of a conversation: the same message
	// after another history is another request.
	Turn    int             `json:"turn,omitempty"`
	History []assay.Message `json:"history,omitempty"`
}

// CacheKey is the key of a case's trial against a target of fingerprint
// fp: cache.Key of "target/v1", fp, the variant, the case's request
// fields (cacheCase) and the trial.
func CacheKey(fp string, o CacheOptions, c assay.Case, trial int) string {
	k := c.K
	if k <= 0 {
		k = o.K
	}
	if k <= 0 {
		k = assay.DefaultK
	}
	return cache.Key("target/v1", fp, o.Variant, cacheCase{ID: c.ID, Query: c.Query, K: k, Tags: c.Tags, Vars: c.Vars, Surface: c.Surface, Turn: c.Turn, History: c.History}, trial)
}

// Observe answers from the cache, or observes live and stores the answer.
func (t *Cached) Observe(ctx context.Context, c assay.Case) (assay.Observation, error) {
	trial := assay.TrialFrom(ctx)
	key := CacheKey(t.fp, t.o, c, trial)
	b, ok, err := t.c.Get(CacheKind, key)
	if err != nil {
		t.warn(fmt.Sprintf("response cache: %v (case %s observed live)", err, c.ID))
	}
	if ok {
		var obs assay.Observation
		if err := json.Unmarshal(b, &obs); err == nil && obs.Error == nil {
			obs.Case, obs.Trial = c.ID, trial
			obs.Cached, obs.OriginalLatencyMs = true, obs.LatencyMs
			obs.LatencyMs, obs.LatencyTotalMs, obs.Attempts, obs.Spans = nil, nil, 0, nil
			return obs, nil
		}
		t.warn(fmt.Sprintf("response cache: the entry of case %s (trial %d) is not an observation: observed live and replaced", c.ID, trial))
	}
	obs, err := t.t.Observe(ctx, c)
	if err != nil || obs.Error != nil || ctx.Err() != nil {
		return obs, err
	}
	stored := obs
	stored.Cached, stored.OriginalLatencyMs = false, nil
	if b, err := json.Marshal(stored); err != nil {
		t.warn(fmt.Sprintf("response cache: case %s: %v", c.ID, err))
	} else if err := t.c.Put(CacheKind, key, b); err != nil {
		t.warn(fmt.Sprintf("response cache: %v", err))
	}
	return obs, nil
}

func (t *Cached) warn(msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.warns) < maxCacheWarnings {
		t.warns = append(t.warns, msg)
	} else {
		t.extra++
	}
}

// Warnings are the cache's troubles met so far (unreadable, corrupt or
// unwritable entries), worded for the run's warnings; each was a miss.
func (t *Cached) Warnings() []string {
	t.mu.Lock()
	out := append([]string(nil), t.warns...)
	if t.extra > 0 {
		out = append(out, fmt.Sprintf("response cache: %d more warnings", t.extra))
	}
	t.mu.Unlock()
	return append(out, t.c.Warnings()...)
}

// Describe is the wrapped target's description.
func (t *Cached) Describe() assay.TargetInfo { return Describe(t.t, "") }

// Secrets are the wrapped target's.
func (t *Cached) Secrets() []redact.Secret { return Secrets(t.t) }

// Setup runs the wrapped target's setup (setup steps still run: they
// prepare the system, which a live miss needs).
func (t *Cached) Setup(ctx context.Context) error {
	if s, ok := t.t.(assay.Setupper); ok {
		return s.Setup(ctx)
	}
	return nil
}

// Measures are the wrapped target's.
func (t *Cached) Measures() map[string]float64 {
	if m, ok := t.t.(assay.Measurer); ok {
		return m.Measures()
	}
	return nil
}

// Cleanup cleans up after a live observation only.
func (t *Cached) Cleanup(ctx context.Context, c assay.Case, obs assay.Observation) error {
	if cl, ok := t.t.(assay.Cleaner); ok && !obs.Cached {
		return cl.Cleanup(ctx, c, obs)
	}
	return nil
}

// Close closes the wrapped target.
func (t *Cached) Close() error { return Close(t.t) }
