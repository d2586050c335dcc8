package grade

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

func mustOptions(t *testing.T, s *assay.Suite) Options {
	t.Helper()
	o, err := NewOptions(s)
	if err != nil {
		t.Fatalf("NewOptions: %v", err)
	}
	return o
}

func TestNewOptionsDefaults(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, &assay.Suite{})
	if got, want := o.MetricNames(), []string{"ndcg@10", "recall@5", "recall@10", "mrr", "map", "hit@5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("metrics = %v, want %v", got, want)
	}
	if o.Gain != assay.GainLinear || o.K != assay.DefaultK || o.CaseSensitive || o.RefusalMarkers != nil || o.Schemas == nil {
		t.Errorf("defaults = %+v", o)
	}
}

func TestNewOptionsCopiesSuite(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, &assay.Suite{
		Metrics:        []string{"nDCG@5", "RR", "ndcg@5", "P@3"},
		Gain:           assay.GainExponential,
		RefusalMarkers: []string{"unknown"},
		Defaults:       assay.Defaults{K: 4, CaseSensitive: true},
	})
	if got, want := o.MetricNames(), []string{"ndcg@5", "mrr", "precision@3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("metrics = %v, want %v (canonical, duplicate dropped)", got, want)
	}
	if o.Gain != assay.GainExponential || o.K != 4 || !o.CaseSensitive || !reflect.DeepEqual(o.RefusalMarkers, []string{"unknown"}) {
		t.Errorf("options = %+v", o)
	}
}

func TestNewOptionsErrors(t *testing.T) {
	t.Parallel()
	schemaCase := func(path string) assay.Case {
		return assay.Case{ID: "q7", Source: "kb.yaml:12", Expect: assay.Expect{JSONSchema: path}}
	}
	tests := []struct {
		name  string
		suite assay.Suite
		want  string
	}{
		{"unknown metric", assay.Suite{Metrics: []string{"ndcg@10", "bleu"}}, `unknown metric "bleu"`},
		{"bad gain", assay.Suite{Gain: "quadratic"}, `unknown gain "quadratic" (want linear or exponential)`},
		{"bad regexp", assay.Suite{Cases: []assay.Case{{ID: "q2", Source: "kb.yaml:4", Expect: assay.Expect{AnswerMatches: "a[b"}}}},
			"kb.yaml:4: case q2: answer_matches: missing closing ]: `[b`"},
		{"missing schema", assay.Suite{Dir: "testdata/schemas", Cases: []assay.Case{schemaCase("nope.json")}},
			"kb.yaml:12: case q7: json_schema nope.json: testdata/schemas/nope.json: no such file or directory"},
		{"schema breaks its metaschema", assay.Suite{Dir: "testdata/schemas", Cases: []assay.Case{schemaCase("broken.json")}},
			"kb.yaml:12: case q7: json_schema broken.json: not a valid schema: at '/type'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewOptions(&tt.suite)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err = %v, want prefix %q", err, tt.want)
			}
		})
	}
}

func TestNewOptionsResolvesSchemas(t *testing.T) {
	t.Parallel()
	s := &assay.Suite{Dir: "testdata/suite", Cases: []assay.Case{
		{ID: "raw", Expect: assay.Expect{JSONSchema: "schemas/plan.json"}},
		{ID: "resolved", Expect: assay.Expect{JSONSchema: "x.json", JSONSchemaPath: "testdata/schemas/verdict07.json"}},
	}}
	o := mustOptions(t, s)
	if o.Schemas.Len() != 2 {
		t.Fatalf("schemas = %d, want 2", o.Schemas.Len())
	}
	r := Case(s.Cases[0], assay.Observation{Answer: `{"steps": []}`}, o)
	if !r.Passed() {
		t.Errorf("raw path: %+v", r.Checks)
	}
	r = Case(s.Cases[1], assay.Observation{Answer: `{"verdict": "no"}`}, o)
	if !r.Passed() {
		t.Errorf("resolved path: %+v", r.Checks)
	}
}

