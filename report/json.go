package report

import (
	"encoding/json"
	"io"

	"github.com/assay-eval/assay"
)

// RunDocument returns the assay.run/v1 form of run: the run itself with the
// schema set, and nil slices and maps written as [] and {} so consumers see
// every field of §7.
func RunDocument(run *assay.Run) *assay.Run {
	doc := *run
	doc.Schema = assay.RunSchema
	doc.Segments = make(map[string]assay.Summary, len(run.Segments))
	if doc.Gates == nil {
		doc.Gates = []assay.GateResult{}
	}
	doc.Summary = fillSummary(doc.Summary)
	for k, s := range run.Segments {
		doc.Segments[k] = fillSummary(s)
	}
	doc.Cases = make([]assay.CaseResult, len(run.Cases))
	for i, c := range run.Cases {
		c.Observation = nil
		if c.Checks == nil {
			c.Checks = []assay.Check{}
		}
		if c.Metrics == nil {
			c.Metrics = map[string]float64{}
		}
		doc.Cases[i] = c
	}
	return &doc
}

func fillSummary(s assay.Summary) assay.Summary {
	if s.Metrics == nil {
		s.Metrics = map[string]assay.MetricAgg{}
	}
	return s
}

// JSON writes the assay.run/v1 document, indented, with a final newline.
func JSON(w io.Writer, run *assay.Run) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(RunDocument(run))
}
