package judge_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/cache"
	"github.com/assay-eval/assay/judge"
	"github.com/assay-eval/assay/judge/judgetest"
	"github.com/assay-eval/assay/llm"
	"github.com/assay-eval/assay/llm/llmtest"
	"github.com/assay-eval/assay/redact"
)

const testKey = "sk-judge-secret-4242"

func standIn(t *testing.T) *llmtest.Server {
	t.Helper()
	return llmtest.New(t, llmtest.Handlers{Chat: judgetest.Rule})
}

func config(url string) assay.JudgeConfig {
	retries := 0
	return assay.JudgeConfig{URL: url, Model: "grader-1", APIKey: "${JUDGE_KEY}", Retries: &retries, Timeout: assay.Duration(5 * time.Second)}
}

func getenv(k string) string {
	if k == "JUDGE_KEY" {
		return testKey
	}
	return ""
}

func newJudge(t *testing.T, cfg assay.JudgeConfig, o judge.Options) *judge.Judge {
	t.Helper()
	if o.Getenv == nil {
		o.Getenv = getenv
	}
	j, err := judge.New(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// answered is a graded result of a case whose target answered.
func answered(id, answer string, expect map[string]float64) (assay.Case, *assay.Observation, *assay.CaseResult) {
	c := assay.Case{ID: id, Query: "How are tokens hashed?", Expect: assay.Expect{Judge: expect}}
	obs := &assay.Observation{Case: id, Answer: answer,
		Retrieved: []assay.Hit{{ID: "security.md", Title: "Security", Text: "Tokens are hashed with SHA-256."}},
		Citations: []assay.Citation{{ID: "security.md", Quote: "hashed with SHA-256"}}}
	return c, obs, &assay.CaseResult{ID: id, Checks: []assay.Check{}}
}

func grade(j *judge.Judge, id, answer string, expect map[string]float64) *assay.CaseResult {
	c, obs, r := answered(id, answer, expect)
	j.Grade(context.Background(), c, obs, nil, r)
	return r
}

func TestGradeScoresByTheStandInRule(t *testing.T) {
	srv := standIn(t)
	j := newJudge(t, config(srv.URL), judge.Options{})
	r := grade(j, "q1", "SHA-256 [judge:0.4]", nil)
	if !r.Judge.Judged() {
		t.Fatalf("not judged: %+v", r.Judge)
	}
	for _, m := range []string{"judge.relevance", "judge.groundedness", "judge.completeness"} {
		if v, ok := r.Metrics[m]; !ok || v != 0.4 {
			t.Errorf("%s = %v (%v), want 0.4", m, v, ok)
		}
	}
	s := r.Judge.Scores[1]
	if s.Criterion != "groundedness" || s.Reason != "stand-in rule: [judge:0.4]" || s.Model != "grader-1" || s.Cached {
		t.Errorf("score = %+v", s)
	}
	if r.Pass != nil {
		t.Errorf("a case stating no judge bound got pass %v", *r.Pass)
	}
	if n := srv.Count(llmtest.ChatPath); n != 1 || r.Judge.Calls != 1 {
		t.Errorf("%d requests, %d calls recorded, want 1", n, r.Judge.Calls)
	}
	req := srv.Requests()[0]
	if req.Authorization != "Bearer "+testKey {
		t.Errorf("authorization %q: the key was not sent", req.Authorization)
	}
	for _, want := range []string{`"json_schema"`, `"temperature":0`, `Question:\n\u003c\u003c\u003cDATA-`, `\nHow are tokens hashed?\nDATA-`, `[1] security.md (Security)`, `hashed with SHA-256`} {
		if !strings.Contains(string(req.Body), want) {
			t.Errorf("request body lacks %s:\n%s", want, req.Body)
		}
	}
}

// TestCacheSecondRunSendsNoRequest: the same case judged again by a new
// judge over the same cache is answered from it, with the same numbers.
func TestCacheSecondRunSendsNoRequest(t *testing.T) {
	srv := standIn(t)
	dir := t.TempDir()
	c, err := cache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	first := grade(newJudge(t, config(srv.URL), judge.Options{Cache: c}), "q1", "an answer [judge:0.7]", nil)
	if srv.Count("") != 1 || first.Judge.Cached {
		t.Fatalf("first run: %d requests, cached %v", srv.Count(""), first.Judge.Cached)
	}
	second := grade(newJudge(t, config(srv.URL), judge.Options{Cache: c}), "q1", "an answer [judge:0.7]", nil)
	if srv.Count("") != 1 {
		t.Errorf("second run sent %d more requests, want 0", srv.Count("")-1)
	}
	if !second.Judge.Cached || second.Judge.Calls != 0 || !second.Judge.Scores[0].Cached {
		t.Errorf("second run: %+v", second.Judge)
	}
	if fmt.Sprint(first.Metrics) != fmt.Sprint(second.Metrics) {
		t.Errorf("metrics differ: %v then %v", first.Metrics, second.Metrics)
	}
	// Another trial is another key: asked again.
	cs, obs, r := answered("q1", "an answer [judge:0.7]", nil)
	r.Trial = 1
	newJudge(t, config(srv.URL), judge.Options{Cache: c}).Grade(context.Background(), cs, obs, nil, r)
	if srv.Count("") != 2 {
		t.Errorf("trial 1 was answered from trial 0's entry")
	}
}

func TestBudgetMaxCalls(t *testing.T) {
	srv := standIn(t)
	cfg := config(srv.URL)
	cfg.Budget.MaxCalls = 3
	j := newJudge(t, cfg, judge.Options{})
	tally := j.NewTally(false)
	for i := range 10 {
		r := grade(j, fmt.Sprintf("q%d", i), fmt.Sprintf("answer %d", i), map[string]float64{"groundedness": 0.5})
		tally.Add(r)
		if i >= 3 {
			if r.Judge.NotJudged != "budget: max_calls 3 reached" || r.Passed() {
				t.Errorf("case %d: %+v pass %v", i, r.Judge, r.Passed())
			}
			if d := r.Checks[len(r.Checks)-1].Detail; d != "not judged: budget: max_calls 3 reached" {
				t.Errorf("case %d: check detail %q", i, d)
			}
		}
	}
	s := tally.Summary()
	if s.Judged != 3 || s.NotJudged != 7 || s.Calls != 3 || s.Budget != "max_calls 3 reached" || srv.Count("") != 3 {
		t.Errorf("summary %+v, %d requests", s, srv.Count(""))
	}
}

func TestBudgetMaxCostWithPrices(t *testing.T) {
	srv := standIn(t)
	cfg := config(srv.URL)
	cfg.Budget = assay.JudgeBudget{MaxCost: 0.004, PromptPrice: 0.000001, CompletionPrice: 0.000002}
	j := newJudge(t, cfg, judge.Options{})
	tally := j.NewTally(false)
	for i := range 20 {
		tally.Add(grade(j, fmt.Sprintf("q%d", i), fmt.Sprintf("answer %d", i), nil))
	}
	s := tally.Summary()
	// A request's worst case (about 1500 prompt bytes and 512 answer
	// tokens) costs about 0.0026; each answer costs about 0.0003: a few
	// are judged, then the next worst case would pass max_cost.
	if s.Judged < 1 || s.NotJudged < 1 || s.Budget != "max_cost 0.004 reached" || s.Cost == nil || *s.Cost > 0.004 || s.PromptTokens == 0 {
		t.Errorf("summary %+v cost %v", s, *s.Cost)
	}
	// The request carried the answer limit the worst case assumed.
	if !strings.Contains(string(srv.Requests()[0].Body), `"max_tokens":512`) {
		t.Errorf("request without max_tokens 512: %s", srv.Requests()[0].Body)
	}
}

// TestMaxCostHoldsAtAnyConcurrency: twenty runs of 60 cases graded by 8
// goroutines at once, each case asked 3 times, with the judge's own
// concurrency 8, never spend more than max_cost (what the endpoint
// reported, priced), and a run whose budget refused a case says so.
func TestMaxCostHoldsAtAnyConcurrency(t *testing.T) {
	srv := standIn(t)
	cfg := config(srv.URL)
	cfg.Concurrency = 8
	cfg.Budget = assay.JudgeBudget{MaxCost: 0.05, PromptPrice: 0.000002, CompletionPrice: 0.000008}
	for run := range 20 {
		j := newJudge(t, cfg, judge.Options{Repeats: 3})
		results := make([]*assay.CaseResult, 60)
		work := make(chan int)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range work {
					results[i] = grade(j, fmt.Sprintf("q%d", i), fmt.Sprintf("answer %d of run %d", i, run), nil)
				}
			}()
		}
		for i := range results {
			work <- i
		}
		close(work)
		wg.Wait()
		tally := j.NewTally(false)
		spent := 0.0
		for _, r := range results {
			tally.Add(r)
			if r.Judge.Cost != nil {
				spent += *r.Judge.Cost
			}
		}
		s := tally.Summary()
		if spent > cfg.Budget.MaxCost*(1+1e-9) || s.Cost == nil || *s.Cost > cfg.Budget.MaxCost*(1+1e-9) {
			t.Fatalf("run %d spent %v (summary %v), over max_cost %v", run, spent, *s.Cost, cfg.Budget.MaxCost)
		}
		if s.Judged == 0 || s.NotJudged == 0 || s.Budget != "max_cost 0.05 reached" {
			t.Fatalf("run %d: judged %d, not judged %d, budget %q: want some of each, stopped by max_cost", run, s.Judged, s.NotJudged, s.Budget)
		}
		if s.Calls != 3*s.Judged {
			t.Fatalf("run %d: %d calls for %d judged cases of 3 repeats", run, s.Calls, s.Judged)
		}
		if run == 0 {
			t.Logf("run 0: judged %d, not judged %d, spent %.4f of %g", s.Judged, s.NotJudged, spent, cfg.Budget.MaxCost)
		}
	}
}

