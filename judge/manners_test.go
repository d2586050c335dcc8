package judge_test

import (
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/cache"
	"github.com/assay-eval/assay/judge"
	"github.com/assay-eval/assay/judge/judgetest"
	"github.com/assay-eval/assay/llm"
	"github.com/assay-eval/assay/llm/llmtest"
)

func withRetries(cfg assay.JudgeConfig, n int) assay.JudgeConfig {
	cfg.Retries = &n
	return cfg
}

// TestRetriesCountAgainstMaxCalls: every request sent is a call, retries
// included (max_calls: 10 with retries once sent 17 requests).
func TestRetriesCountAgainstMaxCalls(t *testing.T) {
	srv := standIn(t)
	cfg := withRetries(config(srv.URL), 2)
	cfg.Budget.MaxCalls = 10
	j := newJudge(t, cfg, judge.Options{})
	tally := j.NewTally(false)
	for i := range 10 {
		// Each case's first request fails once, its retry is answered.
		srv.Inject(1, llmtest.Fault{Status: http.StatusServiceUnavailable, RetryAfter: "0"})
		tally.Add(grade(j, fmt.Sprintf("q%d", i), fmt.Sprintf("answer %d", i), nil))
	}
	s := tally.Summary()
	if n := srv.Count(llmtest.ChatPath); n > 10 || s.Calls != n {
		t.Errorf("%d requests sent, %d calls counted: max_calls 10 passed or miscounted", n, s.Calls)
	}
	if s.Judged != 5 || s.NotJudged != 5 || s.Budget != "max_calls 10 reached" {
		t.Errorf("summary %+v, want 5 judged (2 requests each), 5 not judged", s)
	}

	// A retry that would pass max_calls is not sent: the case is a judge
	// error that says why.
	srv2 := standIn(t)
	cfg = withRetries(config(srv2.URL), 3)
	cfg.Budget.MaxCalls = 1
	j = newJudge(t, cfg, judge.Options{})
	srv2.Inject(5, llmtest.Fault{Status: http.StatusServiceUnavailable, RetryAfter: "0"})
	r := grade(j, "q", "answer", nil)
	if srv2.Count("") != 1 || r.Judge.Error == nil || !strings.Contains(r.Judge.Error.Message, "(not retried: max_calls 1 reached)") || r.Judge.Calls != 1 {
		t.Errorf("%d requests, judge %+v", srv2.Count(""), r.Judge)
	}
}

// TestCircuitBreakerStopsADeadJudge: after BreakerFailures requests in a
// row fail, no more is sent and every later result is not judged, saying
// why (a dead judge held the run for every case's timeout and retries).
func TestCircuitBreakerStopsADeadJudge(t *testing.T) {
	srv := standIn(t)
	j := newJudge(t, withRetries(config(srv.URL), 2), judge.Options{})
	srv.Inject(1000, llmtest.Fault{Status: http.StatusBadGateway, RetryAfter: "0"})
	tally := j.NewTally(false)
	for i := range 20 {
		tally.Add(grade(j, fmt.Sprintf("q%d", i), fmt.Sprintf("answer %d", i), map[string]float64{"relevance": 0.5}))
	}
	if n := srv.Count(""); n != judge.BreakerFailures {
		t.Errorf("%d requests sent to a dead judge, want %d", n, judge.BreakerFailures)
	}
	s := tally.Summary()
	if s.Judged != 0 || s.NotJudged < 20-2 || !strings.HasPrefix(s.Breaker, fmt.Sprintf("%d requests in a row failed (the last: POST ", judge.BreakerFailures)) || !strings.Contains(s.Breaker, "502") {
		t.Errorf("summary %+v", s)
	}
	r := grade(j, "late", "late answer", map[string]float64{"relevance": 0.5})
	if !strings.HasPrefix(r.Judge.NotJudged, "judge endpoint down: ") || r.Passed() || !strings.HasPrefix(r.Checks[0].Detail, "not judged: judge endpoint down: ") {
		t.Errorf("after the breaker opened: %+v %+v", r.Judge, r.Checks)
	}

	// Requests in flight when it opens are abandoned, not waited for: a
	// judge that never answers costs about BreakerFailures timeouts over
	// the concurrency, not a timeout per case.
	slow := standIn(t)
	cfg := withRetries(config(slow.URL), 0)
	cfg.Timeout = assay.Duration(200 * time.Millisecond)
	cfg.Concurrency = 4
	j = newJudge(t, cfg, judge.Options{})
	slow.Inject(1000, llmtest.Fault{Delay: time.Hour})
	start := time.Now()
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			grade(j, fmt.Sprintf("q%d", i), fmt.Sprintf("answer %d", i), nil)
		}()
	}
	wg.Wait()
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("40 cases against a silent judge took %v", d)
	}
	if n := slow.Count(""); n > judge.BreakerFailures+cfg.Concurrency {
		t.Errorf("%d requests sent after the breaker opened", n)
	}
}

