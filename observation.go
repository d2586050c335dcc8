package assay

import (
	"errors"
	"fmt"
)

// Observation is what a target did for one case and one trial. Its JSON form
// is the trace format (docs/observations.md): one object per line in replay and --record files.
type Observation struct {
	Case  string `json:"case"`
	Trial int    `json:"trial"`
	// Turn is the 1-based turn of a conversation case the observation
	// answers; 0 (omitted) for a case of one query.
	Turn            int        `json:"turn,omitempty"`
	Retrieved       []Hit      `json:"retrieved,omitempty"`
	Answer          string     `json:"answer,omitempty"`
	Citations       []Citation `json:"citations,omitempty"`
	Refused         *bool      `json:"refused"`
	Tools           []ToolCall `json:"tools,omitempty"`
	Outcome         string     `json:"outcome,omitempty"`
	ApprovalPending bool       `json:"approval_pending,omitempty"`
	LatencyMs       *float64   `json:"latency_ms,omitempty"`       // backoff waits left out
	Attempts        int        `json:"attempts,omitempty"`         // 1 + retries (HTTP: over all steps); 0: the target does not retry
	LatencyTotalMs  *float64   `json:"latency_total_ms,omitempty"` // with the backoff waits; set only when retried
	Spans           []Span     `json:"spans,omitempty"`
	// Cached marks an observation answered from the response cache (run
	// --cache) instead of the system: it has no latency, attempts or
	// spans of its own, and OriginalLatencyMs is the latency of the live
	// observation the cache holds (docs/cache.md).
	Cached            bool              `json:"cached,omitempty"`
	OriginalLatencyMs *float64          `json:"original_latency_ms,omitempty"`
	Versions          map[string]string `json:"versions,omitempty"`
	Usage             map[string]any    `json:"usage,omitempty"`
	// Measures are run-level measures the system reported with this
	// answer (index_bytes, build_ms); the run keeps, per name, the value
	// of the last case in suite order that reported it (Run.Measures).
	Measures map[string]float64 `json:"measures,omitempty"`
	// Fields holds extra mapped values (for example a JSON field that
	// json_schema validates instead of the answer).
	Fields map[string]any `json:"fields,omitempty"`
	// Provenance is where an observation imported from traces came from
	// (assay traces import); nil for observations a run made.
	Provenance *Provenance `json:"provenance,omitempty"`
	Error      *Error      `json:"error"`
}

// Hit is one retrieved document.
type Hit struct {
	ID    string  `json:"id"`
	Score float64 `json:"score"`
	Title string  `json:"title,omitempty"`
	Path  string  `json:"path,omitempty"`
	Text  string  `json:"text,omitempty"`
}

// Citation is one document an answer cites.
type Citation struct {
	ID    string `json:"id,omitempty"`
	Title string `json:"title,omitempty"`
	Path  string `json:"path,omitempty"`
	Quote string `json:"quote,omitempty"`
	// Start and End, when set, place the citation in the answer: the
	// characters (Unicode code points, 0-based, End exclusive) of the
	// text it supports. Every answer sentence they overlap cites it
	// (docs/observations.md#citations).
	Start *int `json:"start,omitempty"`
	End   *int `json:"end,omitempty"`
}

// ToolCall is one tool the system called.
type ToolCall struct {
	Name  string  `json:"name"`
	Args  RawJSON `json:"args,omitempty"`
	Error string  `json:"error,omitempty"`
}

// Span is a timed phase of the observation, in ms from its start.
type Span struct {
	Name    string  `json:"name"`
	StartMs float64 `json:"start_ms"`
	EndMs   float64 `json:"end_ms"`
}

// ErrorClass classifies why no (valid) observation was obtained.
type ErrorClass string

// Error classes (docs/observations.md#errors).
const (
	ErrTimeout    ErrorClass = "timeout"
	ErrTransport  ErrorClass = "transport"
	ErrHTTPStatus ErrorClass = "http_status"
	ErrMalformed  ErrorClass = "malformed"
	ErrExec       ErrorClass = "exec"
	ErrCanceled   ErrorClass = "canceled"
	ErrMissing    ErrorClass = "missing"
	// ErrNotRun: the case was not sent, because the run's budget for the
	// system under test was reached (docs/cost.md). Never a pass.
	ErrNotRun ErrorClass = "not_run"
)

// Error is an observation's failure, recorded as data.
type Error struct {
	Class   ErrorClass `json:"class"`
	Message string     `json:"message"`
	Status  int        `json:"status,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Class, e.Message) }

// Errorf makes an *Error of the given class.
func Errorf(class ErrorClass, format string, args ...any) *Error {
	return &Error{Class: class, Message: fmt.Sprintf(format, args...)}
}

// AsError returns err as an *Error: itself when it is (or wraps) one,
// otherwise a transport error carrying its message.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Class: ErrTransport, Message: err.Error()}
}

// Key is the hit's identity in a ranking: its id, else its path, else its
// title ("" when it has none of them).
func (h Hit) Key() string {
	switch {
	case h.ID != "":
		return h.ID
	case h.Path != "":
		return h.Path
	}
	return h.Title
}

// Ranking returns the keys (Hit.Key) of the retrieved documents in the order
// returned, a repeated key keeping its first position (docs/metrics.md#per-case-metrics). A hit with no
// id, path or title keeps its rank (as "") and is never a repeat.
func (o Observation) Ranking() []string {
	seen := make(map[string]bool, len(o.Retrieved))
	out := make([]string, 0, len(o.Retrieved))
	for _, h := range o.Retrieved {
		k := h.Key()
		if k != "" && seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, k)
	}
	return out
}
