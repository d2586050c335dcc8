package assay

import (
	"encoding/json"
	"time"
)

// RunStatus is complete or incomplete.
type RunStatus string

// Run statuses.
const (
	StatusComplete   RunStatus = "complete"
	StatusIncomplete RunStatus = "incomplete"
)

// Check is the outcome of one expectation for one observation.
type Check struct {
	Kind   string `json:"kind"`
	Pass   bool   `json:"pass"`
	Detail string `json:"detail,omitempty"`
}

// CaseResult is one case and trial, graded. It is a line of the run's
// "cases" list; cases.jsonl lines also carry the Observation.
type CaseResult struct {
	ID    string `json:"id"`
	Trial int    `json:"trial"`
	// Pass is nil when the case states no expectation (not graded).
	Pass      *bool              `json:"pass"`
	Error     *Error             `json:"error"`
	Checks    []Check            `json:"checks"`
	Metrics   map[string]float64 `json:"metrics"`
	LatencyMs *float64           `json:"latency_ms"`
	Attempts  int                `json:"attempts,omitempty"` // the observation's; > 1: retried
	Cached    bool               `json:"cached,omitempty"`   // the observation came from the cache (run --cache)
	// Usage is the system's tokens and cost for this answer, read from
	// the observation's usage and priced by the run's price table
	// (docs/cost.md); nil when the observation reported no usage.
	Usage *Usage            `json:"usage,omitempty"`
	Tags  map[string]string `json:"tags,omitempty"`
	// Source is "file:line" of the case in its suite file (assay.Case's),
	// so reports can point at it (JUnit's file and line attributes).
	Source string `json:"source,omitempty"`
	// Facts the rates are computed from (docs/metrics.md#rates).
	Retrieved int  `json:"retrieved"`
	Citations int  `json:"citations"`
	Refused   bool `json:"refused"`
	// TopScore is the score of the first document of the ranking, as the
	// target reported it; nil when the ranking is empty or the target
	// failed. compare lists its per-case deltas.
	TopScore *float64 `json:"top_score,omitempty"`
	// Position is the case's 1-based position among the cases selected
	// (suite order, before the suite was split), recorded by a shard run
	// (Run.Shard) so that merging the shards puts the results back in
	// suite order; 0 (omitted) elsewhere.
	Position int `json:"position,omitempty"`
	// Stages is the time of each stage the observation's spans name, in
	// ms: per span name, the sum of its spans' durations (EndMs − StartMs,
	// negative durations count as 0). Nil when the observation has no span
	// or errored. The run summary's Stages are computed from it, so a run
	// re-summarized without its observations (a merge of shards, a stopped
	// run) keeps them.
	Stages map[string]float64 `json:"stages,omitempty"`
	// Judge is what the judge said of the case (nil: no judge ran).
	Judge *JudgeResult `json:"judge,omitempty"`
	// Nuggets is the assignment of each of the case's expect.nuggets, in
	// suite order; nil when the case has none.
	Nuggets []NuggetResult `json:"nuggets,omitempty"`
	// Attribution labels each answer sentence supported, unsupported or
	// uncited (package grade's Attribute); nil when the answer cites
	// nothing at sentence level.
	Attribution *Attribution `json:"attribution,omitempty"`
	// Unjudged is the judged coverage of a judged case: per cutoff
	// ("unj@10"), the share of the top k ranks whose document has no
	// judgment, trec_eval's unj (docs/metrics.md#judged-coverage). The
	// cutoffs are those of the run's metrics, and the run's k for the
	// metrics without one. Nil for a case without judgments, and in runs
	// made before assay recorded it.
	Unjudged map[string]float64 `json:"unjudged,omitempty"`
	// Upper holds, per metric, its value with the unjudged documents the
	// metric reads counted relevant (Metrics holds it with them counted
	// non-relevant); a metric is left out when the two are equal.
	Upper map[string]float64 `json:"upper,omitempty"`
	// Hash identifies what the case asked and how it was graded:
	// "sha256:" and the hex digest of the canonical form of its query,
	// expectations and judgments (package grade's CaseHash). compare pairs
	// two results of a case only when their hashes match. Empty in runs
	// made before assay recorded it.
	Hash string `json:"hash,omitempty"`
	// Turn is the 1-based turn of a conversation a result of Turns grades;
	// 0 (omitted) on a case's own result.
	Turn int `json:"turn,omitempty"`
	// Turns holds, for a conversation case, the result of each turn in
	// order (each graded as a case of its own, with its Turn); nil for a
	// case of one query. The conversation's own fields sum or average
	// them (package grade's Conversation).
	Turns []CaseResult `json:"turns,omitempty"`
	// FailedTurn is the first turn of a conversation that failed or
	// errored (1-based); 0 (omitted) when none did.
	FailedTurn int `json:"failed_turn,omitempty"`
	// Observation is embedded in cases.jsonl, left out of run.json.
	Observation *Observation `json:"observation,omitempty"`
}

