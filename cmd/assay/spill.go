package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/assay-eval/assay"
)

// spill holds a run's case results, in order, in a temporary JSON-lines
// file, so that a run of any size keeps none of them in memory: the
// reports and the store read them back through Run.CaseStream.
type spill struct {
	f   *os.File
	w   *bufio.Writer
	n   int
	err error
}

func newSpill() (*spill, error) {
	f, err := os.CreateTemp("", "assay-cases-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("temporary file for the case results: %w", err)
	}
	return &spill{f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// add appends one result (without its observation).
func (s *spill) add(r assay.CaseResult) error {
	if s.err != nil {
		return s.err
	}
	r.Observation = nil
	b, err := json.Marshal(&r)
	if err == nil {
		b = append(b, '\n')
		_, err = s.w.Write(b)
	}
	if err != nil {
		s.err = fmt.Errorf("temporary file %s: %w", s.f.Name(), err)
		return s.err
	}
	s.n++
	return nil
}

// each yields the results added so far, in order; it may be called again.
func (s *spill) each(yield func(assay.CaseResult) error) error {
	if s.err != nil {
		return s.err
	}
	if err := s.w.Flush(); err != nil {
		s.err = fmt.Errorf("temporary file %s: %w", s.f.Name(), err)
		return s.err
	}
	br := bufio.NewReaderSize(io.NewSectionReader(s.f, 0, 1<<62), 64<<10)
	for i := 0; i < s.n; i++ {
		line, err := br.ReadBytes('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("temporary file %s: result %d: %w", s.f.Name(), i+1, err)
		}
		var r assay.CaseResult
		if err := json.Unmarshal(line, &r); err != nil {
			return fmt.Errorf("temporary file %s: result %d: %w", s.f.Name(), i+1, err)
		}
		if err := yield(r); err != nil {
			return err
		}
	}
	return nil
}

// close removes the file.
func (s *spill) close() {
	s.f.Close()
	os.Remove(s.f.Name())
}