func TestExpectBoundFailsWithScoreAndReason(t *testing.T) {
	srv := standIn(t)
	j := newJudge(t, config(srv.URL), judge.Options{})
	r := grade(j, "q1", "weak [judge:0.4]", map[string]float64{"groundedness": 0.8})
	if r.Pass == nil || *r.Pass {
		t.Fatalf("pass = %v, want false", r.Pass)
	}
	ch := r.Checks[0]
	if ch.Kind != "judge.groundedness" || ch.Pass || ch.Detail != "score 0.4 < 0.8: stand-in rule: [judge:0.4]" {
		t.Errorf("check = %+v", ch)
	}
	ok := grade(j, "q2", "strong [judge:0.9]", map[string]float64{"groundedness": 0.8})
	if !ok.Passed() || !ok.Checks[0].Pass {
		t.Errorf("0.9 against 0.8: %+v", ok.Checks)
	}
	// Defaults apply to criteria the case does not state; the case wins.
	c, obs, r2 := answered("q3", "[judge:0.6]", map[string]float64{"relevance": 0.5})
	j.Grade(context.Background(), c, obs, map[string]float64{"relevance": 0.9, "completeness": 0.7}, r2)
	if len(r2.Checks) != 2 || !r2.Checks[1].Pass || r2.Checks[0].Pass || r2.Passed() {
		t.Errorf("defaults: %+v", r2.Checks)
	}
	// A failed deterministic check stays failed.
	c, obs, r3 := answered("q4", "[judge:0.9]", map[string]float64{"relevance": 0.5})
	f := false
	r3.Pass = &f
	j.Grade(context.Background(), c, obs, nil, r3)
	if r3.Passed() {
		t.Error("a judge pass turned a failed case into a pass")
	}
	// A criterion the rubric lacks fails its check, saying so.
	u := grade(j, "q5", "x", map[string]float64{"faithfulness": 0.5})
	if u.Passed() || !strings.Contains(u.Checks[0].Detail, `no criterion "faithfulness" in the judge's rubric (criteria: relevance, groundedness, completeness)`) {
		t.Errorf("unknown criterion: %+v", u.Checks)
	}
}

