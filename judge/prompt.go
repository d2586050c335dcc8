package judge

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/assay-eval/assay"
)

// PromptVersion names the prompt template; it is part of every cache key,
// so a change of the template is never answered from an older cache.
const PromptVersion = "assay-judge/v1"

// The cut lengths of what is sent (in characters): the question, the
// answer, each retrieved text, each citation quote, and how many retrieved
// documents and citations are sent at most. A longer value is cut and
// ends with "…" (docs/judge.md).
const (
	MaxQuestion  = 2000
	MaxAnswer    = 4000
	MaxPassage   = 1000
	MaxQuote     = 300
	MaxPassages  = 10
	MaxCitations = 10
)

// DefaultRubric is GNO's: relevance, groundedness and completeness, each
// from 0 to 1, with a one-line reasoning (assay.DefaultJudgeRubric).
var DefaultRubric = assay.DefaultJudgeRubric

const systemPrompt = "You grade the answers of a retrieval-augmented question answering system. " +
	"Judge only from the question, the answer and the retrieved passages given; do not use outside knowledge to excuse an unsupported claim. " +
	"Reply with one JSON object and nothing else."

// Prompt renders the messages sent for one case's observation: the
// template of docs/judge.md, version PromptVersion.
func Prompt(rubric []assay.JudgeCriterion, c assay.Case, obs assay.Observation) (system, user string) {
	var b strings.Builder
	b.WriteString("Question:\n")
	b.WriteString(cut(c.Query, MaxQuestion))
	b.WriteString("\n\nAnswer:\n")
	if strings.TrimSpace(obs.Answer) == "" {
		b.WriteString("(no answer)")
	} else {
		b.WriteString(cut(obs.Answer, MaxAnswer))
	}
	b.WriteString("\n\nRetrieved passages:\n")
	if len(obs.Retrieved) == 0 {
		b.WriteString("(none)\n")
	}
	for i, h := range obs.Retrieved {
		if i == MaxPassages {
			fmt.Fprintf(&b, "(%d more not shown)\n", len(obs.Retrieved)-MaxPassages)
			break
		}
		fmt.Fprintf(&b, "[%d] %s", i+1, h.Key())
		if h.Title != "" && h.Title != h.Key() {
			fmt.Fprintf(&b, " (%s)", oneLine(h.Title))
		}
		b.WriteString("\n")
		if h.Text != "" {
			b.WriteString(cut(h.Text, MaxPassage))
			b.WriteString("\n")
		}
	}
	if len(obs.Citations) > 0 {
		b.WriteString("\nCitations in the answer:\n")
		for i, ct := range obs.Citations {
			if i == MaxCitations {
				fmt.Fprintf(&b, "(%d more not shown)\n", len(obs.Citations)-MaxCitations)
				break
			}
			name := ct.ID
			if name == "" {
				name = ct.Path
			}
			if name == "" {
				name = ct.Title
			}
			fmt.Fprintf(&b, "[%d] %s", i+1, oneLine(name))
			if ct.Quote != "" {
				fmt.Fprintf(&b, ": %q", cut(ct.Quote, MaxQuote))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\nGrade the answer on each criterion:\n")
	for _, cr := range rubric {
		fmt.Fprintf(&b, "- %s (%s to %s): %s\n", cr.Name, num(cr.Min), num(cr.Max), oneLine(cr.Description))
	}
	b.WriteString("\nReply with this JSON object only, a number for each criterion and a one-line reasoning:\n")
	b.WriteString(answerShape(rubric))
	return systemPrompt, b.String()
}

// answerShape is the JSON the rubric asks for, e.g. {"relevance": 0.9,
// "groundedness": 0.8, "completeness": 0.7, "reasoning": "..."}.
func answerShape(rubric []assay.JudgeCriterion) string {
	var b strings.Builder
	b.WriteString("{")
	for i, cr := range rubric {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q: <%s to %s>", cr.Name, num(cr.Min), num(cr.Max))
	}
	b.WriteString(`, "reasoning": "..."}`)
	return b.String()
}

// Schema is the JSON Schema of the answer, sent as response_format
// json_schema where the endpoint supports it.
func Schema(rubric []assay.JudgeCriterion) json.RawMessage {
	props := map[string]any{"reasoning": map[string]any{"type": "string"}}
	required := make([]string, 0, len(rubric)+1)
	for _, cr := range rubric {
		props[cr.Name] = map[string]any{"type": "number", "minimum": cr.Min, "maximum": cr.Max}
		required = append(required, cr.Name)
	}
	required = append(required, "reasoning")
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false})
	return b
}

// cut shortens s to n characters, ending a cut one with "…".
func cut(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i = range s {
		if count == n-1 {
			break
		}
		count++
	}
	return s[:i] + "…"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func num(f float64) string { return fmt.Sprintf("%g", f) }
