package assay

import "strings"

// Suite is a loaded, validated golden set.
type Suite struct {
	// Name identifies the suite in records; defaults to the file's base name.
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Path is the file (or directory) the suite was loaded from; Dir is the
	// directory relative paths in it resolve against.
	Path string `json:"-"`
	Dir  string `json:"-"`
	// Format is the detected source format: "native", "beir", "gno", ...
	Format string `json:"format,omitempty"`

	// Corpus is the suite's documents, in a stable order (by id).
	Corpus []Document `json:"corpus,omitempty"`
	// JudgmentsFile is the judgments file the suite names
	// (judgments_file:), resolved against Dir; "" for none. Its labels are
	// merged into the cases' judgments when the suite loads.
	JudgmentsFile string `json:"-"`
	// CorpusSource says where the corpus came from (a path, or "inline").
	CorpusSource string `json:"corpus_source,omitempty"`

	Defaults Defaults `json:"defaults"`
	Metrics  []string `json:"metrics,omitempty"`
	Gain     Gain     `json:"gain,omitempty"`
	// RecallOver says which documents the binary measures (recall,
	// precision, mrr, map, hit, r-prec) count as relevant: RecallOverJudged
	// (empty; every document judged >= 1) or RecallOverRelevant (each case's
	// Relevant list when it has one; GNO's relevantDocs). nDCG always uses
	// the graded Judgments.
	RecallOver string `json:"recall_over,omitempty"`
	// Cluster names the tag whose value groups cases that are not
	// independent (questions written from one document, turns of one
	// conversation): package compare tests the paired deltas of the
	// clusters, not of the cases. Empty: every case is its own cluster.
	Cluster string `json:"cluster,omitempty"`
	// RefusalMarkers, when not nil, judge refusal for every case (the
	// suite's refusal_markers: a list, or the name of a built-in set). nil:
	// each case uses the built-in set of its tags.lang (RefusalMarkerSet),
	// else DefaultRefusalMarkers.
	RefusalMarkers []string `json:"refusal_markers,omitempty"`
	Tools          []string `json:"tools,omitempty"`
	// Margins are the equivalence margins of compare's verdict by measure
	// (pass_rate or a metric's canonical name), overriding its defaults;
	// runs record them (RunOptions.Margins).
	Margins map[string]float64 `json:"margins,omitempty"`
	// Prices is the price table of the system's tokens, per model
	// (docs/cost.md); nil when the suite has none.
	Prices PriceTable `json:"prices,omitempty"`
	// Analyzer names the text analysis of the built-in engine ("en", "de",
	// ...); empty means English unless a document or case says otherwise.
	Analyzer string `json:"analyzer,omitempty"`
	// Embeddings and Rerank configure the endpoints of the built-in
	// hybrid target (builtin:hybrid); nil when the suite has none.
	Embeddings *ModelEndpoint `json:"embeddings,omitempty"`
	Rerank     *ModelEndpoint `json:"rerank,omitempty"`
	Gates      []Gate         `json:"gates,omitempty"`
	// Judge is the suite's judge definition (`judge:`), nil when it has
	// none; a --judge file replaces it (package judge).
	Judge *JudgeConfig `json:"judge,omitempty"`
	// NuggetNoVital is what the vital nugget scores of a case without a
	// vital nugget are: NuggetNoVitalUndefined ("" too) or
	// NuggetNoVitalZero (nuggetizer's reading).
	NuggetNoVital string `json:"nugget_no_vital,omitempty"`
	Cases         []Case `json:"cases"`

	// Warnings found while loading (data, never printed by the loader).
	Warnings []string `json:"-"`
}

// DefaultMetrics is the metric set used when a suite names none (docs/suite.md).
var DefaultMetrics = []string{"ndcg@10", "recall@5", "recall@10", "mrr", "map", "hit@5"}

// DefaultRefusalMarkers are the English refusal markers: the answer
// substrings that mean "refused" when a target does not report refusal
// itself and the case has no tags.lang with a set of its own
// (docs/expectations.md#refusal). Matched case-insensitively (Unicode case
// folding). Each is a phrase a refusal says and an ordinary answer does not
// ("no information" alone matched "the log keeps no information about
// passwords"); a phrase with an apostrophe is also listed with ’ (U+2019).
var DefaultRefusalMarkers = withCurlyApostrophes([]string{
	"i don't know", "i do not know",
	"cannot answer", "can't answer", "unable to answer", "not able to answer",
	"don't have enough information", "do not have enough information",
	"don't have any information", "do not have any information",
	"don't have information", "do not have information",
	"i have no information",
	"documents do not contain", "context does not contain",
})