func TestTargetFailedIsNotJudged(t *testing.T) {
	srv := standIn(t)
	j := newJudge(t, config(srv.URL), judge.Options{})
	c, _, r := answered("q1", "", map[string]float64{"groundedness": 0.5})
	r.Error = assay.Errorf(assay.ErrTimeout, "no answer after 1s")
	j.Grade(context.Background(), c, nil, nil, r)
	if srv.Count("") != 0 || r.Judge.NotJudged == "" || r.Passed() || r.Checks[0].Detail != "timeout: no answer after 1s" {
		t.Errorf("%d requests, judge %+v, checks %+v", srv.Count(""), r.Judge, r.Checks)
	}
}

func TestStrictParsingIsAJudgeError(t *testing.T) {
	srv := standIn(t)
	dir := t.TempDir()
	c, _ := cache.Open(dir)
	j := newJudge(t, config(srv.URL), judge.Options{Cache: c})
	for _, tc := range []struct{ answer, want string }{
		{"[judge:bad]", `judge answer: answer is not a JSON object: "I would rate this answer highly."`},
		{"[judge:range]", "judge answer: relevance: 7 is out of the scale 0 to 1"},
	} {
		r := grade(j, "q", tc.answer, map[string]float64{"relevance": 0.5})
		if r.Judge.Error == nil || r.Judge.Error.Class != assay.ErrJudge || r.Judge.Error.Message != tc.want {
			t.Errorf("%s: error %+v, want %q", tc.answer, r.Judge.Error, tc.want)
		}
		if r.Passed() || len(r.Metrics) != 0 || !strings.HasPrefix(r.Checks[0].Detail, "not judged: judge: ") {
			t.Errorf("%s: pass %v metrics %v checks %+v", tc.answer, r.Passed(), r.Metrics, r.Checks)
		}
	}
	// An answer that failed is not cached: it is asked again.
	grade(j, "q", "[judge:bad]", nil)
	if srv.Count("") != 3 {
		t.Errorf("%d requests, want 3 (a bad answer is not cached)", srv.Count(""))
	}
}

