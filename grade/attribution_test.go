package grade

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
)

func intp(n int) *int { return &n }

var attribHits = []assay.Hit{
	{ID: "sec", Text: "Invitation tokens are hashed with SHA-256 before they are stored in the database."},
	{ID: "exp", Text: "An invitation expires after seven days; expired invitations are deleted nightly."},
	{ID: "tokyo", Text: "東京は日本の首都で、人口が最も多い都市です。"},
}

func labels(a *assay.Attribution) []assay.SupportLabel {
	if a == nil {
		return nil
	}
	out := make([]assay.SupportLabel, len(a.Sentences))
	for i, s := range a.Sentences {
		out[i] = s.Label
	}
	return out
}

func TestAttribute(t *testing.T) {
	t.Parallel()
	S, U, N := assay.Supported, assay.Unsupported, assay.Uncited
	for _, tc := range []struct {
		name    string
		obs     assay.Observation
		lang    string
		nuggets []NuggetTest
		want    []assay.SupportLabel
		metrics map[string]float64
	}{
		{
			name: "markers: supported, unsupported and uncited English sentences",
			obs: assay.Observation{Retrieved: attribHits, Answer: "Invitation tokens are hashed with SHA-256 [1]. " +
				"Tokens never expire [2]. Ask the admin for help."},
			want: []assay.SupportLabel{S, U, N},
			metrics: map[string]float64{
				assay.MetricSupportRate: 0.5, assay.MetricCitationPrecision: 0.5, assay.MetricCitationRecall: 1.0 / 3,
			},
		},
		{
			name: "one sentence citing two passages, one supporting",
			obs:  assay.Observation{Retrieved: attribHits, Answer: "Invitations expire after seven days.[1][2]"},
			want: []assay.SupportLabel{S},
			metrics: map[string]float64{
				assay.MetricSupportRate: 1, assay.MetricCitationPrecision: 0.5, assay.MetricCitationRecall: 1,
			},
		},
		{
			name: "a marker beyond the ranking supports nothing",
			obs:  assay.Observation{Retrieved: attribHits, Answer: "Tokens are hashed with SHA-256 [9]."},
			want: []assay.SupportLabel{U},
			metrics: map[string]float64{
				assay.MetricSupportRate: 0, assay.MetricCitationPrecision: 0, assay.MetricCitationRecall: 0,
			},
		},
		{
			name: "CJK sentences by markers",
			obs:  assay.Observation{Retrieved: attribHits, Answer: "東京は日本の首都です[3]。大阪はとても楽しい街です[3]。京都は古い。"},
			lang: "ja",
			want: []assay.SupportLabel{S, U, N},
			metrics: map[string]float64{
				assay.MetricSupportRate: 0.5, assay.MetricCitationPrecision: 0.5, assay.MetricCitationRecall: 1.0 / 3,
			},
		},
		{
			name: "citations by offsets (code points), CJK first",
			obs: assay.Observation{Retrieved: attribHits, Answer: "東京は日本の首都です。Tokens are hashed with SHA-256.",
				Citations: []assay.Citation{
					{ID: "tokyo", Start: intp(0), End: intp(11)},
					{ID: "exp", Start: intp(11), End: intp(41)},
				}},
			want: []assay.SupportLabel{S, U},
			metrics: map[string]float64{
				assay.MetricSupportRate: 0.5, assay.MetricCitationPrecision: 0.5, assay.MetricCitationRecall: 0.5,
			},
		},
		{
			name: "a citation at a point cites the sentence holding it",
			obs: assay.Observation{Retrieved: attribHits, Answer: "Hi there. Tokens are hashed with SHA-256.",
				Citations: []assay.Citation{{ID: "sec", Start: intp(40)}}},
			want: []assay.SupportLabel{N, S},
			metrics: map[string]float64{
				assay.MetricSupportRate: 1, assay.MetricCitationPrecision: 1, assay.MetricCitationRecall: 0.5,
			},
		},
		{
			name: "an unretrieved citation is checked against its quote",
			obs: assay.Observation{Answer: "Tokens are hashed with SHA-256.",
				Citations: []assay.Citation{{ID: "elsewhere", Quote: "tokens hashed SHA-256", Start: intp(0)}}},
			want: []assay.SupportLabel{S},
			metrics: map[string]float64{
				assay.MetricSupportRate: 1, assay.MetricCitationPrecision: 1, assay.MetricCitationRecall: 1,
			},
		},
		{
			name:    "a nugget in the sentence and the passage supports it, overlap or not",
			obs:     assay.Observation{Retrieved: attribHits, Answer: "They use SHA256 hashing, the strong one [1]."},
			nuggets: []NuggetTest{func(s string) bool { return strings.Contains(strings.ReplaceAll(s, "-", ""), "SHA256") }},
			want:    []assay.SupportLabel{S},
			metrics: map[string]float64{
				assay.MetricSupportRate: 1, assay.MetricCitationPrecision: 1, assay.MetricCitationRecall: 1,
			},
		},
		{
			name: "without the nugget the same sentence is unsupported",
			obs:  assay.Observation{Retrieved: attribHits, Answer: "They use SHA256 hashing, the strong one [1]."},
			want: []assay.SupportLabel{U},
			metrics: map[string]float64{
				assay.MetricSupportRate: 0, assay.MetricCitationPrecision: 0, assay.MetricCitationRecall: 0,
			},
		},
		{
			name: "nothing cited at sentence level: undefined",
			obs: assay.Observation{Retrieved: attribHits, Answer: "Tokens are hashed with SHA-256.",
				Citations: []assay.Citation{{ID: "sec"}}},
		},
		{
			name: "no answer: undefined",
			obs:  assay.Observation{Retrieved: attribHits},
		},
		{
			name: "an errored observation: undefined",
			obs:  assay.Observation{Retrieved: attribHits, Answer: "Hashed [1].", Error: &assay.Error{Class: assay.ErrTimeout}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, m := Attribute(tc.obs, tc.lang, tc.nuggets)
			if got := labels(a); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("labels %v, want %v", got, tc.want)
			}
			if len(m) != len(tc.metrics) {
				t.Fatalf("metrics %v, want %v", m, tc.metrics)
			}
			for k, v := range tc.metrics {
				if got, ok := m[k]; !ok || got-v > 1e-12 || v-got > 1e-12 {
					t.Errorf("%s = %v, want %v", k, got, v)
				}
			}
		})
	}
}

