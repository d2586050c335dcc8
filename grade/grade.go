package grade

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/metric"
)

// Options are resolved once per run from the suite. They are read-only while
// grading, so one Options value serves every concurrent call of Case.
type Options struct {
	Metrics        []metric.Spec // per-case metrics computed for judged cases
	Gain           assay.Gain    // linear (default) | exponential
	RefusalMarkers []string      // every case's markers; nil: by the case's tags.lang (Markers)
	CaseSensitive  bool          // suite default for the substring kinds
	K              int           // suite default k (assay.DefaultK when 0)
	Schemas        *SchemaCache  // compiled JSON Schemas, keyed by resolved path
	// NuggetNoVitalZero scores the vital nugget metrics of a case with no
	// vital nugget 0 (the suite's nugget_no_vital: zero) instead of
	// leaving them undefined.
	NuggetNoVitalZero bool
	// Nuggets, when set, gives the nugget tests of a case for attribution
	// (Attribute): a cited passage supports a sentence when one of them
	// finds its nugget in both. Nil: the lexical overlap rule alone.
	Nuggets func(c assay.Case) []NuggetTest
}

// Markers are the refusal markers that judge case c: o.RefusalMarkers
// when the suite set them; otherwise the built-in set of the case's
// tags.lang (assay.RefusalMarkerSet); otherwise assay.DefaultRefusalMarkers
// (English).
func (o Options) Markers(c assay.Case) []string {
	if o.RefusalMarkers != nil {
		return o.RefusalMarkers
	}
	return CaseMarkers(c)
}

// CaseMarkers are the built-in markers for case c when its suite sets none:
// the set of its tags.lang, else assay.DefaultRefusalMarkers.
func CaseMarkers(c assay.Case) []string {
	if lang := c.Tags["lang"]; lang != "" {
		if set, ok := assay.RefusalMarkerSet(lang); ok {
			return set
		}
	}
	return assay.DefaultRefusalMarkers
}

// MetricNames returns the canonical names of o.Metrics, in order: the
// metrics argument of runner.Summarize.
func (o Options) MetricNames() []string {
	names := make([]string, len(o.Metrics))
	for i, s := range o.Metrics {
		names[i] = s.Name
	}
	return names
}

// NewOptions resolves the suite's metrics (assay.DefaultMetrics when it names
// none; a duplicate after canonicalisation is kept once), compiles the JSON
// Schema of every case that states json_schema, checks every answer_matches
// pattern, and copies the suite defaults. Errors name the bad metric, or the
// case by its source position and id:
// `kb.yaml:12: case q001: json_schema schemas/x.json: open ...: no such file or directory`.
func NewOptions(s *assay.Suite) (Options, error) {
	o := Options{
		Gain:           s.Gain,
		RefusalMarkers: s.RefusalMarkers,
		CaseSensitive:  s.Defaults.CaseSensitive,
		K:              s.Defaults.K,
		Schemas:        NewSchemaCache(),
	}
	switch s.NuggetNoVital {
	case "", assay.NuggetNoVitalUndefined:
	case assay.NuggetNoVitalZero:
		o.NuggetNoVitalZero = true
	default:
		return Options{}, fmt.Errorf("unknown nugget_no_vital %q (want undefined or zero)", s.NuggetNoVital)
	}
	if o.Gain == "" {
		o.Gain = assay.GainLinear
	}
	if o.Gain != assay.GainLinear && o.Gain != assay.GainExponential {
		return Options{}, fmt.Errorf("unknown gain %q (want linear or exponential)", string(o.Gain))
	}
	if o.K <= 0 {
		o.K = assay.DefaultK
	}
	names := s.Metrics
	if len(names) == 0 {
		names = assay.DefaultMetrics
	}
	seen := map[string]bool{}
	for _, n := range names {
		spec, err := metric.Parse(n)
		if err != nil {
			return Options{}, err // names the metric and the known ones
		}
		if seen[spec.Name] {
			continue
		}
		seen[spec.Name] = true
		o.Metrics = append(o.Metrics, spec)
	}
	for _, c := range s.Cases {
		if err := checkExpect(c, c.Expect, ""); err != nil {
			return Options{}, err
		}
		for i, t := range c.Turns {
			if err := checkExpect(c, t.Expect, fmt.Sprintf("turns[%d].", i)); err != nil {
				return Options{}, err
			}
			if t.Expect.JSONSchema == "" {
				continue
			}
			tc := c.TurnCase(i, nil)
			if err := o.Schemas.loadAs(schemaKey(tc.Expect), SchemaPath(s, tc)); err != nil {
				return Options{}, fmt.Errorf("%scase %s: turns[%d].json_schema %s: %v", where(c), c.ID, i, t.Expect.JSONSchema, err)
			}
		}
		if p := c.Expect.AnswerMatches; p != "" {
			if _, err := regexp.Compile(p); err != nil {
				return Options{}, fmt.Errorf("%scase %s: answer_matches: %s", where(c), c.ID, regexpError(err))
			}
		}
		for i, n := range c.Expect.Nuggets {
			if n.Regex == "" {
				continue
			}
			if _, err := regexp.Compile(n.Regex); err != nil {
				return Options{}, fmt.Errorf("%scase %s: nuggets[%d].regex: %s", where(c), c.ID, i, regexpError(err))
			}
		}
		if c.Expect.JSONSchema == "" {
			continue
		}
		if err := o.Schemas.loadAs(schemaKey(c.Expect), SchemaPath(s, c)); err != nil {
			return Options{}, fmt.Errorf("%scase %s: json_schema %s: %v", where(c), c.ID, c.Expect.JSONSchema, err)
		}
	}
	return o, nil
}

