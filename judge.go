package assay

import "strings"

// ErrJudge is the class of a judge failure on one case (docs/judge.md): the
// judge's answer did not parse, a score was out of its scale, or the judge
// endpoint could not be reached. It is recorded in CaseResult.Judge, never
// as the observation's error: the target did answer.
const ErrJudge ErrorClass = "judge"

// JudgeMetricPrefix starts the name of every judge metric: judge.relevance,
// judge.groundedness, ... (one per rubric criterion).
const JudgeMetricPrefix = "judge."

// JudgeConfig is a judge definition as written: the suite's `judge:` block
// or a --judge file (docs/judge.md). Package judge validates it and makes
// the calls. APIKey holds the value as written (`${VAR}`); the expanded key
// never enters a record.
type JudgeConfig struct {
	URL            string           `json:"url"`
	Model          string           `json:"model"`
	APIKey         string           `json:"api_key,omitempty"`
	Temperature    *float64         `json:"temperature,omitempty"`
	Seed           *int             `json:"seed,omitempty"`
	MaxTokens      int              `json:"max_tokens,omitempty"`
	Timeout        Duration         `json:"timeout,omitempty"`
	Retries        *int             `json:"retries,omitempty"`
	Concurrency    int              `json:"concurrency,omitempty"`
	ResponseFormat string           `json:"response_format,omitempty"`
	Rubric         []JudgeCriterion `json:"rubric,omitempty"`
	Budget         JudgeBudget      `json:"budget,omitzero"`
	// Labels is a file of people's labels (docs/judge.md), resolved
	// against the definition's directory; the run measures the judge's
	// agreement with them. MinKappa, when set, is the agreement floor the
	// judge must reach on a criterion (Cohen's kappa, on at least the
	// documented minimum of labels) for its gates on it to be defined.
	Labels   string   `json:"labels,omitempty"`
	MinKappa *float64 `json:"min_kappa,omitempty"`
	// Probes are the bias probes asked of every judged case (position,
	// verbosity, consistency; --judge-probes adds to them).
	Probes []string `json:"probes,omitempty"`
	// Source is "file:line" of the definition, for messages.
	Source string `json:"-"`
}

// JudgeCriterion is one criterion of a rubric, scored from Min to Max.
type JudgeCriterion struct {
	Name        string  `json:"name"`
	Description string  `json:"description,omitempty"`
	Min         float64 `json:"min"`
	Max         float64 `json:"max"`
	// Passages marks a criterion graded against the retrieved passages'
	// text (groundedness): a case whose passages have no text is not
	// judged on it.
	Passages bool `json:"passages,omitempty"`
}

// DefaultJudgeRubric is GNO's rubric, the judge's default: relevance,
// groundedness and completeness, each from 0 to 1.
var DefaultJudgeRubric = []JudgeCriterion{
	{Name: "relevance", Description: "Does the answer address the question that was asked?", Min: 0, Max: 1},
	{Name: "groundedness", Description: "Is every claim of the answer supported by the retrieved passages?", Min: 0, Max: 1, Passages: true},
	{Name: "completeness", Description: "Does the answer cover everything the question asks for?", Min: 0, Max: 1},
}

// JudgeBudget bounds what a run may spend on the judge; zero is no bound.
// Prices are per token, in the unit of MaxCost.
type JudgeBudget struct {
	MaxCalls        int     `json:"max_calls,omitempty"`
	MaxTokens       int     `json:"max_tokens,omitempty"`
	MaxCost         float64 `json:"max_cost,omitempty"`
	PromptPrice     float64 `json:"prompt_price,omitempty"`
	CompletionPrice float64 `json:"completion_price,omitempty"`
}

