package report

import (
	"bytes"
	"testing"
)

// The text summary shows the run-level measures the target reported, in
// name order, after the rates and latency.
func TestTextMeasuresGolden(t *testing.T) {
	t.Parallel()
	r := sampleRun()
	r.Measures = map[string]float64{"index_bytes": 1200000, "build_ms": 830.5, "documents": 42}
	var b bytes.Buffer
	if err := Text(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "TestTextMeasures.golden.txt", b.Bytes())
}
