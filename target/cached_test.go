package target_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/cache"
	"github.com/assay-eval/assay/redact"
	"github.com/assay-eval/assay/target"
)

// fake is a described target with every capability, counting calls.
type fake struct {
	observed, setups, cleanups atomic.Int64
	fail                       func(c assay.Case) bool
}

func (f *fake) Observe(ctx context.Context, c assay.Case) (assay.Observation, error) {
	f.observed.Add(1)
	if f.fail != nil && f.fail(c) {
		e := assay.Errorf(assay.ErrHTTPStatus, "503")
		return assay.Observation{Case: c.ID, Error: e}, e
	}
	lat := 12.5
	return assay.Observation{Case: c.ID, Trial: assay.TrialFrom(ctx), Answer: "answer to " + c.Query + " (trial " + string(rune('0'+assay.TrialFrom(ctx))) + ")",
		LatencyMs: &lat, Attempts: 2, Spans: []assay.Span{{Name: "retrieve", EndMs: 3}}, Versions: map[string]string{"index": "v1"}}, nil
}
func (f *fake) Describe() assay.TargetInfo {
	return assay.TargetInfo{Kind: "http", Fingerprint: "sha256:abc"}
}
func (f *fake) Setup(context.Context) error { f.setups.Add(1); return nil }
func (f *fake) Cleanup(context.Context, assay.Case, assay.Observation) error {
	f.cleanups.Add(1)
	return nil
}
func (f *fake) Measures() map[string]float64 { return map[string]float64{"index_bytes": 10} }
func (f *fake) Secrets() []redact.Secret {
	return []redact.Secret{{Name: "K", Value: "secret-value-1"}}
}

func newCached(t *testing.T, f *fake) (*target.Cached, *cache.Cache) {
	t.Helper()
	c, err := cache.Open(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	return target.NewCached(f, f.Describe(), c, target.CacheOptions{K: 10}), c
}

func observe(t *testing.T, tg assay.Target, c assay.Case, trial int) assay.Observation {
	t.Helper()
	obs, err := tg.Observe(assay.WithTrial(context.Background(), trial), c)
	if err != nil {
		t.Fatal(err)
	}
	return obs
}

func TestCachedAnswersASecondAskFromTheCache(t *testing.T) {
	f := &fake{}
	tg, _ := newCached(t, f)
	c := assay.Case{ID: "q1", Query: "tea"}
	live := observe(t, tg, c, 0)
	if live.Cached || live.LatencyMs == nil || f.observed.Load() != 1 {
		t.Fatalf("first observation %+v", live)
	}
	hit := observe(t, tg, c, 0)
	if f.observed.Load() != 1 {
		t.Fatalf("the system was asked again")
	}
	if !hit.Cached || hit.LatencyMs != nil || hit.Attempts != 0 || hit.Spans != nil {
		t.Errorf("cached observation keeps timing of its own: %+v", hit)
	}
	if hit.OriginalLatencyMs == nil || *hit.OriginalLatencyMs != 12.5 || hit.Answer != live.Answer || hit.Versions["index"] != "v1" {
		t.Errorf("cached observation %+v", hit)
	}
	// Another trial, query or k is another entry; another expectation is not.
	observe(t, tg, c, 1)
	observe(t, tg, assay.Case{ID: "q1", Query: "coffee"}, 0)
	observe(t, tg, assay.Case{ID: "q1", Query: "tea", K: 3}, 0)
	observe(t, tg, assay.Case{ID: "q1", Query: "tea", K: 10, Expect: assay.Expect{AnswerIncludes: []string{"x"}}}, 0)
	if n := f.observed.Load(); n != 4 {
		t.Errorf("%d live observations, want 4 (trial, query, k are in the key; expect and k equal to the default are not)", n)
	}
}

func TestCachedDoesNotStoreFailures(t *testing.T) {
	f := &fake{fail: func(assay.Case) bool { return true }}
	tg, c := newCached(t, f)
	for range 2 {
		if _, err := tg.Observe(context.Background(), assay.Case{ID: "q1", Query: "tea"}); err == nil {
			t.Fatal("no error")
		}
	}
	if n := f.observed.Load(); n != 2 {
		t.Errorf("a failure was replayed: %d live observations", n)
	}
	if st, _ := c.Stats(); len(st) != 0 {
		t.Errorf("stored: %+v", st)
	}
}

func TestCachedForwardsCapabilitiesAndSkipsCleanupOfHits(t *testing.T) {
	f := &fake{}
	tg, _ := newCached(t, f)
	if err := tg.Setup(context.Background()); err != nil || f.setups.Load() != 1 {
		t.Errorf("setup not forwarded")
	}
	if tg.Describe().Fingerprint != "sha256:abc" || tg.Measures()["index_bytes"] != 10 || len(target.Secrets(tg)) != 1 {
		t.Errorf("capabilities not forwarded")
	}
	c := assay.Case{ID: "q1", Query: "tea"}
	live := observe(t, tg, c, 0)
	tg.Cleanup(context.Background(), c, live)
	hit := observe(t, tg, c, 0)
	tg.Cleanup(context.Background(), c, hit)
	if n := f.cleanups.Load(); n != 1 {
		t.Errorf("%d cleanups, want 1 (the live observation's)", n)
	}
}

func TestCachedStoresRedacted(t *testing.T) {
	f := &fake{}
	tg, c := newCached(t, f)
	c.Redact(f.Secrets()...)
	sec := assay.Case{ID: "q1", Query: "secret-value-1"}
	live := observe(t, tg, sec, 0)
	hit := observe(t, tg, sec, 0)
	if !hit.Cached || hit.Answer != "answer to ${K} (trial 0)" || live.Answer == hit.Answer {
		t.Errorf("live %q, cached %q", live.Answer, hit.Answer)
	}
}

func TestCachedConcurrentCases(t *testing.T) {
	f := &fake{}
	tg, _ := newCached(t, f)
	var wg sync.WaitGroup
	for round := range 2 {
		for i := range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				obs, err := tg.Observe(assay.WithTrial(context.Background(), i%3), assay.Case{ID: string(rune('a' + i)), Query: "q"})
				if err != nil || (round == 1 && !obs.Cached) {
					t.Errorf("round %d case %d: %v cached=%v", round, i, err, obs.Cached)
				}
			}()
		}
		wg.Wait()
	}
	if n := f.observed.Load(); n != 32 {
		t.Errorf("%d live observations, want 32", n)
	}
	if w := tg.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q", w)
	}
}