// refusalMarkerSets are the built-in sets by language (the languages of the
// quickstart and of GNO's fixtures). Keep docs/expectations.md#refusal in
// step.
var refusalMarkerSets = map[string][]string{
	"en": DefaultRefusalMarkers,
	"de": withCurlyApostrophes([]string{
		"ich weiß nicht", "weiß ich nicht", "ich weiß es nicht",
		"kann ich nicht beantworten", "kann ich leider nicht beantworten",
		"lässt sich nicht beantworten", "kann nicht beantwortet werden",
		"habe keine informationen", "liegen keine informationen vor", "liegen mir keine informationen",
		"dokumente enthalten keine", "kontext enthält keine",
	}),
	"fr": withCurlyApostrophes([]string{
		"je ne sais pas",
		"je ne peux pas répondre", "impossible de répondre", "ne permettent pas de répondre",
		"je n'ai pas d'information", "je n'ai pas assez d'information", "je n'ai aucune information",
		"les documents ne contiennent pas", "le contexte ne contient pas",
	}),
	"it": withCurlyApostrophes([]string{
		"non lo so", "non so rispondere",
		"non posso rispondere", "non sono in grado di rispondere", "impossibile rispondere",
		"non ho informazioni", "non ho abbastanza informazioni",
		"i documenti non contengono", "il contesto non contiene",
	}),
}

// RefusalMarkerSet returns a copy of the built-in refusal markers of a
// language: lang is a language tag, matched by its primary subtag
// case-insensitively ("de", "DE", "de-CH" and "de_AT" give the German
// set). ok is false when there is no set for it (RefusalMarkerLanguages).
func RefusalMarkerSet(lang string) (markers []string, ok bool) {
	set, ok := refusalMarkerSets[primaryLanguage(lang)]
	if !ok {
		return nil, false
	}
	return append([]string(nil), set...), true
}

// RefusalMarkerLanguages lists the languages with a built-in refusal
// marker set, sorted.
func RefusalMarkerLanguages() []string { return []string{"de", "en", "fr", "it"} }

// primaryLanguage is the lower-cased primary subtag of a language tag.
func primaryLanguage(tag string) string {
	if i := strings.IndexAny(tag, "-_"); i >= 0 {
		tag = tag[:i]
	}
	return strings.ToLower(strings.TrimSpace(tag))
}

// withCurlyApostrophes returns list with, after each phrase holding an
// ASCII apostrophe, the same phrase with U+2019 (what many models write).
func withCurlyApostrophes(list []string) []string {
	out := make([]string, 0, len(list))
	for _, m := range list {
		out = append(out, m)
		if strings.Contains(m, "'") {
			out = append(out, strings.ReplaceAll(m, "'", "’"))
		}
	}
	return out
}

// DefaultK is the number of results asked of a target when neither the case
// nor the suite defaults say.
const DefaultK = 10

// Defaults are the suite-wide case defaults.
type Defaults struct {
	K             int  `json:"k,omitempty"`
	CaseSensitive bool `json:"case_sensitive,omitempty"`
	// Judge holds the judge bounds every case gets for the criteria its
	// own expect.judge does not state.
	Judge map[string]float64 `json:"judge,omitempty"`
}

// Gain selects the nDCG gain function.
type Gain string

// Gains.
const (
	GainLinear      Gain = "linear"      // gain = grade (trec_eval)
	GainExponential Gain = "exponential" // gain = 2^grade - 1
)

// RecallOver values (Suite.RecallOver).
const (
	RecallOverJudged   = "judged"   // relevant = judged >= 1 (trec_eval, BEIR)
	RecallOverRelevant = "relevant" // relevant = the case's relevant list (GNO)
)

// Gate is one gate expression with where it was written.
type Gate struct {
	Expr string `json:"expr"`
	// Source is "file:line" of the expression, or "--gate" for a flag.
	Source string `json:"source,omitempty"`
}

// Document is one corpus document.
type Document struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	Text  string `json:"text"`
	// Path is the document's file path relative to the corpus root, when it
	// came from a directory.
	Path string            `json:"path,omitempty"`
	Lang string            `json:"lang,omitempty"`
	Meta map[string]string `json:"meta,omitempty"`
}