// checkExpect checks what the loaders may have let through in one set of
// expectations of case c (a turn's when prefix names it): the tools
// expectation and a turn's answer_matches.
func checkExpect(c assay.Case, e assay.Expect, prefix string) error {
	if e.Tools != nil {
		if err := CheckTrajectory(e.Tools); err != nil {
			return fmt.Errorf("%scase %s: %s%v", where(c), c.ID, prefix, err)
		}
	}
	if prefix == "" {
		return nil
	}
	if p := e.AnswerMatches; p != "" {
		if _, err := regexp.Compile(p); err != nil {
			return fmt.Errorf("%scase %s: %sanswer_matches: %s", where(c), c.ID, prefix, regexpError(err))
		}
	}
	return nil
}

// SchemaPath is the file a case's json_schema names: Expect.JSONSchemaPath
// when the loader resolved it, else Expect.JSONSchema relative to the
// suite's directory (as is when absolute).
func SchemaPath(s *assay.Suite, c assay.Case) string {
	if c.Expect.JSONSchemaPath != "" {
		return c.Expect.JSONSchemaPath
	}
	p := c.Expect.JSONSchema
	if filepath.IsAbs(p) || s == nil || s.Dir == "" {
		return p
	}
	return filepath.Join(s.Dir, p)
}

// schemaKey is the key a case's schema has in the SchemaCache: the
// resolved path, or the path as written when the loader did not resolve it.
func schemaKey(e assay.Expect) string {
	if e.JSONSchemaPath != "" {
		return e.JSONSchemaPath
	}
	return e.JSONSchema
}

func where(c assay.Case) string {
	if c.Source == "" {
		return ""
	}
	return c.Source + ": "
}

// Case grades one observation of one case. It is pure: same input, same
// output. See the package documentation for the fields it fills and the
// order of the checks.
func Case(c assay.Case, obs assay.Observation, o Options) assay.CaseResult {
	markers := o.Markers(c)
	refused := Refused(obs, markers)
	ranking := Ranking(obs)
	cp := obs
	r := assay.CaseResult{
		ID:          c.ID,
		Trial:       obs.Trial,
		Error:       obs.Error,
		Checks:      Checks(c, obs, o),
		LatencyMs:   obs.LatencyMs,
		Attempts:    obs.Attempts,
		Cached:      obs.Cached,
		Tags:        c.Tags,
		Source:      c.Source,
		Retrieved:   len(ranking),
		Citations:   len(obs.Citations),
		Refused:     refused,
		Observation: &cp,
		Hash:        CaseHash(c, o),
	}
	if obs.Error == nil && len(obs.Retrieved) > 0 {
		top := obs.Retrieved[0].Score
		r.TopScore = &top
	}
	if obs.Error == nil {
		r.Stages = Stages(obs.Spans)
	}
	if !c.Expect.Empty() {
		ok := obs.Error == nil
		for _, ch := range r.Checks {
			ok = ok && ch.Pass
		}
		r.Pass = &ok
	}
	if c.Judged() && len(o.Metrics) > 0 {
		if obs.Error != nil {
			ranking = nil
		}
		mo := metric.Options{Exponential: o.Gain == assay.GainExponential}
		r.Metrics = make(map[string]float64, len(o.Metrics))
		binary := metric.BinaryJudgments(c.Judgments, c.Relevant)
		for _, spec := range o.Metrics {
			j := binary
			if spec.Graded() {
				j = c.Judgments
			}
			r.Metrics[spec.Name] = spec.Eval(ranking, j, mo)
		}
		coverage(&r, ranking, binary, c.Judgments, o, mo)
	}
	if len(c.Expect.Nuggets) > 0 {
		r.Nuggets = Nuggets(c, obs, caseSensitive(c, o))
		ScoreNuggets(&r, o.NuggetNoVitalZero)
	}
	var nuggets []NuggetTest
	if o.Nuggets != nil {
		nuggets = o.Nuggets(c)
	} else {
		nuggets = nuggetTests(c, caseSensitive(c, o))
	}
	if a, m := Attribute(obs, c.Tags["lang"], nuggets); a != nil {
		r.Attribution = a
		if r.Metrics == nil {
			r.Metrics = make(map[string]float64, len(m))
		}
		for k, v := range m {
			r.Metrics[k] = v
		}
	}
	return r
}

