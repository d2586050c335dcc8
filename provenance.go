package assay

// Provenance says where an observation imported from production traces
// came from, and why it may be worth a case (docs/traces.md): the trace,
// the service, the time, the conversation, the question asked, and what
// the user and any evaluator said of the answer. A case proposed from the
// observation keeps it (Case.Provenance). All fields are optional.
type Provenance struct {
	// Source is the format the observation was read from: "otlp".
	Source  string `json:"source,omitempty"`
	TraceID string `json:"trace_id,omitempty"`
	SpanID  string `json:"span_id,omitempty"`
	Service string `json:"service,omitempty"`
	// Time is the root span's start, RFC 3339 in UTC.
	Time string `json:"time,omitempty"`
	// Session is the conversation or session id the trace carried.
	Session string `json:"session,omitempty"`
	// Query is the question the user asked (an observation has no query
	// of its own: the case holds it).
	Query string `json:"query,omitempty"`
	// Status is "error" when the root span ended in error.
	Status string `json:"status,omitempty"`
	// Tags are string values the trace carried as metadata or tags.
	Tags        map[string]string `json:"tags,omitempty"`
	Feedback    *Feedback         `json:"feedback,omitempty"`
	Evaluations []Evaluation      `json:"evaluations,omitempty"`
}

// Feedback is what a user said of an answer: a label ("thumbs_down",
// "thumbs_up", or as the trace wrote it), a score, a comment.
type Feedback struct {
	Label   string   `json:"label,omitempty"`
	Score   *float64 `json:"score,omitempty"`
	Comment string   `json:"comment,omitempty"`
}

// Evaluation is one evaluator's verdict on an answer (an OpenTelemetry
// gen_ai.evaluation.result).
type Evaluation struct {
	Name        string   `json:"name"`
	Score       *float64 `json:"score,omitempty"`
	Label       string   `json:"label,omitempty"`
	Explanation string   `json:"explanation,omitempty"`
}

// ReviewPending is the review state of a proposed case that no person has
// checked yet (Case.Review). A case is active when it has no review field.
const ReviewPending = "pending"