func TestEndpointFaults(t *testing.T) {
	srv := standIn(t)
	cfg := config(srv.URL)
	retries := 1
	cfg.Retries = &retries
	cfg.Timeout = assay.Duration(300 * time.Millisecond)
	j := newJudge(t, cfg, judge.Options{})

	srv.Inject(1, llmtest.Fault{Status: http.StatusTooManyRequests, RetryAfter: "0"})
	if r := grade(j, "q", "[judge:0.5]", nil); !r.Judge.Judged() || r.Metrics["judge.relevance"] != 0.5 {
		t.Errorf("after one 429 and a retry: %+v", r.Judge)
	}
	srv.Inject(2, llmtest.Fault{Status: http.StatusInternalServerError})
	r := grade(j, "q", "[judge:0.5] 500s", nil)
	if r.Judge.Error == nil || r.Judge.Error.Class != assay.ErrJudge || !strings.Contains(r.Judge.Error.Message, "500") {
		t.Errorf("two 500s: %+v", r.Judge.Error)
	}
	srv.Inject(1, llmtest.Fault{Body: llmtest.Malformed})
	if r := grade(j, "q", "[judge:0.5] malformed", nil); r.Judge.Error == nil || !strings.HasPrefix(r.Judge.Error.Message, "judge endpoint: ") {
		t.Errorf("malformed body: %+v", r.Judge.Error)
	}
	srv.Inject(2, llmtest.Fault{Delay: 2 * time.Second})
	start := time.Now()
	if r := grade(j, "q", "[judge:0.5] slow", nil); r.Judge.Error == nil {
		t.Errorf("slow endpoint: %+v", r.Judge)
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("slow endpoint took %v: the per-attempt timeout was not kept", d)
	}
}

