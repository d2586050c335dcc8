package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
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
// whose lines after the first begin with prefix (the form it takes nested
// in an encoding indented with "  "), without a final newline. The header
// is encoded with an empty cases list, and the cases are spliced in one at
// a time, so the bytes are those of encoding RunDocument(run) whole.
func writeRunDocument(w io.Writer, run *assay.Run, prefix string) error {
	var hb bytes.Buffer
	enc := json.NewEncoder(&hb)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(runHead(run)); err != nil {
		return err
	}
	head := bytes.TrimSuffix(hb.Bytes(), []byte("\n"))
	empty := "\n" + prefix + `  "cases": []`
	i := bytes.Index(head, []byte(empty))
	if i < 0 {
		return fmt.Errorf("encode run %s: cases field not found", run.RunID)
	}
	if _, err := w.Write(head[:i]); err != nil {
		return err
	}
	var cb bytes.Buffer
	cenc := json.NewEncoder(&cb)
	cenc.SetIndent(prefix+"    ", "  ")
	cenc.SetEscapeHTML(false)
	n := 0
	err := run.EachCase(func(c assay.CaseResult) error {
		cb.Reset()
		if n == 0 {
			cb.WriteString("\n" + prefix + `  "cases": [`)
		} else {
			cb.WriteByte(',')
		}
		cb.WriteString("\n" + prefix + "    ")
		c = documentCase(c)
		if err := cenc.Encode(&c); err != nil {
			return fmt.Errorf("encode run %s: case %s trial %d: %w", run.RunID, c.ID, c.Trial, err)
		}
		cb.Truncate(cb.Len() - 1) // Encode's newline
		n++
		_, err := w.Write(cb.Bytes())
		return err
	})
	if err != nil {
		return err
	}
	if n == 0 {
		_, err = io.WriteString(w, empty)
	} else {
		_, err = io.WriteString(w, "\n"+prefix+"  ]")
	}
	if err != nil {
		return err
	}
	_, err = w.Write(head[i+len(empty):])
	return err
}