// TestTokenSumsSaturate: token counts an endpoint reports add up to at
// most math.MaxInt (they wrapped to negative), and a budget on tokens
// sees them.
func TestTokenSumsSaturate(t *testing.T) {
	huge := math.MaxInt/2 + 10
	srv := llmtest.New(t, llmtest.Handlers{Chat: func(req llmtest.ChatRequest) (string, llm.Usage) {
		c, _ := judgetest.Rule(req)
		return c, llm.Usage{PromptTokens: huge, CompletionTokens: huge, TotalTokens: math.MaxInt}
	}})
	cfg := config(srv.URL)
	cfg.Budget.MaxTokens = 1_000_000
	j := newJudge(t, cfg, judge.Options{Repeats: 2})
	tally := j.NewTally(false)
	for i := range 3 {
		tally.Add(grade(j, fmt.Sprintf("q%d", i), fmt.Sprintf("answer %d", i), nil))
	}
	s := tally.Summary()
	if s.PromptTokens != math.MaxInt || s.CompletionTokens != math.MaxInt {
		t.Errorf("token sums %d, %d: want math.MaxInt (saturated), never negative", s.PromptTokens, s.CompletionTokens)
	}
	if s.Judged != 1 || s.Budget != "max_tokens 1000000 reached" {
		t.Errorf("summary %+v: the saturated sum must stop the judging", s)
	}
}

// TestMaxTokensCountsTheSumOfParts: a total_tokens below prompt +
// completion does not let max_tokens be passed.
func TestMaxTokensCountsTheSumOfParts(t *testing.T) {
	srv := llmtest.New(t, llmtest.Handlers{Chat: func(req llmtest.ChatRequest) (string, llm.Usage) {
		c, _ := judgetest.Rule(req)
		return c, llm.Usage{PromptTokens: 1000, CompletionTokens: 1000, TotalTokens: 1}
	}})
	cfg := config(srv.URL)
	// A request's worst case is its prompt's bytes and the answer's 512
	// tokens, about 1500: the first fits in 3000, and once it has spent
	// 2000 (not 1) no second one does.
	cfg.Budget.MaxTokens = 3000
	j := newJudge(t, cfg, judge.Options{})
	tally := j.NewTally(false)
	for i := range 4 {
		tally.Add(grade(j, fmt.Sprintf("q%d", i), fmt.Sprintf("answer %d", i), nil))
	}
	if s := tally.Summary(); s.Judged != 1 || s.NotJudged != 3 || s.Budget != "max_tokens 3000 reached" || srv.Count("") != 1 {
		t.Errorf("summary %+v, %d requests", s, srv.Count(""))
	}
}

// TestIdenticalPromptsAreJudgedOnce: cases whose prompts are the same
// (same question and observation) are asked once in a run, whether they
// are judged at the same time or one after the other, and all get the
// answer the cache keeps (they were asked twice and the cache kept one of
// two different answers).
func TestIdenticalPromptsAreJudgedOnce(t *testing.T) {
	var n atomic.Int64
	srv := llmtest.New(t, llmtest.Handlers{Chat: func(req llmtest.ChatRequest) (string, llm.Usage) {
		time.Sleep(20 * time.Millisecond) // the others arrive while it is asked
		score := float64(n.Add(1)%10) / 10
		return fmt.Sprintf(`{"relevance": %g, "groundedness": %g, "completeness": %g, "reasoning": "answer %d"}`, score, score, score, n.Load()), llm.Usage{}
	}})
	dir := t.TempDir()
	c, _ := cache.Open(dir)
	cfg := config(srv.URL)
	cfg.Concurrency = 8
	j := newJudge(t, cfg, judge.Options{Cache: c})
	results := make([]*assay.CaseResult, 8)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = grade(j, fmt.Sprintf("dup%d", i), "the same answer", nil)
		}()
	}
	wg.Wait()
	later := grade(j, "dup-later", "the same answer", nil)
	if got := srv.Count(""); got != 1 {
		t.Errorf("%d requests for one prompt, want 1", got)
	}
	calls := 0
	for _, r := range append(results, later) {
		calls += r.Judge.Calls
		if !r.Judge.Judged() || fmt.Sprint(r.Metrics) != fmt.Sprint(results[0].Metrics) || r.Judge.Scores[0].Reason != results[0].Judge.Scores[0].Reason {
			t.Errorf("%s: %v %+v, want the one answer %v", r.ID, r.Metrics, r.Judge, results[0].Metrics)
		}
	}
	if calls != 1 {
		t.Errorf("the results count %d calls, want 1", calls)
	}
	// The cache holds that same answer: the next run reads it.
	again := grade(newJudge(t, cfg, judge.Options{Cache: c}), "dup-next-run", "the same answer", nil)
	if srv.Count("") != 1 || !again.Judge.Cached || fmt.Sprint(again.Metrics) != fmt.Sprint(results[0].Metrics) {
		t.Errorf("next run: %d requests, %v, want %v from the cache", srv.Count(""), again.Metrics, results[0].Metrics)
	}
}