// TestRepeatsSpreadAgreementUnstable: two repeats with different seeds
// that disagree (0.6, 0.9) straddle a bound of 0.8.
func TestRepeatsSpreadAgreementUnstable(t *testing.T) {
	srv := standIn(t)
	j := newJudge(t, config(srv.URL), judge.Options{Repeats: 2})
	tally := j.NewTally(false)
	r := grade(j, "flaky", "[judge:flaky]", map[string]float64{"groundedness": 0.8})
	tally.Add(r)
	tally.Add(grade(j, "steady", "[judge:0.5]", nil))
	g := r.Judge.Scores[1]
	if len(g.Repeats) != 2 || g.Repeats[0] != 0.6 || g.Repeats[1] != 0.9 || g.Spread == nil || fmt.Sprintf("%.2f", *g.Spread) != "0.30" || fmt.Sprintf("%.2f", g.Score) != "0.75" {
		t.Errorf("score = %+v", g)
	}
	if fmt.Sprint(r.Judge.Unstable) != "[groundedness]" {
		t.Errorf("unstable = %v", r.Judge.Unstable)
	}
	seeds := map[string]bool{}
	for _, q := range srv.Requests()[:2] {
		i := strings.Index(string(q.Body), `"seed":`)
		if i < 0 {
			t.Fatalf("no seed sent: %s", q.Body)
		}
		seeds[string(q.Body[i:i+9])] = true
	}
	if len(seeds) != 2 {
		t.Errorf("the repeats were sent the same seed: %v", seeds)
	}
	s := tally.Summary()
	if s.Repeats != 2 || fmt.Sprintf("%.2f", s.Agreement["groundedness"]) != "0.85" || fmt.Sprint(s.Unstable) != "[flaky]" || s.UnstableCases != 1 {
		t.Errorf("summary %+v", s)
	}
}

// TestKeyNeverStored: the key is sent, registered with the run's
// redactor, and found in no cache file, cache key or result.
func TestKeyNeverStored(t *testing.T) {
	srv := llmtest.New(t, llmtest.Handlers{Chat: judgetest.Rule})
	srv.Key = testKey
	dir := t.TempDir()
	c, _ := cache.Open(dir)
	sec := redact.New()
	j := newJudge(t, config(srv.URL), judge.Options{Cache: c, Secrets: sec})
	c.Redact(sec.Secrets()...)
	// An answer that echoes the key: the reasoning carries it back.
	srv.Set(llmtest.Handlers{Chat: func(req llmtest.ChatRequest) (string, llm.Usage) {
		return `{"relevance": 1, "groundedness": 1, "completeness": 1, "reasoning": "key ` + testKey + `"}`, llm.Usage{}
	}})
	r := grade(j, "q", "answer", nil)
	if !r.Judge.Judged() {
		t.Fatalf("not judged: %+v", r.Judge.Error)
	}
	if got := redact.Value(sec, *r); strings.Contains(fmt.Sprintf("%+v", got.Judge.Scores), testKey) {
		t.Error("the run's redactor does not take the key out")
	}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			b, _ := os.ReadFile(p)
			if strings.Contains(string(b), testKey) || strings.Contains(p, testKey) {
				t.Errorf("%s holds the key", p)
			}
		}
		return nil
	})
}

func TestNewErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  assay.JudgeConfig
		want string
	}{
		{assay.JudgeConfig{Model: "m"}, "judge: no url"},
		{assay.JudgeConfig{URL: "http://x/v1"}, "judge: no model"},
		{assay.JudgeConfig{URL: "http://x/v1", Model: "m", APIKey: "${UNSET_VAR}", Source: "s.yaml:4"}, "s.yaml:4: judge: api_key: environment variable UNSET_VAR is not set"},
		{assay.JudgeConfig{URL: "http://x/v1", Model: "m", APIKey: "sk-1"}, "judge: api_key: write a reference to the environment"},
	} {
		_, err := judge.New(tc.cfg, judge.Options{})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

// TestConcurrentGradingKeepsMaxCalls: cases judged from many goroutines
// at once never pass max_calls, and the tally adds up.
func TestConcurrentGradingKeepsMaxCalls(t *testing.T) {
	srv := standIn(t)
	cfg := config(srv.URL)
	cfg.Budget.MaxCalls = 5
	cfg.Concurrency = 2
	j := newJudge(t, cfg, judge.Options{})
	results := make([]*assay.CaseResult, 20)
	done := make(chan int)
	for i := range results {
		go func() {
			results[i] = grade(j, fmt.Sprintf("q%d", i), fmt.Sprintf("answer %d", i), nil)
			done <- i
		}()
	}
	for range results {
		<-done
	}
	tally := j.NewTally(false)
	for _, r := range results {
		tally.Add(r)
	}
	s := tally.Summary()
	if s.Judged != 5 || s.NotJudged != 15 || srv.Count("") != 5 {
		t.Errorf("judged %d, not judged %d, %d requests; want 5, 15, 5", s.Judged, s.NotJudged, srv.Count(""))
	}
}

// TestAReasoningOrAnswerCutInsideASecretLeavesNoneOfIt: a judge that
// echoes its key, or a secret of the run that the system's answer carried
// into the prompt, in its reasoning (cut at 500 characters) or in an
// answer that is not JSON (quoted up to 80), at every offset of the cut,
// leaves no 8-byte part of it in the result. (The parser cut first; the
// run redacted the cut text, which no longer held the whole secret.)
func TestAReasoningOrAnswerCutInsideASecretLeavesNoneOfIt(t *testing.T) {
	const runSecret = "kb-Token/9fQ2xLmZ7wR4"
	for _, sec := range []string{testKey, runSecret} {
		for _, form := range []struct {
			cut  int
			body func(pad string) string
		}{
			{500, func(pad string) string {
				return `{"relevance": 1, "groundedness": 1, "completeness": 1, "reasoning": "` + pad + sec + ` tail"}`
			}},
			{80, func(pad string) string { return "not json " + pad + sec + " tail" }},
		} {
			for n := form.cut - len(sec) - 12; n <= form.cut; n++ {
				body := form.body(strings.Repeat("x", n))
				srv := llmtest.New(t, llmtest.Handlers{Chat: func(llmtest.ChatRequest) (string, llm.Usage) { return body, llm.Usage{} }})
				red := redact.New(redact.Secret{Name: "KB_TOKEN", Value: runSecret})
				j := newJudge(t, config(srv.URL), judge.Options{Secrets: red})
				r := grade(j, "q1", "the answer", map[string]float64{"relevance": 2})
				var texts []string
				for _, s := range r.Judge.Scores {
					texts = append(texts, s.Reason)
				}
				if r.Judge.Error != nil {
					texts = append(texts, r.Judge.Error.Message)
				}
				for _, ch := range r.Checks {
					texts = append(texts, ch.Detail)
				}
				got := strings.Join(texts, "\n")
				if got == "" {
					t.Fatalf("cut %d pad %d: nothing to check", form.cut, n)
				}
				for i := 0; i+8 <= len(sec); i++ {
					if strings.Contains(got, sec[i:i+8]) {
						t.Fatalf("cut %d pad %d: %q of the secret in %q", form.cut, n, sec[i:i+8], got)
					}
				}
			}
		}
	}
}

// TestACredentialInTheJudgeURLIsRefused: user info in the judge's url
// (never sent: the key goes in api_key) and a credential query parameter
// were accepted and kept in the definition; both are refused when the
// judge is made, without showing the value, and --allow-literal-secrets
// lets the query parameter through as a secret.
func TestACredentialInTheJudgeURLIsRefused(t *testing.T) {
	for name, u := range map[string]string{
		"user info":   "http://bob:pw-literal-1@127.0.0.1:9/v1",
		"query param": "http://127.0.0.1:9/v1?api_key=key-literal-1",
	} {
		t.Run(name, func(t *testing.T) {
			cfg := config(u)
			_, err := judge.New(cfg, judge.Options{Getenv: getenv})
			if err == nil || strings.Contains(err.Error(), "literal-1") {
				t.Fatalf("want a refusal without the value, got %v", err)
			}
			red := redact.New()
			_, err = judge.New(cfg, judge.Options{Getenv: getenv, Secrets: red, AllowLiteralSecrets: true})
			if name == "user info" {
				if err == nil {
					t.Fatal("user info allowed")
				}
				return
			}
			if err != nil {
				t.Fatalf("allowed: %v", err)
			}
			if got := red.String(u); strings.Contains(got, "literal-1") {
				t.Errorf("an allowed literal is not a secret: %s", got)
			}
		})
	}
}
