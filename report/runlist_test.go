package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
)

// TestRunListLabelsGolden: the runs table has a LABELS column when a run
// listed has labels ("-" for one without), and none otherwise.
func TestRunListLabelsGolden(t *testing.T) {
	t.Parallel()
	pr, v := 0.75, 0.6131
	at := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	rows := []RunRow{
		{ID: "01a250e3-c71f", StartedAt: at.Add(time.Minute), Suite: "alpha", Target: "builtin", Status: assay.StatusComplete, Cases: 4, PassRate: &pr, Headline: "ndcg@10", HeadlineValue: &v,
			Labels: map[string]string{"env": "staging", "branch": "main", "commit": "0123456789abcdef0123456789abcdef01234567"}},
		{ID: "01a250e3-c51e", StartedAt: at, Suite: "beta", Target: "replay:t.jsonl", Status: assay.StatusIncomplete, Cases: 2},
	}
	var b bytes.Buffer
	if err := RunList(&b, rows); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestRunListLabels.golden.txt", b.Bytes())
	b.Reset()
	for i := range rows {
		rows[i].Labels = nil
	}
	if err := RunList(&b, rows); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "LABELS") {
		t.Errorf("a LABELS column with no labels:\n%s", b.String())
	}
}