// JudgeResult is what the judge said of one case and trial.
type JudgeResult struct {
	Model string `json:"model"`
	// Scores holds one entry per criterion when the case was judged.
	Scores []JudgeScore `json:"scores,omitempty"`
	// NotJudged says why the case has no scores (the budget was reached,
	// the target failed); empty when it was judged or had a judge error.
	NotJudged string `json:"not_judged,omitempty"`
	// Error is the judge failure on this case (class judge).
	Error *Error `json:"error,omitempty"`
	// Repeats is how many times the case was asked (--judge-repeats).
	Repeats int `json:"repeats,omitempty"`
	// Calls are the requests sent (cache hits send none), with their usage
	// and cost (nil without prices).
	Calls            int      `json:"calls"`
	PromptTokens     int      `json:"prompt_tokens,omitempty"`
	CompletionTokens int      `json:"completion_tokens,omitempty"`
	Cost             *float64 `json:"cost,omitempty"`
	// Cached is true when every answer came from the cache.
	Cached bool `json:"cached"`
	// Unstable names the criteria whose repeats straddle the bound the
	// case states (some repeats pass it, some do not).
	Unstable []string `json:"unstable,omitempty"`
	// CriteriaNotJudged says, per criterion of the rubric that was not
	// asked, why (a criterion that needs passages when they have no
	// text: "no passage text"); the other criteria are scored.
	CriteriaNotJudged map[string]string `json:"criteria_not_judged,omitempty"`
	// Probes are the bias probes' scores of the case, per probe and
	// criterion (docs/judge.md); a probe whose request failed is left out.
	Probes []JudgeProbeScores `json:"probes,omitempty"`
}

// JudgeProbes are the bias probes a judge definition may name (probes:,
// --judge-probes): position (the passages in reverse order), verbosity
// (the answer padded with a neutral sentence) and consistency (the same
// prompt asked again with another seed).
var JudgeProbes = []string{"position", "verbosity", "consistency"}

// JudgeProbeScores is what the judge scored a case under one bias probe.
type JudgeProbeScores struct {
	Probe  string             `json:"probe"`
	Scores map[string]float64 `json:"scores"`
}

// JudgeProbe is a probe's effect over a run on one criterion: the mean of
// the paired differences (score under the probe − score without it) over
// the N cases scored both ways, its 95 % bootstrap interval, and whether
// |Effect| exceeds the threshold (a share of the criterion's scale).
type JudgeProbe struct {
	Probe     string  `json:"probe"`
	Criterion string  `json:"criterion"`
	N         int     `json:"n"`
	Effect    float64 `json:"effect"`
	Lo        float64 `json:"lo"`
	Hi        float64 `json:"hi"`
	Threshold float64 `json:"threshold"`
	Flagged   bool    `json:"flagged"`
}

// Judged reports whether the judge scored the case.
func (j *JudgeResult) Judged() bool {
	return j != nil && j.Error == nil && j.NotJudged == "" && len(j.Scores) > 0
}

// JudgeScore is one criterion's score: with repeats, the mean, each
// repeat's score and their spread (max − min).
type JudgeScore struct {
	Criterion string    `json:"criterion"`
	Score     float64   `json:"score"`
	Reason    string    `json:"reason"`
	Model     string    `json:"model"`
	Cached    bool      `json:"cached"`
	Repeats   []float64 `json:"repeats,omitempty"`
	Spread    *float64  `json:"spread,omitempty"`
}

// JudgeSummary totals the judge over a run (docs/judge.md).
type JudgeSummary struct {
	Model string `json:"model"`
	// Prompt is the version of the prompt template (judge.PromptVersion).
	Prompt string `json:"prompt"`
	// Results judged, not judged (budget, target failed), with a judge
	// error, and judged entirely from the cache.
	Judged    int `json:"judged"`
	NotJudged int `json:"not_judged"`
	Errors    int `json:"errors"`
	Cached    int `json:"cached"`
	// Budget says which budget stopped the judging ("" when none did).
	Budget string `json:"budget,omitempty"`
	// Breaker says why the circuit breaker stopped the judging: the
	// endpoint failed that many requests in a row ("" when it did not).
	Breaker          string   `json:"breaker,omitempty"`
	Calls            int      `json:"calls"`
	PromptTokens     int      `json:"prompt_tokens"`
	CompletionTokens int      `json:"completion_tokens"`
	Cost             *float64 `json:"cost,omitempty"`
	// With --judge-repeats N > 1: the repeats, per criterion the mean
	// spread over the judged results and the agreement (1 − mean spread
	// over the scale's width), and the results whose repeats straddle a
	// bound their expect states ("id" or "id#trial").
	Repeats   int                `json:"repeats,omitempty"`
	Spread    map[string]float64 `json:"spread,omitempty"`
	Agreement map[string]float64 `json:"agreement,omitempty"`
	Unstable  []string           `json:"unstable,omitempty"`
	// UnstableCases counts them all (Unstable lists the first 100).
	UnstableCases int `json:"unstable_cases,omitempty"`
	// Probes are the bias probes' effects, per probe and criterion.
	Probes []JudgeProbe `json:"probes,omitempty"`
	// PartlyJudged counts the results some criteria of which were not
	// asked (JudgeResult.CriteriaNotJudged: passages without text).
	PartlyJudged int `json:"partly_judged,omitempty"`
	// Labels is the judge's agreement with the labels the definition
	// names (nil without labels and min_kappa).
	Labels *JudgeLabels `json:"labels,omitempty"`
	// Rubric is the criteria the judge scored, with their scales (read
	// back by assay judge agreement).
	Rubric []JudgeCriterion `json:"rubric,omitempty"`
}

