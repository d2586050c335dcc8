package assay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// DocumentOptions choose the layout of WriteDocument. Both layouts are
// the same JSON value.
type DocumentOptions struct {
	// Prefix begins every line after the first (the document nested in
	// an encoding indented with "  ", as a matrix's runs are).
	Prefix string
	// CaseLines writes each case compact on one line (run.json: a diff of
	// two runs stays small); otherwise each case is indented like the
	// rest (the --json output).
	CaseLines bool
}

// WriteDocument writes the assay.run/v1 document of run, indented, without
// a final newline: the one encoder of the document, used by the --json
// output (package report) and run.json (package store). The cases are
// read through run.EachCase and written one at a time, so a run whose
// cases stream from disk is never held whole; an error from the stream
// is returned (the output is then cut short).
func WriteDocument(w io.Writer, run *Run, o DocumentOptions) error {
	prefix := o.Prefix
	var hb bytes.Buffer
	enc := json.NewEncoder(&hb)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(run.DocumentHead()); err != nil {
		return fmt.Errorf("encode run %s: %w", run.RunID, err)
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
	if !o.CaseLines {
		cenc.SetIndent(prefix+"    ", "  ")
	}
	cenc.SetEscapeHTML(false)
	n := 0
	// open writes what comes before the n-th case.
	open := func() {
		cb.Reset()
		if n == 0 {
			cb.WriteString("\n" + prefix + `  "cases": [`)
		} else {
			cb.WriteByte(',')
		}
		cb.WriteString("\n" + prefix + "    ")
	}
	var err error
	if len(run.Cases) == 0 && run.CaseStream != nil && run.CaseDocuments != nil {
		// The cases come encoded: copied as they are on one line each,
		// or indented as Encode would have (the same bytes: Encode
		// indents its compact form the way Indent does).
		err = run.CaseDocuments(func(line []byte) error {
			open()
			if o.CaseLines {
				cb.Write(line)
			} else if err := json.Indent(&cb, line, prefix+"    ", "  "); err != nil {
				return fmt.Errorf("encode run %s: case %d: %w", run.RunID, n+1, err)
			}
			n++
			_, err := w.Write(cb.Bytes())
			return err
		})
	} else {
		err = run.EachCase(func(c CaseResult) error {
			open()
			c = c.Document()
			if err := cenc.Encode(&c); err != nil {
				return fmt.Errorf("encode run %s: case %s trial %d: %w", run.RunID, c.ID, c.Trial, err)
			}
			cb.Truncate(cb.Len() - 1) // Encode's newline
			n++
			_, err := w.Write(cb.Bytes())
			return err
		})
	}
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

// AppendCaseDocument appends c as the document lists it on one line
// (CaseResult.Document, compact, HTML characters not escaped, no final
// newline) to dst: the bytes WriteDocument writes for c with CaseLines,
// and what Run.CaseDocuments yields.
func AppendCaseDocument(dst []byte, c CaseResult) ([]byte, error) {
	b := bytes.NewBuffer(dst)
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	c = c.Document()
	if err := enc.Encode(&c); err != nil {
		return dst, fmt.Errorf("case %s trial %d: %w", c.ID, c.Trial, err)
	}
	out := b.Bytes()
	return out[:len(out)-1], nil
}