// kitchenSink states every expectation kind.
func kitchenSink() assay.Case {
	return assay.Case{
		ID: "q001", K: 2, Tags: map[string]string{"lang": "en"},
		Expect: assay.Expect{
			AnswerIncludes:    []string{"sha-256"},
			AnswerIncludesAny: []string{"salt", "pepper"},
			AnswerExcludes:    []string{"md5"},
			AnswerMatches:     `(?i)sha-?256`,
			Retrieves:         []string{"security.md"},
			Cites:             []string{"security.md"},
			CitesAny:          []string{"adr-12.md", "security.md"},
			Cited:             []string{"security.md"},
			CitedAny:          []string{"adr-12.md", "security.md"},
			CitesOnlySurfaced: true,
			NoCitations:       true,
			Refusal:           ptr(false),
			CallsTool:         []string{"search"},
			CallsAnyTool:      true,
			NeverCalls:        []string{"delete_doc"},
			Tools:             &assay.ToolTrajectory{Calls: []assay.ExpectedCall{{Name: "search"}}},
			StopsAtApproval:   true,
			Outcome:           "completed",
			JSONSchema:        "inline.json",
			MaxLatencyMs:      ptr(100.0),
		},
	}
}

func TestCaseCheckOrderAndDetails(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, &assay.Suite{})
	if err := o.Schemas.Add("inline.json", []byte(`{"type": "string"}`)); err != nil {
		t.Fatal(err)
	}
	obs := assay.Observation{
		Case: "q001", Trial: 2,
		Retrieved: []assay.Hit{{ID: "intro.md"}, {ID: "intro.md"}, {ID: "security.md"}, {ID: "adr-12.md"}},
		Answer:    `"Tokens are hashed with SHA-256 and a salt"`,
		Citations: []assay.Citation{{ID: "security.md"}},
		Tools:     []assay.ToolCall{{Name: "search"}},
		Outcome:   "completed", ApprovalPending: true,
		LatencyMs: ptr(250.0),
	}
	r := Case(kitchenSink(), obs, o)
	want := []assay.Check{
		{Kind: "answer_includes", Pass: true},
		{Kind: "answer_includes_any", Pass: true},
		{Kind: "answer_excludes", Pass: true},
		{Kind: "answer_matches", Pass: true},
		{Kind: "retrieves", Pass: true}, // rank 2 after de-duplication, k = 2
		{Kind: "cites", Pass: true},
		{Kind: "cites_any", Pass: true},
		{Kind: "cited", Pass: true},
		{Kind: "cited_any", Pass: true},
		{Kind: "cites_only_surfaced", Pass: true},
		{Kind: "no_citations", Pass: false, Detail: "cited security.md"},
		{Kind: "refusal", Pass: true},
		{Kind: "calls_tool", Pass: true},
		{Kind: "calls_any_tool", Pass: true},
		{Kind: "never_calls", Pass: true},
		{Kind: "tools", Pass: true},
		{Kind: "stops_at_approval", Pass: true},
		{Kind: "outcome", Pass: true},
		{Kind: "json_schema", Pass: true},
		{Kind: "max_latency_ms", Pass: false, Detail: "latency 250 ms > 100 ms"},
	}
	if !reflect.DeepEqual(r.Checks, want) {
		t.Errorf("checks:\n got %+v\nwant %+v", r.Checks, want)
	}
	var kinds []string
	for _, c := range r.Checks {
		kinds = append(kinds, c.Kind)
	}
	if !reflect.DeepEqual(kinds, Kinds) {
		t.Errorf("order %v differs from Kinds %v", kinds, Kinds)
	}
	if r.Pass == nil || *r.Pass {
		t.Errorf("pass = %v, want false", r.Pass)
	}
	if r.ID != "q001" || r.Trial != 2 || r.Retrieved != 3 || r.Citations != 1 || r.Refused || *r.LatencyMs != 250 || r.Tags["lang"] != "en" {
		t.Errorf("facts = %+v", r)
	}
	if r.Metrics != nil {
		t.Errorf("unjudged case has metrics %v", r.Metrics)
	}
	if r.Observation == nil || !reflect.DeepEqual(*r.Observation, obs) {
		t.Errorf("observation not copied: %+v", r.Observation)
	}
	if r.Observation == &obs {
		t.Error("observation is not a copy")
	}
}

func TestCaseErroredObservation(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, &assay.Suite{})
	c := assay.Case{ID: "q3", Judgments: map[string]int{"a": 1},
		Expect: assay.Expect{AnswerIncludes: []string{"x"}, NeverCalls: []string{"rm"}, Refusal: ptr(false)}}
	e := assay.Errorf(assay.ErrTimeout, "no answer after 30s")
	// a failing target may still have reported a partial ranking: metrics ignore it
	obs := assay.Observation{Case: "q3", Retrieved: []assay.Hit{{ID: "a"}}, Error: e, LatencyMs: ptr(30000.0)}
	r := Case(c, obs, o)
	for _, ch := range r.Checks {
		if ch.Pass || ch.Detail != "timeout: no answer after 30s" {
			t.Errorf("check %+v, want failed with the error", ch)
		}
	}
	if len(r.Checks) != 3 {
		t.Errorf("got %d checks, want 3", len(r.Checks))
	}
	if r.Pass == nil || *r.Pass || r.Error != e || r.Answered() {
		t.Errorf("result = %+v", r)
	}
	for name, v := range r.Metrics {
		if v != 0 {
			t.Errorf("%s = %v, want 0 for an errored judged case", name, v)
		}
	}
	if len(r.Metrics) != 6 {
		t.Errorf("metrics = %v, want the 6 defaults", r.Metrics)
	}
}