// Case is one golden-set entry.
type Case struct {
	ID     string            `json:"id"`
	Query  string            `json:"query"`
	Tags   map[string]string `json:"tags,omitempty"`
	Guards string            `json:"guards,omitempty"`
	// K is the number of results asked of the target and the cutoff of
	// expect.retrieves. Zero means the suite default.
	K int `json:"k,omitempty"`
	// Judgments maps document id to relevance grade (0 = judged
	// non-relevant). The native `relevant:` list is merged in with grade 1.
	Judgments map[string]int `json:"judgments,omitempty"`
	// Relevant, when not empty, is the set of documents the binary measures
	// count as relevant (the suite has recall_over: relevant): a judged
	// document outside it is non-relevant for recall, precision, mrr, map,
	// hit and r-prec, while nDCG keeps its grade. Empty: grade >= 1.
	Relevant []string          `json:"relevant,omitempty"`
	Expect   Expect            `json:"expect"`
	Surface  string            `json:"surface,omitempty"`
	Vars     map[string]string `json:"vars,omitempty"`
	// Review is ReviewPending for a case proposed from traces that no
	// person has checked yet (assay lint reports it); empty for an active
	// case.
	Review string `json:"review,omitempty"`
	// Provenance is where a proposed case came from: trace_id, span_id,
	// service, time, session, feedback, reason (docs/traces.md).
	Provenance map[string]string `json:"provenance,omitempty"`
	// Turns, when not empty, make the case a conversation: the user
	// messages it sends one after another, each with the expectations and
	// judgments of its own answer. Query, Judgments and Relevant are then
	// empty, and Expect holds the conversation's expectations
	// (answer_includes and the other answer kinds over the last answer,
	// calls_tool and tools over every turn's calls, max_turns).
	Turns []Turn `json:"turns,omitempty"`

	// History is the conversation so far when the case is a turn of a
	// conversation, as the runner hands it to the target: the user
	// messages and the answers of the earlier turns, oldest first. Turn is
	// that turn's 1-based number; both are zero for a case of one query.
	History []Message `json:"-"`
	Turn    int       `json:"-"`

	// Source is "file:line" of the case in its suite file, for messages.
	Source string `json:"-"`
	// Position is the case's 1-based position among the cases a shard
	// run selected, before the suite was split (the harness sets it; the
	// result's Position). 0 elsewhere.
	Position int `json:"-"`
}

// Judged reports whether the case has relevance judgments.
func (c Case) Judged() bool { return len(c.Judgments) > 0 }

// IsConversation reports whether the case is a conversation (has turns).
func (c Case) IsConversation() bool { return len(c.Turns) > 0 }

// TurnCase is the case the target is asked for turn i (0-based) of a
// conversation: the turn's query, judgments and expectations, the
// conversation's id, tags, k, surface and variables, history as its
// History and i+1 as its Turn.
func (c Case) TurnCase(i int, history []Message) Case {
	t := c.Turns[i]
	tc := c
	tc.Query = t.Query
	tc.Judgments = t.Judgments
	tc.Relevant = t.Relevant
	tc.Expect = t.Expect
	tc.Turns = nil
	tc.History = history
	tc.Turn = i + 1
	if t.Source != "" {
		tc.Source = t.Source
	}
	return tc
}

// Turn is one user message of a conversation case.
type Turn struct {
	Query     string         `json:"query"`
	Judgments map[string]int `json:"judgments,omitempty"`
	Relevant  []string       `json:"relevant,omitempty"`
	Expect    Expect         `json:"expect"`
	// Source is "file:line" of the turn in its suite file.
	Source string `json:"-"`
}

// Message is one message of a conversation's history: Role is "user" or
// "assistant" (the names of OpenAI-style chat APIs), Content its text.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Message roles.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// ToolTrajectory is the tools expectation: the calls the system should
// make, compared with the calls it made (Observation.Tools) by Mode, their
// arguments by Args (package grade's Trajectory).
type ToolTrajectory struct {
	// Mode is TrajectoryStrict (also ""), TrajectoryUnordered,
	// TrajectorySubset or TrajectorySuperset.
	Mode string `json:"mode,omitempty"`
	// Args is how the arguments of every call are compared unless the call
	// says otherwise: ArgsExact (also ""), ArgsIgnore, ArgsSubset or
	// ArgsSuperset.
	Args  string         `json:"args,omitempty"`
	Calls []ExpectedCall `json:"calls"`
}

// ExpectedCall is one call of a ToolTrajectory.
type ExpectedCall struct {
	Name string `json:"name"`
	// Args are the expected arguments, as JSON values (numbers float64).
	Args map[string]any `json:"args,omitempty"`
	// ArgsMatch overrides the trajectory's Args for this call.
	ArgsMatch string `json:"args_match,omitempty"`
	// ArgsRegex holds, per argument, a regular expression its value must
	// match (a string as is, any other value as its JSON text); such an
	// argument must be present and is left out of the Args comparison.
	ArgsRegex map[string]string `json:"args_regex,omitempty"`
}