// entries lists the judge's cache files under dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.Walk(filepath.Join(dir, judge.CacheKind), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestCorruptCacheEntriesAreWarnedAbout: an entry that is damaged on disk,
// or that holds no judge answer, is asked again, replaced, and named in
// the judge's warnings (it was a silent miss, or a judge error).
func TestCorruptCacheEntriesAreWarnedAbout(t *testing.T) {
	srv := standIn(t)
	dir := t.TempDir()
	c, _ := cache.Open(dir)
	first := newJudge(t, config(srv.URL), judge.Options{Cache: c})
	grade(first, "q1", "an answer [judge:0.7]", nil)
	grade(first, "q2", "another answer [judge:0.6]", nil)
	if w := first.Warnings(); len(w) != 0 {
		t.Fatalf("warnings of a clean run: %v", w)
	}
	files := entries(t, dir)
	if len(files) != 2 {
		t.Fatalf("%d cache entries, want 2", len(files))
	}
	// One is damaged on disk (its checksum fails); the other is a valid
	// cache entry whose value is no judge answer.
	b, _ := os.ReadFile(files[0])
	os.WriteFile(files[0], append(b[:len(b)-3], "xyz"...), 0o644)
	key := filepath.Base(files[1])
	if err := c.Put(judge.CacheKind, key, []byte(`{"content": "{\"relevance\": 9}", "model": "m"}`)); err != nil {
		t.Fatal(err)
	}
	second := newJudge(t, config(srv.URL), judge.Options{Cache: c})
	r1 := grade(second, "q1", "an answer [judge:0.7]", nil)
	r2 := grade(second, "q2", "another answer [judge:0.6]", nil)
	if srv.Count("") != 4 || !r1.Judge.Judged() || !r2.Judge.Judged() {
		t.Fatalf("%d requests; %+v %+v: want both asked again and judged", srv.Count(""), r1.Judge, r2.Judge)
	}
	w := strings.Join(second.Warnings(), "\n")
	if !strings.Contains(w, "is corrupt") || !strings.Contains(w, "holds an answer the rubric refuses") {
		t.Errorf("warnings:\n%s", w)
	}
	if w := second.Warnings(); len(w) != 0 {
		t.Errorf("warnings returned twice: %v", w)
	}
	third := newJudge(t, config(srv.URL), judge.Options{Cache: c})
	grade(third, "q1", "an answer [judge:0.7]", nil)
	grade(third, "q2", "another answer [judge:0.6]", nil)
	if srv.Count("") != 4 || len(third.Warnings()) != 0 {
		t.Errorf("the replaced entries were not read back cleanly (%d requests)", srv.Count(""))
	}
}

// TestLongAnswersAreCappedAndCachedAsRead: an answer body past
// MaxAnswerBody is refused while reading, and an accepted one is kept as
// read (scores and the cut reasoning), not whole (a 30 MiB answer was
// cached whole for 500 characters used).
func TestLongAnswersAreCappedAndCachedAsRead(t *testing.T) {
	reasoning := strings.Repeat("long reasoning ", 40_000) // 600 kB
	srv := llmtest.New(t, llmtest.Handlers{Chat: func(req llmtest.ChatRequest) (string, llm.Usage) {
		if strings.Contains(req.Prompt(), "[huge]") {
			reasoning = strings.Repeat("x", judge.MaxAnswerBody)
		}
		return `{"relevance": 0.5, "groundedness": 0.5, "completeness": 0.5, "reasoning": "` + reasoning + `"}`, llm.Usage{PromptTokens: 1, CompletionTokens: 1}
	}})
	dir := t.TempDir()
	c, _ := cache.Open(dir)
	j := newJudge(t, config(srv.URL), judge.Options{Cache: c})
	r := grade(j, "q1", "an answer", nil)
	if !r.Judge.Judged() {
		t.Fatalf("not judged: %+v", r.Judge)
	}
	files := entries(t, dir)
	if len(files) != 1 {
		t.Fatalf("%d entries", len(files))
	}
	if fi, _ := os.Stat(files[0]); fi.Size() > 4096 {
		t.Errorf("the cache entry is %d bytes: the answer was kept whole", fi.Size())
	}
	again := grade(newJudge(t, config(srv.URL), judge.Options{Cache: c}), "q1", "an answer", nil)
	if !again.Judge.Cached || again.Judge.Scores[0].Reason != r.Judge.Scores[0].Reason || fmt.Sprint(again.Metrics) != fmt.Sprint(r.Metrics) {
		t.Errorf("from the cache: %+v, want %+v", again.Judge, r.Judge)
	}
	big := grade(j, "q2", "[huge]", nil)
	if big.Judge.Error == nil || !strings.Contains(big.Judge.Error.Message, fmt.Sprintf("response body larger than %d bytes", judge.MaxAnswerBody)) {
		t.Errorf("a body past the cap: %+v", big.Judge)
	}
}