// Checks returns one check per expectation the case states, in the order of
// Kinds. On an errored observation every stated expectation fails with the
// error as its detail (`timeout: no answer after 30s`). A case stating
// nothing gets an empty, non-nil list.
func Checks(c assay.Case, obs assay.Observation, o Options) []assay.Check {
	e := c.Expect
	checks := []assay.Check{}
	add := func(kind string, stated bool, grade func() assay.Check) {
		if !stated {
			return
		}
		if obs.Error != nil {
			checks = append(checks, fail(kind, obs.Error.Error()))
			return
		}
		checks = append(checks, grade())
	}
	cs := caseSensitive(c, o)
	k := c.K
	if k <= 0 {
		k = o.K
	}
	add(KindAnswerIncludes, len(e.AnswerIncludes) > 0, func() assay.Check { return AnswerIncludes(obs.Answer, e.AnswerIncludes, cs) })
	add(KindAnswerIncludesAny, len(e.AnswerIncludesAny) > 0, func() assay.Check { return AnswerIncludesAny(obs.Answer, e.AnswerIncludesAny, cs) })
	add(KindAnswerExcludes, len(e.AnswerExcludes) > 0, func() assay.Check { return AnswerExcludes(obs.Answer, e.AnswerExcludes, cs) })
	add(KindAnswerMatches, e.AnswerMatches != "", func() assay.Check { return AnswerMatches(obs.Answer, e.AnswerMatches) })
	add(KindRetrieves, len(e.Retrieves) > 0, func() assay.Check { return Retrieves(obs, e.Retrieves, k) })
	add(KindCites, len(e.Cites) > 0, func() assay.Check { return Cites(obs, e.Cites) })
	add(KindCitesAny, len(e.CitesAny) > 0, func() assay.Check { return CitesAny(obs, e.CitesAny) })
	add(KindCited, len(e.Cited) > 0, func() assay.Check { return Cited(obs, e.Cited) })
	add(KindCitedAny, len(e.CitedAny) > 0, func() assay.Check { return CitedAny(obs, e.CitedAny) })
	add(KindCitesOnlySurfaced, e.CitesOnlySurfaced, func() assay.Check { return CitesOnlySurfaced(obs) })
	add(KindNoCitations, e.NoCitations, func() assay.Check { return NoCitations(obs) })
	add(KindRefusal, e.Refusal != nil, func() assay.Check { return Refusal(obs, *e.Refusal, o.Markers(c)) })
	add(KindCallsTool, len(e.CallsTool) > 0, func() assay.Check { return CallsTool(obs, e.CallsTool) })
	add(KindCallsAnyTool, e.CallsAnyTool, func() assay.Check { return CallsAnyTool(obs) })
	add(KindNeverCalls, len(e.NeverCalls) > 0, func() assay.Check { return NeverCalls(obs, e.NeverCalls) })
	add(KindTools, e.Tools != nil, func() assay.Check { return Trajectory(obs, *e.Tools) })
	add(KindStopsAtApproval, e.StopsAtApproval, func() assay.Check { return StopsAtApproval(obs) })
	add(KindOutcome, e.Outcome != "", func() assay.Check { return Outcome(obs, e.Outcome) })
	add(KindJSONSchema, e.JSONSchema != "", func() assay.Check {
		return JSONSchema(obs, o.Schemas.Get(schemaKey(e)))
	})
	add(KindMaxLatency, e.MaxLatencyMs != nil, func() assay.Check { return MaxLatency(obs, *e.MaxLatencyMs) })
	return checks
}

// Stages sums the durations of spans by name (ms; a span that ends before
// it starts, or whose times are not numbers, counts as 0). It returns nil
// for no span.
func Stages(spans []assay.Span) map[string]float64 {
	if len(spans) == 0 {
		return nil
	}
	out := make(map[string]float64, len(spans))
	for _, sp := range spans {
		d := sp.EndMs - sp.StartMs
		if !(d > 0) || math.IsInf(d, 0) {
			d = 0
		}
		out[sp.Name] += d
	}
	return out
}

// caseSensitive is whether the substring kinds and the nuggets of c
// compare case-sensitively: the case's case_sensitive, else the suite's.
func caseSensitive(c assay.Case, o Options) bool {
	if c.Expect.CaseSensitive != nil {
		return *c.Expect.CaseSensitive
	}
	return o.CaseSensitive
}
