package traces_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/traces"
)

func importFixtures(t *testing.T) *traces.Result {
	t.Helper()
	res, err := traces.Import([]string{"testdata/openinference.json", "testdata/genai.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func byCase(res *traces.Result) map[string]assay.Observation {
	m := map[string]assay.Observation{}
	for _, o := range res.Observations {
		m[o.Case] = o
	}
	return m
}

// An OpenInference trace: CHAIN root, RETRIEVER and LLM children.
func TestImportOpenInference(t *testing.T) {
	t.Parallel()
	res := importFixtures(t)
	o, ok := byCase(res)["5c0a3f4e2b1d4c6e8f9a0b1c2d3e4f50"]
	if !ok {
		t.Fatal("trace 5c0a... gave no observation")
	}
	if got := o.Ranking(); len(got) != 1 || got[0] != "billing.md" || o.Retrieved[0].Score != 7.5 || o.Retrieved[0].Text != "Refunds take 5 days." {
		t.Errorf("retrieved %+v, want billing.md 7.5 with its content", o.Retrieved)
	}
	if o.Answer != "I do not know why the invoice was charged twice." {
		t.Errorf("answer %q: want the root's output.value", o.Answer)
	}
	p := o.Provenance
	if p == nil || p.TraceID != "5c0a3f4e2b1d4c6e8f9a0b1c2d3e4f50" || p.Service != "kb-api" || p.Session != "conv-78" || p.Time != "2025-11-25T12:00:01Z" {
		t.Fatalf("provenance %+v", p)
	}
	if !strings.HasPrefix(p.Query, "I am jane.doe@example.com") {
		t.Errorf("query %q: want the question of input.value's JSON", p.Query)
	}
	if p.Feedback == nil || p.Feedback.Label != "thumbs_down" || p.Feedback.Comment != "wrong, it was charged twice" {
		t.Errorf("feedback %+v, want thumbs_down with its comment", p.Feedback)
	}
	if o.LatencyMs == nil || *o.LatencyMs != 850 {
		t.Errorf("latency %v, want 850 (the root span)", o.LatencyMs)
	}
	if o.Usage["input_tokens"] != 812.0 || o.Usage["output_tokens"] != 96.0 || o.Versions["model"] != "gpt-4o-mini-2024-07-18" {
		t.Errorf("usage %v versions %v", o.Usage, o.Versions)
	}
	if len(o.Spans) != 2 || o.Spans[0].Name != "retrieve" || o.Spans[0].StartMs != 5 || o.Spans[0].EndMs != 45 {
		t.Errorf("spans %+v, want retrieve 5-45 then generate", o.Spans)
	}
	// The other feedback spellings: a score of 0 in a user_feedback event,
	// an emoji label, a boolean attribute.
	m := byCase(res)
	if fb := m["1f2e3d4c5b6a79880a1b2c3d4e5f6071"].Provenance.Feedback; fb == nil || fb.Score == nil || *fb.Score != 0 {
		t.Errorf("score feedback %+v, want score 0", fb)
	}
	if fb := m["2a3b4c5d6e7f80910a1b2c3d4e5f6a7b"].Provenance.Feedback; fb == nil || fb.Label != "thumbs_down" {
		t.Errorf("emoji feedback %+v, want thumbs_down", fb)
	}
	if fb := m["7e2c5160d4f36e8a01bc2d3e4f506172"].Provenance.Feedback; fb == nil || fb.Label != "thumbs_up" {
		t.Errorf("boolean feedback %+v, want thumbs_up", fb)
	}
	if tags := m["7e2c5160d4f36e8a01bc2d3e4f506172"].Provenance.Tags; tags["tenant"] != "acme" {
		t.Errorf("tags %v, want the metadata's tenant", tags)
	}
}

// A GenAI trace split over two services and two lines of a JSONL export.
func TestImportGenAIAcrossServices(t *testing.T) {
	t.Parallel()
	res := importFixtures(t)
	o, ok := byCase(res)["8f3d6271e5047f9b12cd3e4f50617283"]
	if !ok {
		t.Fatal("the GenAI trace gave no observation")
	}
	if got := o.Ranking(); len(got) != 2 || got[0] != "export.md" || got[1] != "gdpr.md" || o.Retrieved[0].Score != 0.93 {
		t.Errorf("ranking %v %+v, want export.md 0.93, gdpr.md", got, o.Retrieved)
	}
	if o.Answer != "Yes: Settings > Export writes a ZIP of your data." {
		t.Errorf("answer %q: want gen_ai.output.messages' text", o.Answer)
	}
	if len(o.Tools) != 1 || o.Tools[0].Name != "create_ticket" || o.Tools[0].Error != "ticket service unavailable" || string(o.Tools[0].Args) != `{"topic": "export"}` {
		t.Errorf("tools %+v", o.Tools)
	}
	p := o.Provenance
	if p.Service != "support-agent" || p.Session != "conv-90" || len(p.Evaluations) != 1 || *p.Evaluations[0].Score != 0.2 {
		t.Errorf("provenance %+v", p)
	}
	if o.Usage["input_tokens"] != 640.0 || o.Versions["model"] != "gpt-4o" {
		t.Errorf("usage %v versions %v", o.Usage, o.Versions)
	}
	// The authorization header's value (and its token) is a secret, taken
	// out of the query where the user pasted it.
	b, _ := json.Marshal(res.Observations)
	if strings.Contains(string(b), "sk-live-0123456789abcdefXYZ") {
		t.Error("the authorization token is in the observations")
	}
	if !strings.Contains(p.Query, "${http.request.header.authorization}") {
		t.Errorf("query %q: want the token replaced by its attribute's name", p.Query)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Name != "embeddings" || !strings.Contains(res.Skipped[0].Reason, "no retrieval and no answer") {
		t.Errorf("skipped %+v, want the embeddings-only trace", res.Skipped)
	}
	if len(res.Observations) != 7 || len(res.Found) != 7 {
		t.Errorf("%d observations, want 7", len(res.Observations))
	}
}

// A trace with two roots that both answer gives two cases, traceid-spanid.
func TestImportTwoRootsInOneTrace(t *testing.T) {
	t.Parallel()
	doc := `{"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{},"spans":[
{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0000000000000001","name":"a","startTimeUnixNano":1,"endTimeUnixNano":"2","attributes":[{"key":"openinference.span.kind","value":{"stringValue":"CHAIN"}},{"key":"output.value","value":{"stringValue":"one"}}],"status":{}},
{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0000000000000002","parentSpanId":"00000000000000ff","name":"b","startTimeUnixNano":"3","endTimeUnixNano":"4","attributes":[{"key":"openinference.span.kind","value":{"stringValue":"CHAIN"}},{"key":"output.value","value":{"stringValue":"{\"answer\": \"two\"}"}}],"status":{}}]}]}]}`
	td, err := traces.Parse("x.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	res := traces.FromData([]string{"x.json"}, [][]traces.TracesData{td})
	if len(res.Observations) != 2 || res.Observations[0].Case != "0102030405060708090a0b0c0d0e0f10-0000000000000001" || res.Observations[1].Answer != "two" {
		t.Errorf("observations %+v", res.Observations)
	}
}

func TestParseErrorsArePositioned(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, src, want string }{
		{"syntax", "{\"resourceSpans\": [\n  {,}]}", "f.json:2:4: malformed trace export: invalid character ',' looking for beginning of object key string"},
		{"type", `{"resourceSpans": [{"scopeSpans": [{"spans": [{"startTimeUnixNano": "soon"}]}]}]}`, "f.json:1:"},
		{"deep", strings.Repeat("[", 1001), "f.json:1:1001: malformed trace export: nested more than 1000 levels deep"},
		{"not otlp", `{"case": "x"}`, `f.json:1:1: not an OTLP/JSON trace export`},
	} {
		_, err := traces.Parse("f.json", []byte(tc.src))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want prefix %q", tc.name, err, tc.want)
		}
	}
}

func TestReadFileRefusesWhatIsNotAFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := traces.ReadFile(dir); err == nil {
		t.Error("a directory was read as a trace export")
	}
	if _, err := traces.Import([]string{dir + "/missing.json"}); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("err = %v, want one naming the file", err)
	}
	b, _ := os.ReadFile("testdata/genai.jsonl")
	if _, err := traces.Parse("genai.jsonl", b); err != nil {
		t.Errorf("JSONL export: %v", err)
	}
}

