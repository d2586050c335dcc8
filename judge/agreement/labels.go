package agreement

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/diag"
)

// Bounds of a labels file.
const (
	// MaxLabelLine is the longest line of a labels file.
	MaxLabelLine = 1 << 20
	// MaxLabels is how many labelled rows a labels file may hold.
	MaxLabels = 1_000_000
)

// LabelsLimit is the size limit of a labels file.
var LabelsLimit = boundedfile.Limit{What: "labels file", Max: 256 * boundedfile.MiB, Pipe: true}

// Label is one person's verdict on one case and criterion: a line of a
// labels file. Exactly one of Label (pass or fail) and Score (a number on
// the criterion's scale) is set on a labelled row; a row with neither is
// not labelled yet (a template row) and is skipped.
type Label struct {
	Case      string   `json:"case"`
	Criterion string   `json:"criterion"`
	Label     *bool    `json:"label"`
	Score     *float64 `json:"score,omitempty"`
	Labeller  string   `json:"labeller"`
	Time      string   `json:"time"`
	// Query and Answer are the case's question and the system's answer,
	// written by the template for the person labelling; they are not read.
	Query  string `json:"query,omitempty"`
	Answer string `json:"answer,omitempty"`
	// Line is the row's line in its file (1-based), for messages.
	Line int `json:"-"`
}

// Labels is what a labels file holds.
type Labels struct {
	// File names the file in messages.
	File string
	// Rows are the labelled rows, in file order.
	Rows []Label
	// Unlabelled counts the rows with neither label nor score.
	Unlabelled int
}

type labelKey struct{ c, cr, who string }

// ReadLabels reads a labels file (JSON Lines, docs/judge.md) from r; name
// is the file's name in messages. Every fault is a positioned error
// ("name:line:col: msg"): a line that is not one JSON object of the
// format, an unknown field, a row without case or criterion, a row with
// both label and score or a score that is not a finite number, a time
// that is not RFC 3339, the same case, criterion and labeller twice, a
// line longer than MaxLabelLine, more than MaxLabels rows.
func ReadLabels(r io.Reader, name string) (*Labels, error) {
	out := &Labels{File: name}
	br := bufio.NewReaderSize(r, 64*1024)
	seen := map[labelKey]int{}
	for line := 1; ; line++ {
		b, err := boundedfile.ReadLine(br, MaxLabelLine)
		if err == io.EOF && len(b) == 0 {
			return out, nil
		}
		if err != nil && err != io.EOF {
			var tl *boundedfile.TooLargeError
			if errors.As(err, &tl) {
				return nil, diag.Errorf(name, line, 0, "%v", err)
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			if err == io.EOF {
				return out, nil
			}
			continue
		}
		l, perr := parseLabel(b)
		if perr != nil {
			return nil, diag.Errorf(name, line, perr.col, "%s", perr.msg)
		}
		l.Line = line
		if l.Label == nil && l.Score == nil {
			out.Unlabelled++
		} else {
			k := labelKey{l.Case, l.Criterion, l.Labeller}
			if first, ok := seen[k]; ok {
				return nil, diag.Errorf(name, line, 0, "case %q, criterion %q labelled twice by %q (first on line %d)", l.Case, l.Criterion, l.Labeller, first)
			}
			if len(out.Rows) >= MaxLabels {
				return nil, diag.Errorf(name, line, 0, "more than %d labels", MaxLabels)
			}
			seen[k] = line
			out.Rows = append(out.Rows, l)
		}
		if err == io.EOF {
			return out, nil
		}
	}
}

// ReadLabelsFile reads the labels file at path (ReadLabels), bounded by
// LabelsLimit.
func ReadLabelsFile(path string) (*Labels, error) {
	f, err := boundedfile.Open(path, LabelsLimit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadLabels(f, path)
}

type lineError struct {
	col int
	msg string
}

func parseLabel(b []byte) (Label, *lineError) {
	var l Label
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		col := 0
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			col = int(se.Offset)
		case errors.As(err, &te):
			col = int(te.Offset)
			return l, &lineError{col, fmt.Sprintf("field %s: want %s, got a JSON %s", te.Field, wantOf(te.Field), te.Value)}
		}
		msg := strings.TrimPrefix(err.Error(), "json: ")
		return l, &lineError{col, "not a label (want {\"case\": ..., \"criterion\": ..., \"label\": true|false or \"score\": N, \"labeller\": ..., \"time\": ...}): " + msg}
	}
	if dec.More() {
		return l, &lineError{int(dec.InputOffset()) + 1, "more than one JSON value on the line"}
	}
	switch {
	case l.Case == "":
		return l, &lineError{0, "no case id (\"case\")"}
	case l.Criterion == "":
		return l, &lineError{0, "no criterion (\"criterion\")"}
	case l.Label != nil && l.Score != nil:
		return l, &lineError{0, "both label and score: give one"}
	case l.Score != nil && (math.IsNaN(*l.Score) || math.IsInf(*l.Score, 0)):
		return l, &lineError{0, "score is not a finite number"}
	}
	if l.Time != "" {
		if _, err := time.Parse(time.RFC3339, l.Time); err != nil {
			return l, &lineError{0, fmt.Sprintf("time %q: want RFC 3339, such as 2026-12-01T10:00:00Z", l.Time)}
		}
	}
	return l, nil
}

func wantOf(field string) string {
	switch field {
	case "label":
		return "true, false or null"
	case "score":
		return "a number"
	}
	return "a string"
}

// TemplateRow is one row of a labels template: a case and criterion to
// label.
type TemplateRow struct {
	Case, Criterion, Query, Answer string
}

// WriteTemplate writes a labels file with one unlabelled row per case and
// criterion (label null, labeller and time empty, the question and the
// answer when known), for people to fill in.
// The judge's scores are not written: a person who sees them is not an
// independent check.
func WriteTemplate(w io.Writer, rows []TemplateRow) error {
	bw := bufio.NewWriter(w)
	for _, r := range rows {
		b, err := json.Marshal(Label{Case: r.Case, Criterion: r.Criterion, Query: r.Query, Answer: r.Answer})
		if err != nil {
			return err
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