func TestAttributeRecord(t *testing.T) {
	t.Parallel()
	a, _ := Attribute(assay.Observation{Retrieved: attribHits, Answer: "Invitations expire after seven days [2, 1]. Thanks."}, "", nil)
	want := &assay.Attribution{Sentences: []assay.SentenceSupport{
		{Text: "Invitations expire after seven days.", Label: assay.Supported, Cites: []string{"exp", "sec"}, Supporting: []string{"exp"}, By: "overlap"},
		{Text: "Thanks.", Label: assay.Uncited},
	}}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("got %+v\nwant %+v", a, want)
	}
}

func TestCaseAttributionMetrics(t *testing.T) {
	t.Parallel()
	c := assay.Case{ID: "q", Query: "how?"}
	obs := assay.Observation{Retrieved: attribHits, Answer: "Tokens are hashed with SHA-256 [1]."}
	var asked bool
	o := Options{Nuggets: func(assay.Case) []NuggetTest { asked = true; return nil }}
	r := Case(c, obs, o)
	if r.Attribution == nil || r.Metrics[assay.MetricSupportRate] != 1 || !asked {
		t.Fatalf("attribution %+v, metrics %v, nuggets asked %v", r.Attribution, r.Metrics, asked)
	}
	r = Case(c, assay.Observation{Answer: "No citation here."}, Options{})
	if r.Attribution != nil || len(r.Metrics) != 0 {
		t.Fatalf("uncited answer: attribution %+v, metrics %v", r.Attribution, r.Metrics)
	}
}

// FuzzAttribute: any answer with any citation offsets attributes without
// panicking; labels agree with what each sentence cites and the metrics
// stay within [0, 1].
func FuzzAttribute(f *testing.F) {
	f.Add("Tokens are hashed with SHA-256 [1]. 東京です。[2] Ask.", 0, 12)
	f.Add("[1][2, 3]\n\n.[999999]", -5, 1<<40)
	f.Fuzz(func(t *testing.T, answer string, start, end int) {
		obs := assay.Observation{Retrieved: attribHits, Answer: answer, Citations: []assay.Citation{{ID: "sec", Start: &start, End: &end}, {Title: "none", Start: &end}}}
		a, m := Attribute(obs, "ja", nil)
		if a == nil {
			if m != nil {
				t.Fatalf("metrics %v without attribution", m)
			}
			return
		}
		for _, s := range a.Sentences {
			if (s.Label == assay.Uncited) != (len(s.Cites) == 0) || (s.Label == assay.Supported) != (len(s.Supporting) > 0) {
				t.Fatalf("sentence %+v", s)
			}
		}
		for k, v := range m {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("%s = %v", k, v)
			}
		}
	})
}

