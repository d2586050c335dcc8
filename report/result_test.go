package report

import (
	"bytes"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
)

// TestResultTextGolden: a matrix compared with a baseline shows the
// variants, the notes, then each comparison under a heading that names
// the baseline's own run where it is another variant's; a variant not
// compared has no section.
func TestResultTextGolden(t *testing.T) {
	t.Parallel()
	runs, v := matrixRuns()
	base := ciRun()
	base.RunID = "01a25045-8a4b-7000-8000-000000000000"
	other := ciRun()
	other.RunID = "01a25046-1111-7000-8000-000000000000"
	other.Variant = map[string]string{"mode": "fast"}
	cmp := compareFixture()
	var b bytes.Buffer
	err := ResultText(&b, Result{
		Runs:        runs,
		Matrix:      true,
		Orderings:   v,
		Baseline:    base,
		BaselineRef: "latest~1",
		Baselines:   []*assay.Run{other, nil},
		Comparisons: []*compare.Report{&cmp, nil},
		Notes:       []string{"variant mode=thorough: not compared: the baseline has no run of it"},
	}, TextOptions{MaxFailures: 5})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "TestResultText.golden.txt", b.Bytes())
}