func TestCacheable(t *testing.T) {
	for kind, want := range map[string]bool{"http": true, "command": true, "surfaces": true, "builtin": false, "replay": false, "trec": false, "": false} {
		if target.Cacheable(kind) != want {
			t.Errorf("Cacheable(%q) = %v", kind, !want)
		}
	}

}

// TestCachedNeverStoresAFailedAnswer: against a real HTTP system, an
// error status, a rate-limit answer, a timeout, a truncated body and a
// body over max_body are each asked again on the next run, never stored.
func TestCachedNeverStoresAFailedAnswer(t *testing.T) {
	var hits atomic.Int64
	huge := []byte(`{"answer": "` + strings.Repeat("x", 11<<20) + `"}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/error":
			http.Error(w, "boom", http.StatusInternalServerError)
		case "/ratelimit":
			w.Header().Set("Retry-After", "0")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		case "/timeout":
			select {
			case <-r.Context().Done():
			case <-time.After(2 * time.Second):
			}
			w.Write([]byte(`{"answer": "late"}`))
		case "/truncated":
			w.Header().Set("Content-Length", "100")
			w.Write([]byte(`{"answer": "cut`))
		case "/huge":
			w.Write(huge)
		default:
			w.Write([]byte(`{"answer": "fine"}`))
		}
	}))
	defer srv.Close()
	for _, path := range []string{"/error", "/ratelimit", "/timeout", "/truncated", "/huge"} {
		t.Run(strings.TrimPrefix(path, "/"), func(t *testing.T) {
			spec := srv.URL + path
			tgt, err := target.Open(spec, target.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer target.Close(tgt)
			c, err := cache.Open(filepath.Join(t.TempDir(), "cache"))
			if err != nil {
				t.Fatal(err)
			}
			tg := target.NewCached(tgt, target.Describe(tgt, spec), c, target.CacheOptions{K: 10})
			hits.Store(0)
			for range 2 {
				wait := 10 * time.Second
				if path == "/timeout" {
					wait = 200 * time.Millisecond
				}
				ctx, cancel := context.WithTimeout(context.Background(), wait)
				obs, err := tg.Observe(ctx, assay.Case{ID: "q1", Query: "tea"})
				cancel()
				if err == nil && obs.Error == nil {
					t.Fatalf("observation %+v: want a failure", obs)
				}
				if obs.Cached {
					t.Fatalf("a failure was answered from the cache: %+v", obs)
				}
			}
			if n := hits.Load(); n < 2 {
				t.Errorf("the system was asked %d times over two runs: the failure was replayed", n)
			}
			if st, _ := c.Stats(); len(st) != 0 {
				t.Errorf("stored: %+v", st)
			}
		})
	}
	// The control: a good answer is stored and answered from the cache.
	spec := srv.URL + "/ok"
	tgt, err := target.Open(spec, target.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close(tgt)
	c, _ := cache.Open(filepath.Join(t.TempDir(), "cache"))
	tg := target.NewCached(tgt, target.Describe(tgt, spec), c, target.CacheOptions{K: 10})
	observe(t, tg, assay.Case{ID: "q1", Query: "tea"}, 0)
	if hit := observe(t, tg, assay.Case{ID: "q1", Query: "tea"}, 0); !hit.Cached {
		t.Fatalf("a good answer was not cached: %+v", hit)
	}
}