func TestCaseErrorFailsEvenWithoutFailingChecks(t *testing.T) {
	t.Parallel()
	// max_latency_ms alone would pass on the numbers, but the observation errored
	c := assay.Case{ID: "q", Expect: assay.Expect{MaxLatencyMs: ptr(10.0)}}
	r := Case(c, assay.Observation{LatencyMs: ptr(1.0), Error: assay.Errorf(assay.ErrMissing, "no line for q")}, Options{})
	if r.Passed() || r.Checks[0].Detail != "missing: no line for q" {
		t.Errorf("result = %+v", r)
	}
}

func TestCaseUngraded(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, &assay.Suite{Metrics: []string{"hit@1", "mrr", "recall@2"}})
	c := assay.Case{ID: "j1", Judgments: map[string]int{"b": 1, "c": 2, "z": 0}}
	r := Case(c, assay.Observation{Retrieved: []assay.Hit{{ID: "a"}, {ID: "b"}, {ID: "c"}}}, o)
	if r.Pass != nil || r.Graded() {
		t.Errorf("pass = %v, want nil", *r.Pass)
	}
	if r.Checks == nil || len(r.Checks) != 0 {
		t.Errorf("checks = %#v, want empty list", r.Checks)
	}
	b, _ := json.Marshal(r)
	if !strings.Contains(string(b), `"pass":null`) || !strings.Contains(string(b), `"checks":[]`) {
		t.Errorf("json = %s", b)
	}
	// hand-computed: first relevant at rank 2; 1 of 2 relevant in top 2
	want := map[string]float64{"hit@1": 0, "mrr": 0.5, "recall@2": 0.5}
	if !reflect.DeepEqual(r.Metrics, want) {
		t.Errorf("metrics = %v, want %v", r.Metrics, want)
	}
}

func TestCaseGainAndDuplicates(t *testing.T) {
	t.Parallel()
	c := assay.Case{ID: "g", Judgments: map[string]int{"a": 1, "b": 3}}
	// ranking a, a, b is a, b after de-duplication
	obs := assay.Observation{Retrieved: []assay.Hit{{ID: "a"}, {ID: "a"}, {ID: "b"}}}
	lin := Case(c, obs, mustOptions(t, &assay.Suite{Metrics: []string{"ndcg@2"}})).Metrics["ndcg@2"]
	exp := Case(c, obs, mustOptions(t, &assay.Suite{Metrics: []string{"ndcg@2"}, Gain: assay.GainExponential})).Metrics["ndcg@2"]
	// linear: (1 + 3/log2 3) / (3 + 1/log2 3); exponential: (1 + 7/log2 3) / (7 + 1/log2 3)
	l3 := math.Log2(3)
	if wantLin := (1 + 3/l3) / (3 + 1/l3); math.Abs(lin-wantLin) > 1e-12 {
		t.Errorf("linear ndcg@2 = %v, want %v", lin, wantLin)
	}
	if wantExp := (1 + 7/l3) / (7 + 1/l3); math.Abs(exp-wantExp) > 1e-12 {
		t.Errorf("exponential ndcg@2 = %v, want %v", exp, wantExp)
	}
}

func TestCaseIDlessHitsJudgedByPath(t *testing.T) {
	t.Parallel()
	// a trace whose hits carry only paths: ranks 1..3 are x.md, a.md, b.md
	c := assay.Case{ID: "p", Judgments: map[string]int{"a.md": 1, "b.md": 1}}
	obs := assay.Observation{Retrieved: []assay.Hit{{Path: "x.md"}, {Path: "a.md"}, {Path: "b.md"}}}
	r := Case(c, obs, mustOptions(t, &assay.Suite{Metrics: []string{"mrr", "P@3", "map"}}))
	want := map[string]float64{"mrr": 0.5, "precision@3": 2.0 / 3, "map": (1.0/2 + 2.0/3) / 2}
	if len(r.Metrics) != len(want) || r.Retrieved != 3 {
		t.Fatalf("metrics = %v, retrieved = %d; want %v, 3", r.Metrics, r.Retrieved, want)
	}
	for name, w := range want {
		if got := r.Metrics[name]; math.Abs(got-w) > 1e-12 {
			t.Errorf("%s = %v, want %v", name, got, w)
		}
	}
}