// An export over the size limit is refused, naming the limit (not
// parallel: it lowers the package-wide limit).
func TestReadFileSizeLimit(t *testing.T) {
	old := boundedfile.TraceExport
	defer func() { boundedfile.TraceExport = old }()
	boundedfile.TraceExport.Max = 100
	_, err := traces.ReadFile("testdata/genai.jsonl")
	if err == nil || !strings.Contains(err.Error(), "trace export") {
		t.Errorf("err = %v, want the trace export's limit", err)
	}
}

// GenAI messages recorded on an event of the span (the newest
// conventions), an agent root that records its own input and output, a
// structured retrieval.documents list, and feedback on an event whose
// name holds "feedback".
func TestImportMessagesOnEvents(t *testing.T) {
	t.Parallel()
	doc := `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"bot"}}]},"scopeSpans":[{"scope":{},"spans":[
{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0000000000000001","name":"invoke_agent","startTimeUnixNano":"1000000","endTimeUnixNano":"9000000",
 "attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"invoke_agent"}}],
 "events":[{"timeUnixNano":"9000000","name":"gen_ai.client.inference.operation.details","attributes":[
   {"key":"gen_ai.input.messages","value":{"arrayValue":{"values":[{"kvlistValue":{"values":[{"key":"role","value":{"stringValue":"user"}},{"key":"parts","value":{"arrayValue":{"values":[{"kvlistValue":{"values":[{"key":"type","value":{"stringValue":"text"}},{"key":"content","value":{"stringValue":"where is my order?"}}]}}]}}}]}}]}}},
   {"key":"gen_ai.output.messages","value":{"stringValue":"[{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"content\":\"It ships today.\"}]}]"}}]},
  {"timeUnixNano":"9500000","name":"app.user_feedback","attributes":[{"key":"rating","value":{"stringValue":"x"}},{"key":"label","value":{"stringValue":"thumbs-down"}}]}],
 "status":{}},
{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0000000000000002","parentSpanId":"0000000000000001","name":"retrieve","startTimeUnixNano":"2000000","endTimeUnixNano":"3000000",
 "attributes":[{"key":"openinference.span.kind","value":{"stringValue":"RETRIEVER"}},{"key":"retrieval.documents","value":{"arrayValue":{"values":[
   {"kvlistValue":{"values":[{"key":"document.id","value":{"stringValue":"orders.md"}},{"key":"document.score","value":{"doubleValue":2.5}}]}}]}}}],"status":{}}]}]}]}`
	td, err := traces.Parse("x.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	res := traces.FromData([]string{"x.json"}, [][]traces.TracesData{td})
	if len(res.Observations) != 1 {
		t.Fatalf("%d observations, want 1 (skipped %+v)", len(res.Observations), res.Skipped)
	}
	o := res.Observations[0]
	if o.Provenance.Query != "where is my order?" || o.Answer != "It ships today." {
		t.Errorf("query %q answer %q", o.Provenance.Query, o.Answer)
	}
	if len(o.Retrieved) != 1 || o.Retrieved[0].ID != "orders.md" || o.Retrieved[0].Score != 2.5 {
		t.Errorf("retrieved %+v", o.Retrieved)
	}
	if fb := o.Provenance.Feedback; fb == nil || fb.Label != "thumbs_down" {
		t.Errorf("feedback %+v, want thumbs_down", fb)
	}
}
