package redact_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/redact"
)

// benchResult is a quickstart-sized graded result: 10 hits with text, an
// answer, citations, checks.
func benchResult() assay.CaseResult {
	obs := &assay.Observation{Case: "q001", Answer: strings.Repeat("Tokens are hashed with SHA-256 before storage. ", 8)}
	for i := range 10 {
		obs.Retrieved = append(obs.Retrieved, assay.Hit{ID: fmt.Sprintf("doc%d.md", i), Title: "Security", Text: strings.Repeat("invitation tokens are hashed ", 20)})
	}
	obs.Citations = []assay.Citation{{ID: "doc1.md", Quote: "hashed with SHA-256"}}
	obs.Versions = map[string]string{"index": "v3"}
	pass := true
	return assay.CaseResult{ID: "q001", Pass: &pass, Checks: []assay.Check{{Kind: "answer_includes", Pass: true}},
		Metrics: map[string]float64{"ndcg@10": 1}, Observation: obs}
}

// BenchmarkValueCaseResult: redacting one graded result (the runner's
// per-observation cost) with two secrets, none present.
func BenchmarkValueCaseResult(b *testing.B) {
	r := redact.New(redact.Secret{Name: "A", Value: tok}, redact.Secret{Name: "B", Value: "Pw-7Hq2Lm9Xz4Kc8Vb"})
	res := benchResult()
	b.ReportAllocs()
	for b.Loop() {
		redact.Value(r, res)
	}
}

// BenchmarkValueNoSecrets: the same without secrets (a builtin run).
func BenchmarkValueNoSecrets(b *testing.B) {
	r := redact.New()
	res := benchResult()
	b.ReportAllocs()
	for b.Loop() {
		redact.Value(r, res)
	}
}
