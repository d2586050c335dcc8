package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
)

// compareFixture is a regression: ndcg@10 drops on most cases, one case
// flips pass → fail, another fail → pass, one answered case is refused and
// a refused one answered, two top scores move, latency grows, and the
// target's versions changed; case-16's query changed, so it is not paired.
func compareFixture() compare.Report {
	mk := func(id string, cand bool) *assay.Run {
		r := &assay.Run{Schema: assay.RunSchema, RunID: id, Status: assay.StatusComplete, GradingVersion: 1,
			Suite:   assay.SuiteRef{Name: "kb", Fingerprint: "sha256:1"},
			Target:  assay.TargetInfo{Kind: "http", Versions: map[string]string{"embedding": "e5@1"}},
			Options: assay.RunOptions{K: 10, Trials: 1, Metrics: []string{"ndcg@10", "recall@10"}}}
		if cand {
			r.Target.Versions = map[string]string{"embedding": "e5@2"}
		}
		for i := range 17 {
			pass := i != 9
			ndcg := 0.5 + 0.03*float64(i%5)
			lat := 20 + float64(i)
			top := 10 - 0.25*float64(i)
			refused := i == 13
			if cand {
				pass = i != 4
				ndcg -= 0.04 * float64(i%3)
				lat += 3
				refused = i == 11
				switch i {
				case 2:
					top += 0.5
				case 7:
					top -= 1.25
				}
			}
			hash := fmt.Sprintf("sha256:%02d", i)
			if cand && i == 16 {
				hash = "sha256:changed"
			}
			r.Cases = append(r.Cases, assay.CaseResult{ID: fmt.Sprintf("case-%02d", i), Pass: &pass, LatencyMs: &lat,
				Retrieved: 5, Refused: refused, TopScore: &top, Metrics: map[string]float64{"ndcg@10": ndcg, "recall@10": 0.8}, Hash: hash})
		}
		return r
	}
	return compare.Runs(mk("0193a1b2-7c3d-7e4f-8a5b-111111111111", false), mk("0193a1c4-1a2b-7c3d-9e4f-222222222222", true), compare.Options{})
}

func TestCompareTextGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := CompareText(&b, compareFixture()); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestCompareText.golden.txt", b.Bytes())
}

func TestCompareMarkdownGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := CompareMarkdown(&b, compareFixture()); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestCompareMarkdown.golden.md", b.Bytes())
}

func TestCompareJSONGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := CompareJSON(&b, compareFixture()); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestCompareJSON.golden.json", b.Bytes())
	// The assay.compare/v1 fields (docs/json.md) are present under their names.
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "verdict", "baseline", "candidate", "paired_cases", "metrics", "flips", "warnings", "changed_cases"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("assay.compare/v1 lacks %q", k)
		}
	}
	if doc["schema"] != assay.CompareSchema || doc["verdict"] != "regressed" {
		t.Errorf("schema %v verdict %v", doc["schema"], doc["verdict"])
	}
	m := doc["metrics"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "baseline", "candidate", "delta", "ci95", "p", "significant"} {
		if _, ok := m[k]; !ok {
			t.Errorf("metric entry lacks %q", k)
		}
	}
}

func TestCompareTextMarksNotSignificant(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := CompareText(&b, compareFixture()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"verdict: regressed", "pass → fail (1): case-04", "fail → pass (1): case-09", "system versions differ (embedding e5@1 → e5@2)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "recall@10") && !strings.HasSuffix(line, "~") {
			t.Errorf("unchanged recall@10 not marked ~: %q", line)
		}
	}
}

func TestCompareCountsAreSingularForOne(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	if err := CompareText(&b, compare.Report{Suite: "kb", PairedCases: 1, PairedValues: 1}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "suite kb · 1 paired case\n") {
		t.Errorf("want \"1 paired case\":\n%s", b.String())
	}
	b.Reset()
	if err := CompareText(&b, compare.Report{Suite: "kb", PairedCases: 2, PairedValues: 1}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "· 2 paired cases (1 case trial)\n") {
		t.Errorf("want \"2 paired cases (1 case trial)\":\n%s", b.String())
	}
}
