package redact

import (
	"bytes"
	"io"
	"sync"
)

// maxLine is the longest text a Writer holds before writing part of it.
const maxLine = 64 << 10

// Writer redacts what is written through it, line by line. Call Flush
// when done: text after the last newline is held until then.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	r   *Redactor
	buf []byte
	err error
}

// NewWriter returns a Writer that redacts with r before writing to w.
func NewWriter(w io.Writer, r *Redactor) *Writer { return &Writer{w: w, r: r} }

// Unwrap returns the writer written to (to tell whether it is a terminal).
func (w *Writer) Unwrap() io.Writer { return w.w }

// Write redacts and writes every complete line of p (ending in \n or \r).
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	if w.r.Empty() && len(w.buf) == 0 {
		if _, err := w.w.Write(p); err != nil {
			w.err = err
			return 0, err
		}
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	if i := bytes.LastIndexAny(w.buf, "\r\n"); i >= 0 {
		line := w.r.Bytes(w.buf[:i+1])
		rest := append([]byte(nil), w.buf[i+1:]...)
		w.buf = rest
		if err := w.write(line); err != nil {
			return 0, err
		}
	}
	if len(w.buf) > maxLine {
		// A long line: write all but its end, redacted whole, keeping
		// back enough that a secret still arriving is not split.
		red := w.r.Bytes(w.buf)
		keep := min(w.r.margin(), len(red))
		if err := w.write(red[:len(red)-keep]); err != nil {
			return 0, err
		}
		w.buf = append([]byte(nil), red[len(red)-keep:]...)
	}
	return len(p), nil
}

func (w *Writer) write(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if _, err := w.w.Write(b); err != nil {
		w.err = err
		return err
	}
	return nil
}

// Flush redacts and writes what is held.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	b := w.r.Bytes(w.buf)
	w.buf = nil
	return w.write(b)
}
