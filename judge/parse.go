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
// keys are ignored, but no key may appear twice in an object (encoding/json
// would keep the last, another reader the first). Anything else is an
// error saying what was wrong, with no more than the start of the answer
// quoted.
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
	if k, ok := repeatedKey(body); ok {
		return Verdict{}, fmt.Errorf("answer gives %q twice: which one holds is not said", r.Clip(k, 40))
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

// repeatedKey finds a key given twice in one object of body (a JSON value
// that decodes).
func repeatedKey(body []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	type frame struct {
		obj  bool
		seen map[string]bool
		key  bool // the next token of an object is a key
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].key {
			top := &stack[n-1]
			if k, ok := tok.(string); ok {
				if top.seen[k] {
					return k, true
				}
				top.seen[k] = true
				top.key = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{obj: true, seen: map[string]bool{}, key: true})
			continue
		case json.Delim('['):
			stack = append(stack, frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			return "", false
		}
		if top := &stack[len(stack)-1]; top.obj {
			top.key = true // a value ended: a key comes next
		}
	}
}

// canonical is the answer v as the judge keeps it: the rubric's scores
// and the reasoning as Parse cut it, which Parse reads back to v.
func (v Verdict) canonical(rubric []assay.JudgeCriterion) string {
	m := make(map[string]any, len(rubric)+1)
	for _, cr := range rubric {
		m[cr.Name] = v.Scores[cr.Name]
	}
	if v.Reasoning != "" {
		m["reasoning"] = v.Reasoning
	}
	b, _ := json.Marshal(m)
	return string(b)
}
