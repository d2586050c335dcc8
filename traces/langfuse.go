package traces

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/assay-eval/assay"
)

// Langfuse's own trace export: the trace objects of its public API (GET
// /api/public/traces/{id}), as a list, one a line, or under "data". Read
// when a document has no "resourceSpans" and looks like one (an "id" and
// "observations"); docs/traces.md#langfuse has the mapping.

// LangfuseTrace is one Langfuse trace with its observations and scores.
type LangfuseTrace struct {
	ID           string                `json:"id"`
	Timestamp    string                `json:"timestamp"`
	Name         string                `json:"name"`
	Input        json.RawMessage       `json:"input"`
	Output       json.RawMessage       `json:"output"`
	SessionID    string                `json:"sessionId"`
	Tags         []string              `json:"tags"`
	Metadata     json.RawMessage       `json:"metadata"`
	Latency      *float64              `json:"latency"` // seconds
	Observations []LangfuseObservation `json:"observations"`
	Scores       []LangfuseScore       `json:"scores"`
}

// LangfuseObservation is a span, generation, retriever, tool ... of a trace.
type LangfuseObservation struct {
	ID            string          `json:"id"`
	Type          string          `json:"type"`
	Name          string          `json:"name"`
	StartTime     string          `json:"startTime"`
	EndTime       string          `json:"endTime"`
	Model         string          `json:"model"`
	Input         json.RawMessage `json:"input"`
	Output        json.RawMessage `json:"output"`
	Level         string          `json:"level"`
	StatusMessage string          `json:"statusMessage"`
	Usage         *struct {
		Input  *float64 `json:"input"`
		Output *float64 `json:"output"`
	} `json:"usage"`
}

// LangfuseScore is a score of a trace: a user's feedback or an evaluation.
type LangfuseScore struct {
	Name        string   `json:"name"`
	Value       *float64 `json:"value"`
	StringValue string   `json:"stringValue"`
	DataType    string   `json:"dataType"`
	Source      string   `json:"source"`
	Comment     string   `json:"comment"`
}

// looksLangfuse reports whether a JSON value is Langfuse traces: an object
// with "id" and "observations", a list of them, or {"data": [...]}.
func looksLangfuse(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && (b[0] == '[' || bytes.Contains(b, []byte(`"observations"`)) || bytes.HasPrefix(b, []byte(`{"data"`)))
}

// langfuseTraces decodes one JSON value of Langfuse traces.
func langfuseTraces(raw json.RawMessage) ([]LangfuseTrace, error) {
	t := bytes.TrimSpace(raw)
	if len(t) > 0 && t[0] == '[' {
		var list []LangfuseTrace
		err := json.Unmarshal(t, &list)
		return list, err
	}
	var wrap struct {
		Data []LangfuseTrace `json:"data"`
	}
	if bytes.Contains(t, []byte(`"data"`)) {
		if err := json.Unmarshal(t, &wrap); err == nil && len(wrap.Data) > 0 {
			return wrap.Data, nil
		}
	}
	var one LangfuseTrace
	err := json.Unmarshal(t, &one)
	return []LangfuseTrace{one}, err
}

func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

func rawText(b json.RawMessage, keys []string) string {
	t := bytes.TrimSpace(b)
	if len(t) == 0 || string(t) == "null" {
		return ""
	}
	var v any
	if json.Unmarshal(t, &v) != nil {
		return ""
	}
	return textOfValue(v, keys)
}

