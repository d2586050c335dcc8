package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
)

func TestBadgeGolden(t *testing.T) {
	t.Parallel()
	run := ciRun()
	v := gate.Verdict{Results: run.Gates, Pass: false}
	var b bytes.Buffer
	if err := Badge(&b, run, v); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestBadge.golden.json", b.Bytes())
	if err := checkShieldsEndpoint(b.Bytes()); err != nil {
		t.Error(err)
	}
}

func TestBadgeStates(t *testing.T) {
	t.Parallel()
	held := gate.Verdict{Results: []assay.GateResult{{Expr: "pass_rate >= 0.1", Pass: true}}, Pass: true}
	broke := gate.Verdict{Results: []assay.GateResult{{Expr: "pass_rate >= 0.9"}}, Pass: false}
	noLatency := ciRun()
	noLatency.Summary.LatencyMs = assay.Latency{}
	ungraded := ciRun()
	ungraded.Summary.PassRate = nil
	incomplete := ciRun()
	incomplete.Status = assay.StatusIncomplete
	almost := ciRun()
	almost.Summary.PassRate = ptr(0.999)
	almost.Summary.LatencyMs.P95 = 850
	tests := []struct {
		name    string
		run     *assay.Run
		v       gate.Verdict
		message string
		color   string
	}{
		{"held", ciRun(), held, "38% · p95 2.3s", "brightgreen"},
		{"failed", ciRun(), broke, "38% · p95 2.3s", "red"},
		{"recorded gates decide", ciRun(), gate.Verdict{}, "38% · p95 2.3s", "red"},
		{"no gates", &assay.Run{Suite: assay.SuiteRef{Name: "kb"}, Status: assay.StatusComplete}, gate.Verdict{Pass: true}, "no results", "blue"},
		{"no latency", noLatency, held, "38%", "brightgreen"},
		{"ungraded", ungraded, held, "ndcg@10 0.41 · p95 2.3s", "brightgreen"},
		{"incomplete", incomplete, held, "incomplete · 38% · p95 2.3s", "lightgrey"},
		{"never rounds to 100%", almost, held, "99.9% · p95 850ms", "brightgreen"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Badge(&b, tt.run, tt.v); err != nil {
				t.Fatal(err)
			}
			if err := checkShieldsEndpoint(b.Bytes()); err != nil {
				t.Error(err)
			}
			got := BadgeFor(tt.run, tt.v)
			if got.Message != tt.message || got.Color != tt.color {
				t.Errorf("badge = %q %q, want %q %q", got.Message, got.Color, tt.message, tt.color)
			}
		})
	}
}

func TestCheckShieldsEndpointRejects(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		`{"label": "a", "message": "b"}`,
		`{"schemaVersion": 2, "label": "a", "message": "b"}`,
		`{"schemaVersion": 1, "label": "a"}`,
		`{"schemaVersion": 1, "label": "a", "message": "b", "color": "not a colour!"}`,
		`{"schemaVersion": 1, "label": "a", "message": "b", "colour": "red"}`,
		`{"schemaVersion": 1, "label": 3, "message": "b"}`,
	} {
		if err := checkShieldsEndpoint([]byte(doc)); err == nil {
			t.Errorf("accepted %s", doc)
		}
	}
}

var shieldsColor = regexp.MustCompile(`^(brightgreen|green|yellowgreen|yellow|orange|red|blue|lightgrey|grey|gray|success|important|critical|informational|inactive|[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|rgba?\(.*\)|hsla?\(.*\))$`)

// checkShieldsEndpoint checks the shields.io endpoint badge shape:
// schemaVersion 1 (required, number), label and message (required strings;
// message non-empty), optional color/labelColor (named or hex), isError
// (boolean), namedLogo, logoSvg, logoColor, logoSize, style (strings),
// cacheSeconds (number); nothing else.
func checkShieldsEndpoint(data []byte) error {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	if v, ok := m["schemaVersion"].(float64); !ok || v != 1 {
		return fmt.Errorf("schemaVersion = %v, want 1", m["schemaVersion"])
	}
	label, ok := m["label"].(string)
	if !ok {
		return fmt.Errorf("label missing or not a string")
	}
	_ = label
	if msg, ok := m["message"].(string); !ok || strings.TrimSpace(msg) == "" {
		return fmt.Errorf("message missing or empty")
	}
	for k, v := range m {
		switch k {
		case "schemaVersion", "label", "message":
		case "color", "labelColor":
			s, ok := v.(string)
			if !ok || !shieldsColor.MatchString(s) {
				return fmt.Errorf("%s = %v is not a shields colour", k, v)
			}
		case "isError":
			if _, ok := v.(bool); !ok {
				return fmt.Errorf("isError is not a boolean")
			}
		case "namedLogo", "logoSvg", "logoColor", "logoSize", "style":
			if _, ok := v.(string); !ok {
				return fmt.Errorf("%s is not a string", k)
			}
		case "cacheSeconds":
			if _, ok := v.(float64); !ok {
				return fmt.Errorf("cacheSeconds is not a number")
			}
		default:
			return fmt.Errorf("unknown field %q", k)
		}
	}
	return nil
}

// TestCIRenderersOnEmptyRuns: a run with nothing in it renders without
// panicking, in every CI format.
func TestCIRenderersOnEmptyRuns(t *testing.T) {
	t.Parallel()
	for name, run := range map[string]*assay.Run{
		"zero":       {},
		"incomplete": {RunID: "r", Status: assay.StatusIncomplete, Summary: assay.Summary{Metrics: map[string]assay.MetricAgg{}}},
	} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := JUnit(&b, run); err != nil {
				t.Fatal(err)
			}
			if p := checkJUnit(b.Bytes()); len(p) > 0 {
				t.Errorf("junit: %v", p)
			}
			b.Reset()
			if err := Markdown(&b, run, nil); err != nil || b.Len() == 0 {
				t.Errorf("markdown: %v %q", err, b.String())
			}
			b.Reset()
			if err := Badge(&b, run, gate.Verdict{}); err != nil {
				t.Fatal(err)
			}
			if err := checkShieldsEndpoint(b.Bytes()); err != nil {
				t.Error(err)
			}
			b.Reset()
			if err := MarkdownMatrix(&b, nil, gate.Verdict{}); err != nil {
				t.Error(err)
			}
			b.Reset()
			if err := JUnitMatrix(&b, []*assay.Run{run}, gate.Verdict{}); err != nil {
				t.Error(err)
			}
			if p := checkJUnit(b.Bytes()); len(p) > 0 {
				t.Errorf("junit matrix: %v", p)
			}
		})
	}
}