// TestAttributeManyCitationsIsLinear: an answer of 20,000 sentences, each
// cited by an offset citation and a marker, and a last sentence citing
// 200,000 distinct markers attributes in well under the time a quadratic
// pass over its citations would take (not timed under the race detector,
// whose instrumentation makes it take longer than that on a loaded machine).
func TestAttributeManyCitationsIsLinear(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	var cites []assay.Citation
	at := 0
	for i := 0; i < 20000; i++ {
		s := "Tokens are hashed [1][" + strconv.Itoa(i+5) + "]. "
		st, en := at, at+5
		cites = append(cites, assay.Citation{ID: "sec", Start: &st, End: &en})
		b.WriteString(s)
		at += len(s)
	}
	var many strings.Builder
	for i := 0; i < 200000; i++ {
		many.WriteString("[" + strconv.Itoa(i+1) + "]")
	}
	obs := assay.Observation{Retrieved: attribHits, Answer: b.String() + "Last " + many.String() + ".", Citations: cites}
	start := time.Now()
	a, m := Attribute(obs, "", nil)
	if a == nil || len(a.Sentences) != 20001 || m[assay.MetricSupportRate] == 0 {
		t.Fatalf("attribution of %d sentences, metrics %v", len(a.Sentences), m)
	}
	if d := time.Since(start); d > 20*time.Second && !raceEnabled {
		t.Fatalf("took %v", d)
	}
}

// TestMarkersOffWhenCitationsHaveNoOffsets: a target that lists its
// citations without offsets (the built-in answerer quoting a paper's "[12]")
// gets no attribution from the bracketed numbers of its answer.
func TestMarkersOffWhenCitationsHaveNoOffsets(t *testing.T) {
	t.Parallel()
	obs := assay.Observation{Retrieved: attribHits, Answer: "Tokens are hashed with SHA-256 [1].", Citations: []assay.Citation{{ID: "sec"}}}
	if a, m := Attribute(obs, "", nil); a != nil || m != nil {
		t.Fatalf("attribution %+v, metrics %v", a, m)
	}
	obs.Citations[0].Start = new(int)
	if a, _ := Attribute(obs, "", nil); a == nil || len(a.Sentences[0].Cites) != 1 {
		t.Fatalf("with offsets: %+v", a)
	}
}

// TestCaseAttributionUsesTheCaseNuggets: with no Options.Nuggets, Case
// attributes with the case's own expect.nuggets. The sentence shares too
// few terms with the passage for the overlap rule, but both state the
// nugget (by one of its alternatives), so the sentence is supported by it;
// a nugget only partly stated in the passage supports nothing.
func TestCaseAttributionUsesTheCaseNuggets(t *testing.T) {
	t.Parallel()
	obs := assay.Observation{
		Retrieved: []assay.Hit{
			{ID: "a", Text: "Release notes: the retention window for audit logs became 400 days in version 7, after a long review by many teams."},
			{ID: "b", Text: "Audit logs are kept for a while."},
		},
		Answer: "Our compliance officer confirmed it is 400 days [1]. Our compliance officer confirmed it is 400 days [2].",
	}
	c := assay.Case{ID: "c", Query: "how long are audit logs kept?", Expect: assay.Expect{
		Nuggets: []assay.Nugget{{Text: "audit logs are kept 400 days", Importance: assay.NuggetVital, Match: []string{"400 days"}}},
	}}
	r := Case(c, obs, Options{})
	if r.Attribution == nil || len(r.Attribution.Sentences) != 2 {
		t.Fatalf("attribution %+v, want two sentences", r.Attribution)
	}
	first, second := r.Attribution.Sentences[0], r.Attribution.Sentences[1]
	if first.Label != assay.Supported || first.By != "nugget" {
		t.Errorf("sentence citing the passage with the nugget: %s by %q, want supported by nugget", first.Label, first.By)
	}
	if second.Label != assay.Unsupported {
		t.Errorf("sentence citing a passage without the nugget: %s, want unsupported", second.Label)
	}
	// Without the nugget the first sentence is not supported by overlap.
	c.Expect.Nuggets = nil
	c.Expect.AnswerIncludes = []string{"400"}
	if r := Case(c, obs, Options{}); r.Attribution == nil || r.Attribution.Sentences[0].Label != assay.Unsupported {
		t.Errorf("without the case's nugget the sentence is %+v, want unsupported (the overlap rule alone)", r.Attribution)
	}
}