func TestCaseSensitivityAndK(t *testing.T) {
	t.Parallel()
	obs := assay.Observation{Answer: "Uses SHA-256", Retrieved: []assay.Hit{{ID: "a"}, {ID: "b"}, {ID: "c"}}}
	tests := []struct {
		name   string
		suite  assay.Suite
		c      assay.Case
		pass   bool
		detail string
	}{
		{"suite insensitive", assay.Suite{}, assay.Case{Expect: assay.Expect{AnswerIncludes: []string{"sha-256"}}}, true, ""},
		{"suite sensitive", assay.Suite{Defaults: assay.Defaults{CaseSensitive: true}},
			assay.Case{Expect: assay.Expect{AnswerIncludes: []string{"sha-256"}}}, false, `missing "sha-256"`},
		{"case overrides suite", assay.Suite{Defaults: assay.Defaults{CaseSensitive: true}},
			assay.Case{Expect: assay.Expect{AnswerIncludes: []string{"sha-256"}, CaseSensitive: ptr(false)}}, true, ""},
		{"suite k", assay.Suite{Defaults: assay.Defaults{K: 2}},
			assay.Case{Expect: assay.Expect{Retrieves: []string{"c"}}}, false, "missing c from top 2 (rank 3)"},
		{"case k overrides suite", assay.Suite{Defaults: assay.Defaults{K: 2}},
			assay.Case{K: 3, Expect: assay.Expect{Retrieves: []string{"c"}}}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Case(tt.c, obs, mustOptions(t, &tt.suite))
			if len(r.Checks) != 1 || r.Checks[0].Pass != tt.pass || r.Checks[0].Detail != tt.detail {
				t.Errorf("checks = %+v, want pass=%v %q", r.Checks, tt.pass, tt.detail)
			}
		})
	}
}

func TestCaseRefusedFact(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, &assay.Suite{RefusalMarkers: []string{"not in my notes"}})
	r := Case(assay.Case{ID: "r", Expect: assay.Expect{Refusal: ptr(true)}}, assay.Observation{Answer: "That is not in my notes."}, o)
	if !r.Refused || !r.Passed() {
		t.Errorf("result = %+v", r)
	}
	r = Case(assay.Case{ID: "r", Expect: assay.Expect{Refusal: ptr(true)}}, assay.Observation{Answer: "I cannot answer"}, o)
	if r.Refused || r.Passed() || r.Checks[0].Detail != "not refused" {
		t.Errorf("custom markers replace the defaults: %+v", r)
	}
}

func TestCaseIsDeterministic(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, &assay.Suite{})
	if err := o.Schemas.Add("inline.json", []byte(`{"type":"object","required":["a","b","c"],"properties":{"a":{"type":"string"},"b":{"type":"string"}}}`)); err != nil {
		t.Fatal(err)
	}
	c := kitchenSink()
	obs := assay.Observation{Answer: `{"a": 1, "b": 2}`, Citations: []assay.Citation{{ID: "x"}, {ID: "y"}}}
	first := Case(c, obs, o)
	for range 50 {
		if got := Case(c, obs, o); !reflect.DeepEqual(got, first) {
			t.Fatalf("Case differs between calls:\n%+v\n%+v", got.Checks, first.Checks)
		}
	}
}

// TestCaseCarriesSource pins that a case result keeps the case's position
// in its suite, graded or not, answered or not, so reports point at it
// (JUnit's file and line).
func TestCaseCarriesSource(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, &assay.Suite{})
	yes := true
	for _, c := range []struct {
		name string
		c    assay.Case
		obs  assay.Observation
	}{
		{"graded", assay.Case{ID: "q1", Source: "evals/kb.yaml:12", Expect: assay.Expect{Refusal: &yes}}, assay.Observation{Case: "q1", Answer: "x"}},
		{"judgments only", assay.Case{ID: "q1", Source: "evals/kb.yaml:12", Judgments: map[string]int{"d": 1}}, assay.Observation{Case: "q1"}},
		{"target failed", assay.Case{ID: "q1", Source: "evals/kb.yaml:12"}, assay.Observation{Case: "q1", Error: &assay.Error{Class: assay.ErrTimeout, Message: "t"}}},
	} {
		if r := Case(c.c, c.obs, o); r.Source != "evals/kb.yaml:12" {
			t.Errorf("%s: Source = %q, want the case's", c.name, r.Source)
		}
	}
}