// WithoutObservation returns the result without its Observation and
// without those of its turns.
func (c CaseResult) WithoutObservation() CaseResult {
	c.Observation = nil
	if c.Turns != nil {
		turns := make([]CaseResult, len(c.Turns))
		for i, t := range c.Turns {
			t.Observation = nil
			turns[i] = t
		}
		c.Turns = turns
	}
	return c
}

// Graded reports whether the case was graded (stated expectations).
func (r CaseResult) Graded() bool { return r.Pass != nil }

// Passed reports whether the case was graded and passed.
func (r CaseResult) Passed() bool { return r.Pass != nil && *r.Pass }

// Answered reports whether the target produced an observation (no error).
func (r CaseResult) Answered() bool { return r.Error == nil }

// Run is the assay.run/v1 document.
type Run struct {
	Schema       string     `json:"schema"`
	RunID        string     `json:"run_id"`
	Status       RunStatus  `json:"status"`
	Suite        SuiteRef   `json:"suite"`
	Target       TargetInfo `json:"target"`
	AssayVersion string     `json:"assay_version"`
	// GradingVersion is the version of assay's grading rules the run was
	// graded with (package grade's Version); it changes when a rule
	// changes what a case scores. 0 (omitted) in runs made before assay
	// recorded it.
	GradingVersion int      `json:"grading_version,omitempty"`
	Git            *GitInfo `json:"git,omitempty"`
	// Labels are free KEY=VALUE pairs the run was made with: the branch,
	// commit and environment a CI job ran on, and any others the caller
	// gives (assay run --label). A REF selects runs by them
	// (latest@main, latest{env=staging}); nil when there are none.
	Labels  map[string]string `json:"labels,omitempty"`
	Options RunOptions        `json:"options"`
	// Group is the id shared by the runs of one variant matrix (a target
	// that declares variants:); empty for a single run.
	Group string `json:"group,omitempty"`
	// Variant holds the variant values this run was made with, e.g.
	// {"mode": "fast"}; nil when the target declares no variants. Gates
	// scoped [variant=NAME] or [KEY=VALUE] on a variant key apply to the
	// runs of that variant only (package gate).
	Variant map[string]string `json:"variant,omitempty"`
	// Orderings are the orderings the matrix was run under, as written
	// (package gate's Ordering, e.g. "ndcg@10: fast <= thorough"): each run
	// of a matrix records them when it begins, so that a reader of the
	// matrix's runs (the UI's runs page) can check them over the runs'
	// summaries, the run records holding no result of them. nil for a run
	// of no matrix, or of one without orderings.
	Orderings []string `json:"orderings,omitempty"`
	// Shard is set on a shard run (assay run --shard I/N): which slice of
	// the suite it ran and the group its shards share. nil otherwise.
	Shard *Shard `json:"shard,omitempty"`
	// Merged is set on the run assay merge made of a group's shards.
	Merged     *Merged   `json:"merged,omitempty"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	// Gain, cutoff and tie rule the metrics were computed with.
	Gain     Gain               `json:"gain"`
	TieRule  string             `json:"tie_rule"`
	Summary  Summary            `json:"summary"`
	Segments map[string]Segment `json:"segments"`
	// Trials holds the trial statistics (pass@N, pass^N, flaky case ids,
	// metric mean ± sd) when the run made more than one trial per case;
	// they can always be recomputed from Cases (runner.Trials).
	Trials *TrialStats `json:"trials,omitempty"`
	// Measures holds the run-level measures the target reported (a setup
	// step's measures: in a target file, or a target's Measures method),
	// e.g. {"index_bytes": 1.2e6, "build_ms": 830}; nil when it reported
	// none. A gate names one bare (index_bytes <= 1e9, ratio(build_ms) <=
	// 1.1); one not reported is undefined and fails its gate.
	Measures map[string]float64 `json:"measures,omitempty"`
	// Baseline is the id of the run the gates were compared with (delta,
	// ratio, no_new_failures); "" when they were compared with none.
	Baseline string       `json:"baseline,omitempty"`
	Gates    []GateResult `json:"gates"`
	// Warnings come before the cases in the document, so that a reader of
	// its head (store.PeekRun) has every field but the cases.
	Warnings []string     `json:"warnings,omitempty"`
	Cases    []CaseResult `json:"cases"`

	// CaseStream, when Cases is empty, yields the run's case results in
	// order (suite order, then trial) afresh on each call; it is not part
	// of the JSON document.
	CaseStream Seq[CaseResult] `json:"-"`
	// CaseDocuments, when Cases is empty and CaseStream is set, yields
	// the same cases as CaseStream, in the same order, each already
	// encoded as the document lists it: compact JSON on one line, no final
	// newline, HTML characters not escaped (CaseResult.Document). The
	// document is then written from these bytes (WriteDocument copies
	// them) rather than by decoding and encoding each case again. It is
	// not part of the JSON document.
	CaseDocuments Seq[[]byte] `json:"-"`
}

// IsMeasureName reports whether name can name a run-level measure
// (Run.Measures): a lowercase ASCII letter, then lowercase letters, digits
// and underscores, at most 64 bytes ("index_bytes", "build_ms").
func IsMeasureName(name string) bool {
	if name == "" || len(name) > 64 || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// EachCase calls yield with each case result of the run, in order: the
// elements of Cases when it is non-empty or CaseStream is nil, else those
// CaseStream yields. Readers of a run go through EachCase so that a run
// whose cases stay on disk is read one case at a time. An error from yield
// or from the stream stops the walk and is returned.
func (r *Run) EachCase(yield func(CaseResult) error) error {
	if len(r.Cases) > 0 || r.CaseStream == nil {
		for _, c := range r.Cases {
			if err := yield(c); err != nil {
				return err
			}
		}
		return nil
	}
	return r.CaseStream(yield)
}

// Shard says which slice of a suite a shard run ran: the cases whose
// stable hash of the id falls in slice Index (0-based) of Count, and the
// Group its shards share. A shard run checks no gate: Gates holds the
// gates the merge of the group checks on the whole run.
type Shard struct {
	Index int    `json:"index"`
	Count int    `json:"count"`
	Group string `json:"group"`
	Gates []Gate `json:"gates,omitempty"`
}

// Merged says what a merged run was made of: the shard group and the
// shard runs, by index (empty for a missing shard).
type Merged struct {
	Group string   `json:"group,omitempty"`
	Runs  []string `json:"runs"`
}

// SuiteRef identifies the suite a run used.
type SuiteRef struct {
	Name        string `json:"name"`
	Fingerprint string `json:"fingerprint"`
	Path        string `json:"path,omitempty"`
	Cases       int    `json:"cases,omitempty"`
	// Cluster is the suite's cluster tag (Suite.Cluster), "" for none.
	Cluster string `json:"cluster,omitempty"`
}

// GitInfo is the working tree's commit when the run started.
type GitInfo struct {
	Commit string `json:"commit"`
	Dirty  bool   `json:"dirty"`
}

// RunOptions are the options a run was made with.
type RunOptions struct {
	K           int               `json:"k,omitempty"`
	Trials      int               `json:"trials"`
	Concurrency int               `json:"concurrency"`
	Timeout     string            `json:"timeout,omitempty"`
	Cases       []string          `json:"cases,omitempty"`
	Tags        map[string]string `json:"tags,omitempty"`
	Metrics     []string          `json:"metrics,omitempty"`
	// Cache is set when the run answered from the response cache where it
	// could (run --cache); Summary.Cached counts the observations it did.
	Cache bool `json:"cache,omitempty"`
	// MaxCost and MaxTokens are the system's budget (run --max-cost,
	// --max-tokens; 0: none): cases past it are recorded not run.
	MaxCost   float64 `json:"max_cost,omitempty"`
	MaxTokens int64   `json:"max_tokens,omitempty"`
	// Margins are the suite's equivalence margins (Suite.Margins), which
	// compare uses when the comparison sets none of its own.
	Margins map[string]float64 `json:"margins,omitempty"`
}

// Summary aggregates a run (docs/metrics.md#aggregates).
type Summary struct {
	Cases  int `json:"cases"`
	Graded int `json:"graded"`
	Passed int `json:"passed"`
	Failed int `json:"failed"`
	Errors int `json:"errors"`
	// Retried counts the results whose observation needed more than one
	// attempt (omitted when none did).
	Retried int `json:"retried,omitempty"`
	// Cached counts the results whose observation came from the response
	// cache (run --cache), not from the system (omitted when none did).
	Cached int `json:"cached,omitempty"`
	// NotRun counts the results a budget left unobserved (their error is
	// of class not_run; they are counted in Errors too).
	NotRun int `json:"not_run,omitempty"`
	// PassRate is passed/graded; nil when nothing was graded.
	PassRate  *float64             `json:"pass_rate"`
	Metrics   map[string]MetricAgg `json:"metrics"`
	Rates     Rates                `json:"rates"`
	LatencyMs Latency              `json:"latency_ms"`
	// Stages is the latency of each stage the observations' spans name
	// (CaseResult.Stages), over the results that have that stage; omitted
	// when no result has a span.
	Stages map[string]Latency `json:"stages,omitempty"`
	// Cost totals the system's usage and cost (nil: no result reported
	// usage); the judge's is in Judge, apart.
	Cost *CostSummary `json:"cost,omitempty"`
	// Judge totals the judge (nil: no judge ran; segments have none).
	Judge *JudgeSummary `json:"judge,omitempty"`
	// Nuggets counts the nugget assignments of the results (nil: no
	// result has nuggets).
	Nuggets *NuggetTally `json:"nuggets,omitempty"`
	// Unjudged is the run's judged coverage: per cutoff ("unj@10"), the
	// mean of the cases' CaseResult.Unjudged over the judged cases, with
	// its n. Omitted when no case recorded it.
	Unjudged map[string]MetricAgg `json:"unjudged,omitempty"`
}

// UnjudgedWarnAbove is the judged-coverage threshold: a run whose mean
// unj@k (Summary.Unjudged) exceeds it for a cutoff k of its metrics warns
// that the metrics read documents nobody judged, and so does a comparison
// with it (docs/metrics.md#judged-coverage).
const UnjudgedWarnAbove = 0.05

// MetricAgg is a mean with its count.
type MetricAgg struct {
	Mean float64 `json:"mean"`
	N    int     `json:"n"`
	// Upper is the mean with the unjudged documents counted relevant
	// (CaseResult.Upper); Mean counts them non-relevant. nil when a case
	// of the n did not record its judged coverage (an older run).
	Upper *float64 `json:"upper,omitempty"`
}

// Rates are the suite-level rates (docs/metrics.md#rates). A rate over nothing is undefined:
// nil (JSON null), never 0. NoHit, Refusal and Grounded are over the
// answered results (nil when every result errored, or there is none);
// Error is over every result (nil for a run of no case).
type Rates struct {
	NoHit    *float64 `json:"no_hit"`
	Refusal  *float64 `json:"refusal"`
	Grounded *float64 `json:"grounded"`
	Error    *float64 `json:"error"`
}

// Latency percentiles (nearest-rank) over observations with a latency. N
// is 0 when they are undefined: no observation has a latency, or no case
// was answered (a target that is down measures nothing). Undefined
// percentiles are written as JSON null, never 0.
type Latency struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
	N   int     `json:"n"`
}

// Defined reports whether the percentiles were measured (N > 0).
func (l Latency) Defined() bool { return l.N > 0 }

// MarshalJSON writes undefined percentiles (N = 0) as null.
func (l Latency) MarshalJSON() ([]byte, error) {
	type plain Latency
	if l.N > 0 {
		return json.Marshal(plain(l))
	}
	return []byte(`{"p50":null,"p95":null,"p99":null,"max":null,"n":0}`), nil
}

// Segment is the summary of the cases sharing one tag value (key "tag=value").
type Segment = Summary

// GateResult is one evaluated gate.
type GateResult struct {
	Expr   string   `json:"expr"`
	Pass   bool     `json:"pass"`
	Value  *float64 `json:"value"`
	Bound  float64  `json:"bound"`
	Op     string   `json:"op,omitempty"`
	Source string   `json:"source,omitempty"`
	Detail string   `json:"detail,omitempty"`
}

// DocumentHead is the run as the assay.run/v1 document writes it, without
// its cases (Cases empty, CaseStream nil): the schema set, and nil slices
// and maps as [] and {} so that a consumer sees every field of docs/json.md. The
// --json output and the stored run.json both write it.
func (r *Run) DocumentHead() *Run {
	doc := *r
	doc.Schema = RunSchema
	doc.Segments = make(map[string]Segment, len(r.Segments))
	if doc.Gates == nil {
		doc.Gates = []GateResult{}
	}
	doc.Summary = doc.Summary.document()
	for k, s := range r.Segments {
		doc.Segments[k] = s.document()
	}
	doc.Cases = []CaseResult{}
	doc.CaseStream = nil
	doc.CaseDocuments = nil
	return &doc
}

func (s Summary) document() Summary {
	if s.Metrics == nil {
		s.Metrics = map[string]MetricAgg{}
	}
	return s
}

// Document is the case as the assay.run/v1 document lists it: no
// observation, and [] and {} for no checks and no metrics.
func (c CaseResult) Document() CaseResult {
	c = c.WithoutObservation()
	if c.Turns != nil {
		turns := make([]CaseResult, len(c.Turns))
		for i, t := range c.Turns {
			turns[i] = t.Document()
		}
		c.Turns = turns
	}
	if c.Checks == nil {
		c.Checks = []Check{}
	}
	if c.Metrics == nil {
		c.Metrics = map[string]float64{}
	}
	return c
}
