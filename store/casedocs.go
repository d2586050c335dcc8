package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
)

// A run being written keeps, beside cases.jsonl, each case as run.json
// lists it (assay.AppendCaseDocument) in a temporary file of its
// directory, removed from the directory as soon as it is created where
// the system allows it (it then goes with the process, even a killed
// one; elsewhere it is named as the store's temporary files are, and
// removed by Finish or Release, or swept). The writer's CaseDocuments
// yields those bytes, so that Finish of a run given them copies its cases
// into run.json instead of reading cases.jsonl back and encoding every
// case again. Memory stays at one buffered line: the cases are streamed
// from disk, never held.

// docSpill is the temporary file of a run's encoded cases.
type docSpill struct {
	f       *os.File
	w       *bufio.Writer
	buf     []byte
	err     error // the first write error: Finish then reads the stream
	visible bool  // the file could not be removed while open
}

// errSpillClosed is the error of a spill used after Finish or Release.
var errSpillClosed = errors.New("the run's encoded cases are gone")

func newDocSpill(dir string) *docSpill {
	f, err := os.CreateTemp(dir, "."+RunFile+".*.tmp")
	if err != nil {
		return &docSpill{err: err}
	}
	s := &docSpill{f: f, w: bufio.NewWriterSize(f, 64<<10)}
	s.visible = os.Remove(f.Name()) != nil
	return s
}

// documentLine is r as run.json lists it. A string that was not valid
// UTF-8 is written as the replacement character escaped (\ufffd), where
// the same case read back from cases.jsonl holds the character itself:
// such a case is encoded from its cases.jsonl form, so that run.json is
// the same whichever way it is written.
func documentLine(dst []byte, r assay.CaseResult, line func() ([]byte, error)) ([]byte, error) {
	out, err := assay.AppendCaseDocument(dst, r)
	if err != nil || !bytes.Contains(out[len(dst):], []byte(`\ufffd`)) {
		return out, err
	}
	l, err := line()
	if err != nil {
		return dst, err
	}
	var back assay.CaseResult
	if err := decodeResult(bytes.TrimSpace(l), &back); err != nil {
		return dst, err
	}
	return assay.AppendCaseDocument(dst, back)
}

// add writes the document line of r (whose cases.jsonl line is line).
// The caller holds the run's lock.
func (s *docSpill) add(r assay.CaseResult, line []byte) {
	if s.err != nil {
		return
	}
	b, err := documentLine(s.buf[:0], r, func() ([]byte, error) { return line, nil })
	if err == nil {
		b = append(b, '\n')
		s.buf = b
		_, err = s.w.Write(b)
	}
	if err != nil {
		s.err = err
	}
}

// cases yields the encoded cases for run.json: an error when the file
// could not be kept whole or is gone.
func (s *docSpill) cases(yield func([]byte) error) error {
	if s.err != nil {
		return s.err
	}
	if err := s.w.Flush(); err != nil {
		s.err = err
		return err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	err := eachLine(bufio.NewReaderSize(s.f, 64<<10), yield)
	if _, serr := s.f.Seek(0, io.SeekEnd); err == nil {
		err = serr
	}
	return err
}

// close closes (and, when it is still in the directory, removes) the file.
func (s *docSpill) close() {
	if s.f != nil {
		s.f.Close()
		if s.visible {
			os.Remove(s.f.Name())
		}
		s.f = nil
		s.err = errSpillClosed
	}
}

// eachLine calls yield with each line of r, without its newline.
func eachLine(r *bufio.Reader, yield func([]byte) error) error {
	var long []byte
	for {
		b, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, b...)
			continue
		}
		if long != nil {
			b = append(long, b...)
			long = nil
		}
		if err != nil && err != io.EOF {
			return err
		}
		if b = bytes.TrimSuffix(b, []byte{'\n'}); len(b) > 0 {
			if yerr := yield(b); yerr != nil {
				return yerr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// DocumentCases yields the cases of the run.json in the run directory
// dir as they are written there (assay.Run.CaseDocuments): each case
// line's bytes, copied, not decoded. A reader of the run just written
// (its --json output) sets them beside the run's CaseStream. The file is
// bounded as LoadRun bounds it; one that is not laid out as the store
// writes it is an error.
func DocumentCases(dir string) assay.Seq[[]byte] {
	return func(yield func([]byte) error) error {
		file := filepath.Join(dir, RunFile)
		f, err := boundedfile.Open(file, boundedfile.RunRecord)
		if err != nil {
			return fileErr(file, err)
		}
		defer f.Close()
		in := false
		done := false
		err = eachLine(bufio.NewReaderSize(f, 64<<10), func(b []byte) error {
			switch {
			case done:
			case !in:
				if string(b) == `  "cases": [` {
					in = true
				} else if bytes.HasPrefix(b, []byte(`  "cases": []`)) {
					done = true
				}
			case string(b) == "  ]" || string(b) == "  ],":
				done = true
			default:
				if !bytes.HasPrefix(b, []byte("    {")) {
					return fmt.Errorf("%s: not a run record as the store writes it", file)
				}
				return yield(bytes.TrimSuffix(b[4:], []byte{','}))
			}
			return nil
		})
		if err == nil && !done {
			err = fmt.Errorf("%s: not a run record as the store writes it (no cases)", file)
		}
		return err
	}
}