// JudgeLabels is a run's judge checked against people's labels
// (docs/judge.md): per criterion its agreement, and with MinKappa whether
// its gates on the criterion are defined.
type JudgeLabels struct {
	// File is the labels file ("" when min_kappa is set without one).
	File     string           `json:"file"`
	MinKappa *float64         `json:"min_kappa,omitempty"`
	Criteria []JudgeAgreement `json:"criteria"`
}

// JudgeAgreement is the judge's agreement with people on one criterion.
// A nil statistic is undefined.
type JudgeAgreement struct {
	Criterion string `json:"criterion"`
	// N is the labelled cases the judge scored.
	N        int            `json:"n"`
	Kappa    *JudgeInterval `json:"kappa,omitempty"`
	AC1      *JudgeInterval `json:"ac1,omitempty"`
	Accuracy *float64       `json:"accuracy,omitempty"`
	TPR      *float64       `json:"tpr,omitempty"`
	TNR      *float64       `json:"tnr,omitempty"`
	// JudgeMean is the judge's mean over the run; PPI the corrected
	// (prediction-powered) mean with its 95 % interval.
	JudgeMean *float64       `json:"judge_mean,omitempty"`
	PPI       *JudgeInterval `json:"ppi,omitempty"`
	// Spearman is the rank correlation of the judge's scores with the
	// people's, when the people gave scores rather than pass/fail labels.
	Spearman *JudgeInterval `json:"spearman,omitempty"`
	// Disagreements are the ids of the labelled cases where the judge's
	// score and the people's differ most, the largest difference first.
	Disagreements []string `json:"disagreements,omitempty"`
	// Undefined says why the judge's gates on this criterion are
	// undefined (min_kappa not met); "" when they are defined.
	Undefined string `json:"undefined,omitempty"`
}

// JudgeInterval is an estimate with its 95 % interval (Lo, Hi nil when
// it has none).
type JudgeInterval struct {
	Value float64  `json:"value"`
	Lo    *float64 `json:"lo,omitempty"`
	Hi    *float64 `json:"hi,omitempty"`
}

// JudgeUndefined says why a judge metric (judge.CRITERION) may not be
// read under the run's min_kappa ("" when it may, or when name is no
// judge metric).
func (s *JudgeSummary) JudgeUndefined(name string) string {
	if s == nil || s.Labels == nil || s.Labels.MinKappa == nil || !strings.HasPrefix(name, JudgeMetricPrefix) {
		return ""
	}
	crit := strings.TrimPrefix(name, JudgeMetricPrefix)
	for _, a := range s.Labels.Criteria {
		if a.Criterion == crit {
			return a.Undefined
		}
	}
	return ""
}

// MaxJudgeRepeats bounds how many times a judge asks each case (the
// repeats of a judge, package judge's Options.Repeats).
const MaxJudgeRepeats = 20

// JudgeBounds is the judge bounds of a case: the defaults' overlaid with
// its own (Expect.Judge).
func JudgeBounds(defaults, own map[string]float64) map[string]float64 {
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
