package cli

import (
	"bytes"
	"testing"

	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/internal/golden"
)

// TestWriteDryRun renders estimates with and without a known cost, with a
// judge, to testdata/TestWriteDryRun.golden.txt (-update rewrites it).
func TestWriteDryRun(t *testing.T) {
	cost, judgeCost := 0.003465, 0.00188
	var b bytes.Buffer
	for _, e := range []*harness.Estimate{
		{Suite: "cost", Cases: 3, Trials: 1, CharsPerToken: 4, Requests: 3, InputTokens: 20, CostNote: "3 of 3 cases have no recorded output tokens in the store"},
		{Suite: "cost", Cases: 3, Trials: 2, CharsPerToken: 4, Requests: 6, InputTokens: 154, InputRecorded: 3, OutputTokens: 308, OutputKnown: 3, History: "01a25045-8a4b-7000-8000-000000000000", CostUSD: &cost,
			JudgeModel: "grader-1", JudgeCalls: 12, JudgePromptTokens: 2628, JudgeOutputTokens: 48, JudgeCostUSD: &judgeCost},
		{Suite: "one", Cases: 1, Trials: 1, CharsPerToken: 4, Requests: 1, InputTokens: 2, CostNote: "no prices: table in the suite or the target file",
			JudgeModel: "grader-1", JudgeCalls: 1, JudgeNote: "no stored run of the suite recorded the judge's usage"},
	} {
		if err := WriteDryRun(&b, e); err != nil {
			t.Fatal(err)
		}
		b.WriteString("--\n")
	}
	golden.Check(t, "TestWriteDryRun.golden.txt", b.Bytes())
}
