package judge

import (
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// BenchmarkPrompt renders the prompt of a case with 10 retrieved
// documents of 1,000 characters and an answer of 1,000 (the cuts bound
// it whatever the observation).
func BenchmarkPrompt(b *testing.B) {
	c := assay.Case{ID: "q", Query: "How are invitation tokens hashed before they are stored?"}
	obs := assay.Observation{Answer: strings.Repeat("answer ", 150)}
	for i := range 10 {
		obs.Retrieved = append(obs.Retrieved, assay.Hit{ID: "doc" + string(rune('a'+i)), Title: "Title", Text: strings.Repeat("passage ", 130)})
	}
	b.ReportAllocs()
	for b.Loop() {
		Prompt(DefaultRubric, c, obs)
	}
}

// BenchmarkParse parses a GNO-shaped answer.
func BenchmarkParse(b *testing.B) {
	answer := `{"relevance": 0.9, "groundedness": 0.8, "completeness": 0.7, "reasoning": "the answer cites the security ADR and names SHA-256"}`
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(DefaultRubric, answer); err != nil {
			b.Fatal(err)
		}
	}
}
