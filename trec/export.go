package trec

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// RunWriter writes rankings as a TREC run file, one line per ranked
// document: "qid Q0 docno rank score tag". The score is the number of
// documents ranked below it plus one (n for rank 1, 1 for rank n), so that
// trec_eval, ranx and ir_measures, which all order a topic by score,
// reproduce the ranking exactly as it was returned: a target's own scores
// may be missing, tied or not in rank order.
type RunWriter struct {
	w   *bufio.Writer
	tag string
	buf []byte
	err error
}

// NewRunWriter returns a writer of run lines tagged tag (the run id, or a
// name the user chose). The tag must be one TREC field.
func NewRunWriter(w io.Writer, tag string) (*RunWriter, error) {
	if err := checkField("run tag", tag); err != nil {
		return nil, err
	}
	return &RunWriter{w: bufio.NewWriterSize(w, 64<<10), tag: tag}, nil
}

// Unnamed is the docno written for a ranked hit that has no id (an empty
// entry of the ranking), followed by its rank: it keeps its place in the
// ranking and matches no judgment, as in assay's own metrics.
const Unnamed = "assay:unnamed:"

// Add writes the ranking of topic qid (document ids, rank 1 first, already
// free of repeats). An empty ranking writes nothing: a TREC run has no way
// to say a topic retrieved nothing, so trec_eval needs -c to count it.
func (rw *RunWriter) Add(qid string, ranking []string) error {
	if rw.err != nil {
		return rw.err
	}
	if err := checkField("case id", qid); err != nil {
		return err
	}
	for i, d := range ranking {
		if d == "" {
			d = Unnamed + strconv.Itoa(i+1)
		} else if err := checkField(fmt.Sprintf("case %s: document id", qid), d); err != nil {
			return err
		}
		b := rw.buf[:0]
		b = append(b, qid...)
		b = append(b, " Q0 "...)
		b = append(b, d...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(len(ranking)-i), 10)
		b = append(b, ' ')
		b = append(b, rw.tag...)
		b = append(b, '\n')
		rw.buf = b
		if _, err := rw.w.Write(b); err != nil {
			rw.err = err
			return err
		}
	}
	return nil
}

// Flush writes what is buffered.
func (rw *RunWriter) Flush() error {
	if rw.err != nil {
		return rw.err
	}
	rw.err = rw.w.Flush()
	return rw.err
}

// QrelsWriter writes judgments as a TREC qrels file, "qid 0 docno grade",
// one line per judgment, the docnos of a topic in byte order.
type QrelsWriter struct {
	w   *bufio.Writer
	err error
}

// NewQrelsWriter returns a writer of qrels lines.
func NewQrelsWriter(w io.Writer) *QrelsWriter {
	return &QrelsWriter{w: bufio.NewWriterSize(w, 64<<10)}
}

// Add writes the judgments of topic qid (document id to grade). A topic
// without judgments writes nothing.
func (qw *QrelsWriter) Add(qid string, judgments map[string]int) error {
	if qw.err != nil {
		return qw.err
	}
	if len(judgments) == 0 {
		return nil
	}
	if err := checkField("case id", qid); err != nil {
		return err
	}
	docs := make([]string, 0, len(judgments))
	for d := range judgments {
		if err := checkField(fmt.Sprintf("case %s: judged document id", qid), d); err != nil {
			return err
		}
		docs = append(docs, d)
	}
	slices.Sort(docs)
	var b []byte
	for _, d := range docs {
		b = append(b, qid...)
		b = append(b, " 0 "...)
		b = append(b, d...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(judgments[d]), 10)
		b = append(b, '\n')
	}
	if _, err := qw.w.Write(b); err != nil {
		qw.err = err
		return err
	}
	return nil
}

// Flush writes what is buffered.
func (qw *QrelsWriter) Flush() error {
	if qw.err != nil {
		return qw.err
	}
	qw.err = qw.w.Flush()
	return qw.err
}

// checkField reports a value that cannot be one whitespace-separated field
// of a TREC file: empty, holding a space or a control byte, or (a qid, or
// any first field) starting with '#', which trec_eval reads as a comment.
func checkField(what, v string) error {
	if v == "" {
		return fmt.Errorf("%s is empty, which a TREC file cannot hold", what)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c <= ' ' || c == 0x7f {
			return fmt.Errorf("%s %s holds whitespace or a control byte, which a TREC file cannot hold (fields are separated by whitespace)", what, strconv.Quote(v))
		}
	}
	if v[0] == '#' && what == "case id" {
		return fmt.Errorf("%s %s starts with '#', which trec_eval reads as a comment line", what, strconv.Quote(v))
	}
	return nil
}