// Trajectory match modes (ToolTrajectory.Mode), as LangChain's agentevals
// name them.
const (
	TrajectoryStrict    = "strict"    // the same calls in the same order
	TrajectoryUnordered = "unordered" // the same calls in any order
	TrajectorySubset    = "subset"    // no call beyond the expected ones
	TrajectorySuperset  = "superset"  // every expected call, others allowed
)

// Argument match modes (ToolTrajectory.Args, ExpectedCall.ArgsMatch).
const (
	ArgsExact    = "exact"    // the same arguments, no more, no fewer
	ArgsIgnore   = "ignore"   // arguments are not compared
	ArgsSubset   = "subset"   // every argument given is expected, with its value
	ArgsSuperset = "superset" // every expected argument is given, with its value
)

// Expect holds every expectation kind (docs/expectations.md). A zero field states nothing.
type Expect struct {
	AnswerIncludes    []string `json:"answer_includes,omitempty"`
	AnswerIncludesAny []string `json:"answer_includes_any,omitempty"`
	AnswerExcludes    []string `json:"answer_excludes,omitempty"`
	AnswerMatches     string   `json:"answer_matches,omitempty"`
	// CaseSensitive applies to the three substring kinds; nil means the
	// suite default (case-insensitive unless defaults.case_sensitive).
	CaseSensitive     *bool    `json:"case_sensitive,omitempty"`
	Retrieves         []string `json:"retrieves,omitempty"`
	Cites             []string `json:"cites,omitempty"`
	CitesAny          []string `json:"cites_any,omitempty"`
	Cited             []string `json:"cited,omitempty"`     // cited, retrieved or not (weaker than Cites)
	CitedAny          []string `json:"cited_any,omitempty"` // weaker than CitesAny, as Cited
	CitesOnlySurfaced bool     `json:"cites_only_surfaced,omitempty"`
	NoCitations       bool     `json:"no_citations,omitempty"`
	Refusal           *bool    `json:"refusal,omitempty"`
	CallsTool         []string `json:"calls_tool,omitempty"`
	CallsAnyTool      bool     `json:"calls_any_tool,omitempty"`
	NeverCalls        []string `json:"never_calls,omitempty"`
	StopsAtApproval   bool     `json:"stops_at_approval,omitempty"`
	Outcome           string   `json:"outcome,omitempty"`
	// JSONSchema is the schema path as written; JSONSchemaPath is it resolved
	// against the suite's directory.
	JSONSchema     string   `json:"json_schema,omitempty"`
	JSONSchemaPath string   `json:"-"`
	MaxLatencyMs   *float64 `json:"max_latency_ms,omitempty"`
	// Tools is the expected tool trajectory (nil: none).
	Tools *ToolTrajectory `json:"tools,omitempty"`
	// MaxTurns, on a conversation, asks that its answer expectations be
	// met by the answer of one of its first MaxTurns turns (resolved
	// within N turns) instead of by the last answer; 0 states nothing.
	MaxTurns int `json:"max_turns,omitempty"`
	// Judge holds the least judge score per criterion (expect.judge); it
	// is checked only when a judge runs (package judge), and Empty leaves
	// it out.
	Judge map[string]float64 `json:"judge,omitempty"`
	// Nuggets are the facts the answer is scored on (nugget metrics); like
	// judgments they feed metrics, not the case's pass, and Empty leaves
	// them out.
	Nuggets []Nugget `json:"nuggets,omitempty"`
}

// Empty reports whether no deterministic expectation is stated (judge
// bounds are not counted: they are checked only when a judge runs).
func (e Expect) Empty() bool {
	return len(e.AnswerIncludes) == 0 && len(e.AnswerIncludesAny) == 0 && len(e.AnswerExcludes) == 0 &&
		e.AnswerMatches == "" && len(e.Retrieves) == 0 && len(e.Cites) == 0 && len(e.CitesAny) == 0 &&
		len(e.Cited) == 0 && len(e.CitedAny) == 0 &&
		!e.CitesOnlySurfaced && !e.NoCitations && e.Refusal == nil && len(e.CallsTool) == 0 &&
		!e.CallsAnyTool && len(e.NeverCalls) == 0 && !e.StopsAtApproval && e.Outcome == "" &&
		e.JSONSchema == "" && e.MaxLatencyMs == nil && e.Tools == nil && e.MaxTurns == 0
}
