package traces

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assay-eval/assay"
)

// EvaluationEvent is the OpenTelemetry GenAI event name of one evaluator's
// result.
const EvaluationEvent = "gen_ai.evaluation.result"

// ScopeName is the instrumentation scope of the spans Evaluations writes.
const ScopeName = "github.com/assay-eval/assay"

// Evaluations is a run (or the runs of a matrix) as OTLP trace data, so
// that an evaluation lands next to the production traces in the team's
// own stack (docs/traces.md#results-out):
//
//   - one resource per run (service.name "assay", the run id, the suite's
//     name and fingerprint: the golden set's identity), holding one trace
//     whose id is the run id's 16 bytes;
//   - a root span "assay run SUITE" from the run's start to its finish,
//     with one gen_ai.evaluation.result event per summary measure
//     (pass_rate and each metric's mean);
//   - a child span "assay case ID" per case and trial, with one event per
//     check (evaluator name "assay.check.KIND", score 1 or 0, label
//     "pass" or "fail", the check's detail as explanation) and one per
//     metric (evaluator name the metric, its value as score).
//
// Span ids are derived from the run id, the case and the trial, so the
// same run gives the same document.
//
// The cases are read with Run.EachCase (a run whose cases stay on disk
// is read from there); its error is returned.
func Evaluations(runs ...*assay.Run) (TracesData, error) {
	td := TracesData{ResourceSpans: []ResourceSpans{}}
	for _, run := range runs {
		rs, err := runSpans(run)
		if err != nil {
			return td, err
		}
		td.ResourceSpans = append(td.ResourceSpans, rs)
	}
	return td, nil
}

// WriteEvaluations writes Evaluations(runs...) as one line of OTLP/JSON
// (the collector's file exporter format).
func WriteEvaluations(w io.Writer, runs ...*assay.Run) error {
	td, err := Evaluations(runs...)
	if err != nil {
		return err
	}
	b, err := json.Marshal(td)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func runSpans(run *assay.Run) (ResourceSpans, error) {
	traceID := strings.ReplaceAll(run.RunID, "-", "")
	if !isHexID(traceID, 16) {
		traceID = derivedID(32, "trace", run.RunID)
	}
	suiteAttrs := []KeyValue{
		{Key: "assay.suite.name", Value: String(run.Suite.Name)},
		{Key: "assay.suite.fingerprint", Value: String(run.Suite.Fingerprint)},
		{Key: "assay.run.id", Value: String(run.RunID)},
	}
	res := Resource{Attributes: append([]KeyValue{
		{Key: "service.name", Value: String("assay")},
		{Key: "service.version", Value: String(run.AssayVersion)},
	}, suiteAttrs...)}
	if len(run.Variant) > 0 {
		for _, k := range sortedKeys(run.Variant) {
			res.Attributes = append(res.Attributes, KeyValue{Key: "assay.variant." + k, Value: String(run.Variant[k])})
		}
	}
	start, end := nanos(run.StartedAt), nanos(run.FinishedAt)
	end = max(end, start)
	rootID := derivedID(16, "run", run.RunID)
	root := Span{TraceID: traceID, SpanID: rootID, Name: "assay run " + run.Suite.Name, Kind: 1,
		StartTimeUnixNano: start, EndTimeUnixNano: end,
		Attributes: append(slices.Clone(suiteAttrs),
			KeyValue{Key: "assay.run.status", Value: String(string(run.Status))},
			KeyValue{Key: "assay.target.kind", Value: String(run.Target.Kind)}),
	}
	if p := run.Summary.PassRate; p != nil {
		root.Events = append(root.Events, evalEvent(end, "pass_rate", p, "", "", suiteAttrs))
	}
	for _, name := range sortedKeys(run.Summary.Metrics) {
		m := run.Summary.Metrics[name]
		mean := m.Mean
		root.Events = append(root.Events, evalEvent(end, name, &mean, "", "mean over "+strconv.Itoa(m.N)+" judged case(s)", suiteAttrs))
	}
	spans := []Span{root}
	err := run.EachCase(func(c assay.CaseResult) error {
		trial := strconv.Itoa(c.Trial)
		cs := Span{TraceID: traceID, SpanID: derivedID(16, "case", run.RunID, c.ID, trial), ParentSpanID: rootID,
			Name: "assay case " + c.ID, Kind: 1, StartTimeUnixNano: start, EndTimeUnixNano: start,
			Attributes: []KeyValue{
				{Key: "assay.case.id", Value: String(c.ID)},
				{Key: "assay.case.trial", Value: Integer(int64(c.Trial))},
			}}
		if c.LatencyMs != nil && *c.LatencyMs >= 0 {
			cs.EndTimeUnixNano = start + Uint(*c.LatencyMs*1e6)
		}
		if c.Pass != nil {
			cs.Attributes = append(cs.Attributes, KeyValue{Key: "assay.case.pass", Value: Bool(*c.Pass)})
		}
		if c.Error != nil {
			cs.Status = Status{Code: StatusError, Message: string(c.Error.Class) + ": " + c.Error.Message}
		}
		caseAttrs := append(slices.Clone(suiteAttrs), KeyValue{Key: "assay.case.id", Value: String(c.ID)}, KeyValue{Key: "assay.case.trial", Value: Integer(int64(c.Trial))})
		for _, ch := range c.Checks {
			score, label := 0.0, "fail"
			if ch.Pass {
				score, label = 1, "pass"
			}
			cs.Events = append(cs.Events, evalEvent(end, "assay.check."+ch.Kind, &score, label, ch.Detail, caseAttrs))
		}
		for _, name := range sortedKeys(c.Metrics) {
			v := c.Metrics[name]
			cs.Events = append(cs.Events, evalEvent(end, name, &v, "", "", caseAttrs))
		}
		spans = append(spans, cs)
		return nil
	})
	return ResourceSpans{Resource: res, ScopeSpans: []ScopeSpans{{Scope: Scope{Name: ScopeName, Version: run.AssayVersion}, Spans: spans}}}, err
}

func evalEvent(t Uint, name string, score *float64, label, explanation string, extra []KeyValue) Event {
	e := Event{TimeUnixNano: t, Name: EvaluationEvent, Attributes: []KeyValue{{Key: "gen_ai.evaluation.name", Value: String(name)}}}
	if score != nil {
		e.Attributes = append(e.Attributes, KeyValue{Key: "gen_ai.evaluation.score.value", Value: Float(*score)})
	}
	if label != "" {
		e.Attributes = append(e.Attributes, KeyValue{Key: "gen_ai.evaluation.score.label", Value: String(label)})
	}
	if explanation != "" {
		e.Attributes = append(e.Attributes, KeyValue{Key: "gen_ai.evaluation.explanation", Value: String(explanation)})
	}
	e.Attributes = append(e.Attributes, extra...)
	return e
}

func nanos(t time.Time) Uint {
	if t.IsZero() || t.UnixNano() < 0 {
		return 0
	}
	return Uint(t.UnixNano())
}

// derivedID is an id of n hex digits from the sha256 of parts.
func derivedID(n int, parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:n/2])
}
