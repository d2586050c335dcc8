package trec

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// RAGAnswer is one line of a TREC RAG answer file (the format of the TREC
// 2024 and 2025 RAG tracks' AG and RAG tasks, docs/targets.md#trec-rag):
// the answer of one run to one topic, as sentences that cite the
// references by their 0-based index.
type RAGAnswer struct {
	RunID          string        `json:"run_id"`
	TopicID        string        `json:"topic_id"`
	Topic          string        `json:"topic"`
	References     []string      `json:"references"`
	ResponseLength int           `json:"response_length"`
	Answer         []RAGSentence `json:"answer"`
}

// RAGSentence is one sentence of a RAGAnswer and the references it cites.
type RAGSentence struct {
	Text      string `json:"text"`
	Citations []int  `json:"citations"`
}

// Check reports what makes a an answer the format cannot hold: an empty
// topic_id, an empty reference, or a citation that is not an index into
// the references.
func (a RAGAnswer) Check() error {
	if a.TopicID == "" {
		return fmt.Errorf("topic_id is empty")
	}
	for i, r := range a.References {
		if r == "" {
			return fmt.Errorf("references[%d] is empty", i)
		}
	}
	for i, s := range a.Answer {
		for _, c := range s.Citations {
			if c < 0 || c >= len(a.References) {
				return fmt.Errorf("answer[%d] cites %d, which is not an index into the %d references (0 to %d)", i, c, len(a.References), len(a.References)-1)
			}
		}
	}
	return nil
}

// Words is the response length the writer records: the number of
// whitespace-separated words of the answer's sentences.
func (a RAGAnswer) Words() int {
	n := 0
	for _, s := range a.Answer {
		n += len(strings.Fields(s.Text))
	}
	return n
}

// RAGWriter writes RAG answers, one JSON object a line, in the field order
// of the track's files. It is the one encoder of the format.
type RAGWriter struct {
	w   *bufio.Writer
	buf bytes.Buffer
	enc *json.Encoder
	err error
}

// NewRAGWriter returns a writer of answer lines to w.
func NewRAGWriter(w io.Writer) *RAGWriter {
	rw := &RAGWriter{w: bufio.NewWriterSize(w, 64<<10)}
	rw.enc = json.NewEncoder(&rw.buf)
	rw.enc.SetEscapeHTML(false)
	return rw
}

// Add writes one answer (Check must pass); nil references, sentences and
// citations are written as [].
func (rw *RAGWriter) Add(a RAGAnswer) error {
	if rw.err != nil {
		return rw.err
	}
	if err := a.Check(); err != nil {
		return fmt.Errorf("topic %q: %w", a.TopicID, err)
	}
	if a.References == nil {
		a.References = []string{}
	}
	if a.Answer == nil {
		a.Answer = []RAGSentence{}
	}
	for i := range a.Answer {
		if a.Answer[i].Citations == nil {
			a.Answer[i].Citations = []int{}
		}
	}
	rw.buf.Reset()
	if err := rw.enc.Encode(a); err != nil {
		return err
	}
	if _, err := rw.w.Write(rw.buf.Bytes()); err != nil {
		rw.err = err
		return err
	}
	return nil
}

// Flush writes what is buffered.
func (rw *RAGWriter) Flush() error {
	if rw.err != nil {
		return rw.err
	}
	rw.err = rw.w.Flush()
	return rw.err
}
