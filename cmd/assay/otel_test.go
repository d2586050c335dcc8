package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/traces"
)

// run --otel writes one gen_ai.evaluation.result event per check and
// metric of every case, and per summary measure, in the OTLP/JSON shape: the
// file is read back twice, with package traces' reader and with a plain
// decoder that checks the protobuf JSON mapping by hand, and every check of
// the run's own JSON is found in it with its pass or fail.
func TestRunOTelCarriesEveryCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	suitePath := write("suite.yaml", `assay: 1
name: otel-kb
cases:
  - id: q1
    query: how are tokens hashed
    relevant: [security.md]
    expect: {answer_includes: [sha-256], retrieves: [security.md]}
  - id: q2
    query: free tier
    judgments: {pricing.md: 2, faq.md: 1}
    expect: {answer_includes: [1000], max_latency_ms: 50, refusal: false}
  - id: q3
    query: delete my account
    expect: {refusal: true, never_calls: [delete_doc]}
`)
	trace := write("trace.jsonl", `{"case": "q1", "trial": 0, "retrieved": [{"id": "security.md"}], "answer": "SHA-256", "latency_ms": 12}
{"case": "q2", "trial": 0, "retrieved": [{"id": "faq.md"}, {"id": "pricing.md"}], "answer": "1000 a month", "latency_ms": 80}
{"case": "q3", "trial": 0, "answer": "Done.", "tools": [{"name": "delete_doc"}], "latency_ms": 5}
`)
	runJSON, otel := filepath.Join(dir, "run.json"), filepath.Join(dir, "otel.json")
	var out bytes.Buffer
	code := run(context.Background(), []string{"run", suitePath, "--target", "replay:" + trace, "--no-store", "--json", runJSON, "--otel", otel}, &Env{Stdout: &out, Stderr: &out})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	var r assay.Run
	b, err := os.ReadFile(runJSON)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}

	// The project's reader.
	docs, err := traces.ReadFile(otel)
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ caseID, name, label string }
	got := map[key]float64{}
	for _, d := range docs {
		for _, rs := range d.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					for _, e := range sp.Events {
						if e.Name != traces.EvaluationEvent {
							continue
						}
						var k key
						var score float64
						for _, kv := range e.Attributes {
							switch kv.Key {
							case "assay.case.id":
								k.caseID = kv.Value.Text()
							case "gen_ai.evaluation.name":
								k.name = kv.Value.Text()
							case "gen_ai.evaluation.score.label":
								k.label = kv.Value.Text()
							case "gen_ai.evaluation.score.value":
								score, _ = kv.Value.Number()
							}
						}
						got[k] = score
					}
				}
			}
		}
	}
	want := 0
	for _, c := range r.Cases {
		for _, ch := range c.Checks {
			want++
			label, score := "fail", 0.0
			if ch.Pass {
				label, score = "pass", 1
			}
			k := key{c.ID, "assay.check." + ch.Kind, label}
			if s, ok := got[k]; !ok || s != score {
				t.Errorf("check %s %s (%s) missing from the OTLP file (or score %v, want %v)", c.ID, ch.Kind, label, s, score)
			}
		}
		for m, v := range c.Metrics {
			want++
			if s, ok := got[key{c.ID, m, ""}]; !ok || s != v {
				t.Errorf("metric %s of %s: OTLP has %v (present %v), want %v", m, c.ID, s, ok, v)
			}
		}
	}
	for m, agg := range r.Summary.Metrics {
		want++
		if s, ok := got[key{"", m, ""}]; !ok || s != agg.Mean {
			t.Errorf("summary %s: OTLP has %v (present %v), want %v", m, s, ok, agg.Mean)
		}
	}
	if r.Summary.PassRate != nil {
		want++
	}
	if want < 10 || len(got) != want {
		t.Errorf("%d evaluation events, want %d (the run's checks, metrics and summary measures)", len(got), want)
	}

	// An independent reading of the OTLP/JSON shape.
	var doc map[string]any
	if err := json.Unmarshal(b2(t, otel), &doc); err != nil {
		t.Fatal(err)
	}
	hexID := func(s any, n int) bool {
		str, ok := s.(string)
		bs, err := hex.DecodeString(str)
		return ok && err == nil && len(bs) == n
	}
	nano := regexp.MustCompile(`^[0-9]+$`)
	spans := 0
	for _, rs := range doc["resourceSpans"].([]any) {
		rsm := rs.(map[string]any)
		checkAttrs(t, rsm["resource"].(map[string]any)["attributes"])
		for _, ss := range rsm["scopeSpans"].([]any) {
			for _, sp := range ss.(map[string]any)["spans"].([]any) {
				spans++
				m := sp.(map[string]any)
				if !hexID(m["traceId"], 16) || !hexID(m["spanId"], 8) {
					t.Errorf("span ids not hex: %v %v", m["traceId"], m["spanId"])
				}
				for _, f := range []string{"startTimeUnixNano", "endTimeUnixNano"} {
					if s, ok := m[f].(string); !ok || !nano.MatchString(s) {
						t.Errorf("%s = %#v, want unix nanoseconds as a decimal string", f, m[f])
					}
				}
				checkAttrs(t, m["attributes"])
				for _, e := range m["events"].([]any) {
					checkAttrs(t, e.(map[string]any)["attributes"])
				}
			}
		}
	}
	if spans != 1+len(r.Cases) {
		t.Errorf("%d spans, want a run span and one per case (%d)", spans, 1+len(r.Cases))
	}
}

func b2(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkAttrs checks a list of OTLP attributes: {key, value: {one typed field}}.
func checkAttrs(t *testing.T, v any) {
	t.Helper()
	list, ok := v.([]any)
	if !ok {
		t.Errorf("attributes %#v, want a list", v)
		return
	}
	for _, a := range list {
		m := a.(map[string]any)
		val, _ := m["value"].(map[string]any)
		if _, ok := m["key"].(string); !ok || len(val) != 1 {
			t.Errorf("attribute %v: want {key, value: {one typed field}}", m)
			continue
		}
		for k, x := range val {
			switch k {
			case "stringValue":
				_, ok = x.(string)
			case "boolValue":
				_, ok = x.(bool)
			case "intValue":
				_, ok = x.(string)
			case "doubleValue":
				_, ok = x.(float64)
			default:
				ok = false
			}
			if !ok {
				t.Errorf("attribute %v: %s holds %s", m["key"], k, fmt.Sprintf("%T", x))
			}
		}
	}
}