// langfuseObservation makes the observation of a Langfuse trace; ok is
// false when it has neither a retrieval nor an answer.
func langfuseObservation(tr LangfuseTrace) (assay.Observation, bool) {
	var o assay.Observation
	o.Case = tr.ID
	prov := &assay.Provenance{Source: "langfuse", TraceID: tr.ID, Service: tr.Name, Session: tr.SessionID}
	start, hasStart := parseTime(tr.Timestamp)
	if hasStart {
		prov.Time = start.UTC().Format(time.RFC3339Nano)
	}
	obs := slices.Clone(tr.Observations)
	slices.SortStableFunc(obs, func(a, b LangfuseObservation) int { return cmp.Compare(a.StartTime, b.StartTime) })
	var lastEnd time.Time
	hasRetrieval := false
	var rankEnd string
	var lastGen *LangfuseObservation
	var in, out float64
	var haveIn, haveOut bool
	for i := range obs {
		ob := &obs[i]
		typ := strings.ToUpper(ob.Type)
		s, okS := parseTime(ob.StartTime)
		e, okE := parseTime(ob.EndTime)
		if okS && okE && hasStart {
			o.Spans = append(o.Spans, assay.Span{Name: ob.Name, StartMs: max(0, float64(s.Sub(start))/1e6), EndMs: max(0, float64(e.Sub(start))/1e6)})
		}
		if okE && e.After(lastEnd) {
			lastEnd = e
		}
		switch typ {
		case "RETRIEVER":
			hasRetrieval = true
			if ob.EndTime >= rankEnd {
				if hits := langfuseDocs(ob.Output); len(hits) > 0 || o.Retrieved == nil {
					o.Retrieved, rankEnd = hits, ob.EndTime
				}
			}
			if prov.Query == "" {
				prov.Query = rawText(ob.Input, queryKeys)
			}
		case "GENERATION":
			if lastGen == nil || ob.EndTime >= lastGen.EndTime {
				lastGen = ob
			}
			if ob.Usage != nil {
				if ob.Usage.Input != nil {
					in, haveIn = in+*ob.Usage.Input, true
				}
				if ob.Usage.Output != nil {
					out, haveOut = out+*ob.Usage.Output, true
				}
			}
		case "TOOL":
			tc := assay.ToolCall{Name: ob.Name}
			if t := bytes.TrimSpace(ob.Input); len(t) > 0 && string(t) != "null" && json.Valid(t) {
				tc.Args = assay.RawJSON(t)
			}
			if strings.EqualFold(ob.Level, "ERROR") {
				tc.Error = cmp.Or(ob.StatusMessage, "error")
			}
			o.Tools = append(o.Tools, tc)
		}
	}
	if q := rawText(tr.Input, queryKeys); q != "" {
		prov.Query = q
	}
	o.Answer = rawText(tr.Output, answerKeys)
	if lastGen != nil {
		if o.Answer == "" {
			o.Answer = rawText(lastGen.Output, answerKeys)
		}
		if lastGen.Model != "" {
			o.Versions = map[string]string{"model": lastGen.Model}
		}
		if prov.Query == "" {
			var v any
			if json.Unmarshal(lastGen.Input, &v) == nil {
				if list, ok := v.([]any); ok {
					prov.Query = lastMessage(list, "user")
				}
			}
		}
	}
	switch {
	case tr.Latency != nil && *tr.Latency >= 0 && *tr.Latency*1000 <= maxLatencyMs:
		ms := *tr.Latency * 1000
		o.LatencyMs = &ms
	case hasStart && lastEnd.After(start) && float64(lastEnd.Sub(start))/1e6 <= maxLatencyMs:
		ms := float64(lastEnd.Sub(start)) / 1e6
		o.LatencyMs = &ms
	}
	if haveIn || haveOut {
		o.Usage = map[string]any{}
		if haveIn {
			o.Usage["input_tokens"] = in
		}
		if haveOut {
			o.Usage["output_tokens"] = out
		}
	}
	for _, sc := range tr.Scores {
		if fb := langfuseFeedback(sc); fb != nil {
			if prov.Feedback == nil {
				prov.Feedback = fb
			}
			continue
		}
		prov.Evaluations = append(prov.Evaluations, assay.Evaluation{Name: sc.Name, Score: sc.Value, Label: sc.StringValue, Explanation: sc.Comment})
	}
	if len(tr.Tags) > 0 {
		prov.Tags = map[string]string{"tags": strings.Join(tr.Tags, ",")}
	}
	var meta map[string]any
	if json.Unmarshal(tr.Metadata, &meta) == nil {
		for _, k := range sortedKeys(meta) {
			if v, ok := meta[k].(string); ok {
				if prov.Tags == nil {
					prov.Tags = map[string]string{}
				}
				if _, taken := prov.Tags[k]; !taken {
					prov.Tags[k] = v
				}
			}
		}
	}
	o.Provenance = prov
	return o, hasRetrieval || o.Answer != ""
}

// langfuseFeedback is a score that is a user's feedback: one whose name
// holds "feedback", "thumb" or "user", or that a person gave through the
// API or the annotation UI with a boolean or categorical value; nil for
// an evaluation.
func langfuseFeedback(sc LangfuseScore) *assay.Feedback {
	n := strings.ToLower(sc.Name)
	user := strings.Contains(n, "feedback") || strings.Contains(n, "thumb") || strings.Contains(n, "user")
	if !user && !(sc.Source != "EVAL" && (sc.DataType == "BOOLEAN" || sc.DataType == "CATEGORICAL")) {
		return nil
	}
	fb := &assay.Feedback{Score: sc.Value, Comment: sc.Comment}
	switch {
	case sc.StringValue != "":
		fb.Label = thumbs(sc.StringValue)
	case sc.DataType == "BOOLEAN" && sc.Value != nil:
		fb.Label = map[bool]string{true: "thumbs_up", false: "thumbs_down"}[*sc.Value >= 1]
	}
	return fb
}

// langfuseDocs reads a retriever's output: a list of documents, or an
// object holding one under "documents"; a document is {id, score,
// content | page_content | text, metadata: {id, title, source | path,
// score}}.
func langfuseDocs(b json.RawMessage) []assay.Hit {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	if m, ok := v.(map[string]any); ok {
		v = m["documents"]
	}
	list, _ := v.([]any)
	var out []assay.Hit
	for _, it := range list {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		fields := map[string]any{}
		for k, x := range m {
			fields[k] = x
		}
		if pc, ok := m["page_content"]; ok && fields["content"] == nil {
			fields["content"] = pc
		}
		if meta, ok := m["metadata"].(map[string]any); ok {
			if fields["score"] == nil && meta["score"] != nil {
				fields["score"] = meta["score"]
			}
			fields["metadata"] = meta
		}
		out = append(out, hitOf(fields))
	}
	return out
}
