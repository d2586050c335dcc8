package assay

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
	// CorpusSource says where the corpus came from (a path, or "inline").
	CorpusSource string `json:"corpus_source,omitempty"`

	Defaults       Defaults `json:"defaults"`
	Metrics        []string `json:"metrics,omitempty"`
	Gain           Gain     `json:"gain,omitempty"`
	RefusalMarkers []string `json:"refusal_markers,omitempty"`
	Tools          []string `json:"tools,omitempty"`
	// Analyzer names the text analysis of the built-in engine ("en", "de",
	// ...); empty means English unless a document or case says otherwise.
	Analyzer string `json:"analyzer,omitempty"`
	Gates    []Gate `json:"gates,omitempty"`
	Cases    []Case `json:"cases"`

	// Warnings found while loading (data, never printed by the loader).
	Warnings []string `json:"-"`
}

// DefaultMetrics is the metric set used when a suite names none (docs/suite.md).
var DefaultMetrics = []string{"ndcg@10", "recall@5", "recall@10", "mrr", "map", "hit@5"}

// DefaultRefusalMarkers are the answer substrings that mean "refused" when a
// target does not report refusal itself (docs/expectations.md#refusal). Matched case-insensitively.
var DefaultRefusalMarkers = []string{"do not contain", "cannot answer", "no information"}

// DefaultK is the number of results asked of a target when neither the case
// nor the suite defaults say.
const DefaultK = 10

// Defaults are the suite-wide case defaults.
type Defaults struct {
	K             int  `json:"k,omitempty"`
	CaseSensitive bool `json:"case_sensitive,omitempty"`
}

// Gain selects the nDCG gain function.
type Gain string

// Gains.
const (
	GainLinear      Gain = "linear"      // gain = grade (trec_eval)
	GainExponential Gain = "exponential" // gain = 2^grade - 1
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
	Judgments map[string]int    `json:"judgments,omitempty"`
	Expect    Expect            `json:"expect"`
	Surface   string            `json:"surface,omitempty"`
	Vars      map[string]string `json:"vars,omitempty"`

	// Source is "file:line" of the case in its suite file, for messages.
	Source string `json:"-"`
}

// Judged reports whether the case has relevance judgments.
func (c Case) Judged() bool { return len(c.Judgments) > 0 }

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
}

// Empty reports whether no expectation is stated.
func (e Expect) Empty() bool {
	return len(e.AnswerIncludes) == 0 && len(e.AnswerIncludesAny) == 0 && len(e.AnswerExcludes) == 0 &&
		e.AnswerMatches == "" && len(e.Retrieves) == 0 && len(e.Cites) == 0 && len(e.CitesAny) == 0 &&
		!e.CitesOnlySurfaced && !e.NoCitations && e.Refusal == nil && len(e.CallsTool) == 0 &&
		!e.CallsAnyTool && len(e.NeverCalls) == 0 && !e.StopsAtApproval && e.Outcome == "" &&
		e.JSONSchema == "" && e.MaxLatencyMs == nil
}
