package harness

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/assay-eval/assay"
)

// spillFile holds the case results of every run of one `assay run` (each
// variant of a matrix is one run), in order, in one temporary JSON-lines
// file, so that a run of any size keeps none of them in memory: the reports
// and the store read them back through Run.CaseStream. Runs follow one
// another, so each appends its own segment; a matrix of any size holds this
// one file open, not one per variant.
//
// The file is unlinked as soon as it is created (where the platform allows
// an open file to be removed): the open descriptor is all that keeps it,
// so a killed run leaves nothing in $TMPDIR. Elsewhere close removes it.
type spillFile struct {
	f    *os.File
	name string
	w    *bufio.Writer
	off  int64 // bytes written (buffered included)
	err  error
}

// spill is one run's segment of the spill file.
type spill struct {
	file       *spillFile
	start, end int64
	n          int
}

func newSpillFile() (*spillFile, error) {
	f, err := os.CreateTemp("", "assay-cases-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("temporary file for the case results: %w", err)
	}
	sf := &spillFile{f: f, name: f.Name(), w: bufio.NewWriterSize(f, 64<<10)}
	if unlinkOpenFiles {
		os.Remove(sf.name)
	}
	return sf, nil
}

// unlinkOpenFiles is whether an open file can be removed and still used.
var unlinkOpenFiles = runtime.GOOS != "windows"

// segment starts the next run's segment; the previous one is complete.
func (sf *spillFile) segment() *spill {
	return &spill{file: sf, start: sf.off, end: sf.off}
}

// add appends one result (without its observation).
func (s *spill) add(r assay.CaseResult) error {
	sf := s.file
	if sf.err != nil {
		return sf.err
	}
	if s.end != sf.off {
		return errors.New("internal error: a finished run's results were appended to")
	}
	r.Observation = nil
	b, err := json.Marshal(&r)
	if err == nil {
		b = append(b, '\n')
		_, err = sf.w.Write(b)
	}
	if err != nil {
		sf.err = fmt.Errorf("temporary file %s: %w", sf.name, err)
		return sf.err
	}
	sf.off += int64(len(b))
	s.end = sf.off
	s.n++
	return nil
}

// each yields the results of the segment, in order; it may be called again.
func (s *spill) each(yield func(assay.CaseResult) error) error {
	sf := s.file
	if sf.err != nil {
		return sf.err
	}
	if err := sf.w.Flush(); err != nil {
		sf.err = fmt.Errorf("temporary file %s: %w", sf.name, err)
		return sf.err
	}
	br := bufio.NewReaderSize(io.NewSectionReader(sf.f, s.start, s.end-s.start), 64<<10)
	for i := 0; i < s.n; i++ {
		line, err := br.ReadBytes('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("temporary file %s: result %d: %w", sf.name, i+1, err)
		}
		var r assay.CaseResult
		if err := json.Unmarshal(line, &r); err != nil {
			return fmt.Errorf("temporary file %s: result %d: %w", sf.name, i+1, err)
		}
		if err := yield(r); err != nil {
			return err
		}
	}
	return nil
}

// close closes the file (and removes it where it was not unlinked).
func (sf *spillFile) close() {
	if sf == nil {
		return
	}
	sf.f.Close()
	if !unlinkOpenFiles {
		os.Remove(sf.name)
	}
}
