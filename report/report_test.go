package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

func TestTextSummaryGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := Text(&b, sampleRun(), TextOptions{Queries: map[string]string{"q2": "How are invitation tokens hashed?"}}); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestText.golden.txt", b.Bytes())
}

func TestTextNamesGainAndTieRule(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	r := sampleRun()
	r.Gain = assay.GainExponential
	Text(&b, r, TextOptions{})
	for _, want := range []string{"gain exponential", TieRule, "✗ ndcg@10 >= 0.7", "unsurfaced d9", "error timeout"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, b.String())
		}
	}
}

func TestTextCapsFailingCases(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	Text(&b, sampleRun(), TextOptions{MaxFailures: 1})
	if !strings.Contains(b.String(), "… and 1 more") {
		t.Errorf("expected the failing list to be capped:\n%s", b.String())
	}
}

func TestJSONGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := JSON(&b, sampleRun()); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestJSON.golden.json", b.Bytes())
}

// TestJSONCarriesEveryContractField checks the assay.run/v1 fields (docs/json.md) by
// name, so a renamed field fails even if the golden file is rewritten.
func TestJSONCarriesEveryContractField(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := JSON(&b, sampleRun()); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	need := func(m map[string]any, where string, keys ...string) {
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				t.Errorf("%s lacks %q", where, k)
			}
		}
	}
	need(doc, "run", "schema", "run_id", "status", "suite", "target", "started_at", "finished_at", "summary", "segments", "gates", "cases")
	if doc["schema"] != assay.RunSchema {
		t.Errorf("schema = %v", doc["schema"])
	}
	need(doc["suite"].(map[string]any), "suite", "name", "fingerprint")
	need(doc["target"].(map[string]any), "target", "kind")
	sum := doc["summary"].(map[string]any)
	need(sum, "summary", "cases", "passed", "failed", "errors", "pass_rate", "metrics", "rates", "latency_ms")
	need(sum["rates"].(map[string]any), "rates", "no_hit", "refusal", "grounded", "error")
	need(sum["latency_ms"].(map[string]any), "latency_ms", "p50", "p95", "p99", "max")
	need(sum["metrics"].(map[string]any)["ndcg@10"].(map[string]any), "metric", "mean", "n")
	need(doc["segments"].(map[string]any)["lang=en"].(map[string]any), "segment", "cases", "pass_rate", "metrics")
	need(doc["gates"].([]any)[0].(map[string]any), "gate", "expr", "pass", "value")
	cases := doc["cases"].([]any)
	for _, c := range cases {
		need(c.(map[string]any), "case", "id", "trial", "pass", "error", "checks", "metrics", "latency_ms")
		if _, ok := c.(map[string]any)["observation"]; ok {
			t.Error("run.json cases must not embed the observation")
		}
	}
	if cases[2].(map[string]any)["pass"] != nil {
		t.Error("an ungraded case must have pass: null")
	}
}

// Table columns line up when a segment or variant name is written in a
// script whose characters take two columns.
func TestTablesAlignWideNames(t *testing.T) {
	t.Parallel()
	run := sampleRun()
	run.Segments = map[string]assay.Summary{"lang=en": {Cases: 3}, "lang=中文": {Cases: 12}, "lang=日本語": {Cases: 5}}
	var b strings.Builder
	if err := Text(&b, run, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	col := -1
	for _, line := range strings.Split(b.String(), "\n") {
		if !strings.HasPrefix(line, "lang=") && !strings.HasPrefix(line, "segment") {
			continue
		}
		// the column (in display width) where the cases number ends
		f := strings.Fields(line)
		end := strings.Index(line, f[1]) + len(f[1])
		if c := displayWidth(line[:end]); col == -1 {
			col = c
		} else if c != col {
			t.Errorf("cases column ends at %d, want %d:\n%s", c, col, b.String())
		}
	}
	if col == -1 {
		t.Fatalf("no segment table:\n%s", b.String())
	}
	if displayWidth("lang=中文") != 9 || padRight("中文", 6) != "中文  " {
		t.Errorf("displayWidth(lang=中文) = %d, padRight = %q", displayWidth("lang=中文"), padRight("中文", 6))
	}
}
