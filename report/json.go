package report

import (
	"bufio"

	"io"

	"github.com/assay-eval/assay"
)

// RunDocument returns the assay.run/v1 form of run: the run itself with the
// schema set, and nil slices and maps written as [] and {} so consumers see
// every field of docs/json.md.
//
// RunDocument holds every case in memory (it reads them through
// run.EachCase, so a run whose cases stream is read in full); JSON and
// MatrixJSON write the same document one case at a time instead. An error
// from the run's CaseStream ends the case list where it happened: callers
// that must see it use JSON.
func RunDocument(run *assay.Run) *assay.Run {
	doc := runHead(run)
	run.EachCase(func(c assay.CaseResult) error {
		doc.Cases = append(doc.Cases, documentCase(c))
		return nil
	})
	return doc
}

// runHead is the document of run with an empty cases list.
func runHead(run *assay.Run) *assay.Run { return run.DocumentHead() }

// documentCase is c as the document lists it.
func documentCase(c assay.CaseResult) assay.CaseResult { return c.Document() }

// JSON writes the assay.run/v1 document, indented, with a final newline.
// It reads the cases through run.EachCase and writes each as it comes, so
// it holds one case at a time; an error from the run's CaseStream is
// returned (the output is then cut short).
func JSON(w io.Writer, run *assay.Run) error {
	bw := bufio.NewWriter(w)
	if err := writeRunDocument(bw, run, ""); err != nil {
		return err
	}
	bw.WriteByte('\n')
	return bw.Flush()
}

// writeRunDocument writes the document of run as an indented JSON value
// whose lines after the first begin with prefix, without a final newline
// (assay.WriteDocument, the one encoder of the document).
func writeRunDocument(w io.Writer, run *assay.Run, prefix string) error {
	return assay.WriteDocument(w, run, assay.DocumentOptions{Prefix: prefix})
}
