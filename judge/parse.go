package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/redact"
)

// maxReasoning bounds the reasoning kept (in characters).
const maxReasoning = 500

// Verdict is one parsed answer of the judge.
type Verdict struct {
	Scores    map[string]float64 `json:"scores"`
	Reasoning string             `json:"reasoning"`
}

// Parse reads the judge's answer strictly: one JSON object (surrounding
// white space aside) with a finite number within its scale for every
// criterion of the rubric, and "reasoning" a string when present. Other
// keys are ignored. Anything else is an error saying what was wrong, with
// no more than the start of the answer quoted.
func Parse(rubric []assay.JudgeCriterion, content string) (Verdict, error) {
	return ParseRedacted(nil, rubric, content)
}

// ParseRedacted is Parse for an answer that may echo a secret (the judge
// sees the system's raw answer, and its own key): the reasoning and the
// quotes in errors are redacted with r whole, before they are cut.
func ParseRedacted(r *redact.Redactor, rubric []assay.JudgeCriterion, content string) (Verdict, error) {
	body := bytes.TrimSpace([]byte(content))
	if len(body) == 0 {
		return Verdict{}, fmt.Errorf("empty answer")
	}
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&m); err != nil || m == nil {
		return Verdict{}, fmt.Errorf("answer is not a JSON object: %q", r.Clip(oneLine(content), 80))
	}
	if dec.More() {
		return Verdict{}, fmt.Errorf("answer holds more than one JSON value: %q", r.Clip(oneLine(content), 80))
	}
	v := Verdict{Scores: make(map[string]float64, len(rubric))}
	for _, cr := range rubric {
		raw, ok := m[cr.Name]
		if !ok {
			return Verdict{}, fmt.Errorf("answer has no %q score", cr.Name)
		}
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil {
			return Verdict{}, fmt.Errorf("%s: want a number, got %s", cr.Name, r.Clip(string(raw), 40))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) || f < cr.Min || f > cr.Max {
			return Verdict{}, fmt.Errorf("%s: %g is out of the scale %s to %s", cr.Name, f, num(cr.Min), num(cr.Max))
		}
		v.Scores[cr.Name] = f
	}
	if raw, ok := m["reasoning"]; ok && string(raw) != "null" {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return Verdict{}, fmt.Errorf("reasoning: want a string, got %s", r.Clip(string(raw), 40))
		}
		v.Reasoning = r.Clip(oneLine(s), maxReasoning)
	}
	return v, nil
}
