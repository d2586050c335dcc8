package suite

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/diag"
	"github.com/assay-eval/assay/internal/nesting"
)

// Labels: judgments made by people, one per line.
//
// A label is one person's grade of one document for one case:
//
//	{"case": "q1", "doc": "kiln.md", "grade": 2, "labeller": "ana", "time": "2026-12-07T10:00:00Z"}
//
// It is the line of three files: the pool file `assay pool` writes (with
// "grade": null and the query, title and text to read), the labels file
// people hand back (the same lines with grades), and the judgments file a
// suite names in `judgments_file:`, where `assay judgments import` keeps
// them. Other fields (query, title, text, rank, runs) are read and ignored;
// a line whose grade is null or absent is unlabelled and skipped. "labeller"
// and "time" (RFC 3339) are optional. A TSV file (a .tsv name) has a header
// line naming at least the columns case, doc and grade, optionally
// labeller and time, in any order; an empty grade is unlabelled.

// Label is one judgment a person made.
type Label struct {
	Case     string `json:"case"`
	Doc      string `json:"doc"`
	Grade    int    `json:"grade"`
	Labeller string `json:"labeller,omitempty"`
	// Time is when it was labelled (RFC 3339), "" when not told.
	Time string `json:"time,omitempty"`
	// Line is the line of the file it was read from.
	Line int `json:"-"`
}

type labelLine struct {
	Case     json.RawMessage `json:"case"`
	Doc      json.RawMessage `json:"doc"`
	Grade    json.RawMessage `json:"grade"`
	Labeller string          `json:"labeller"`
	Time     string          `json:"time"`
}

// ReadLabels reads labels (JSONL, or TSV when tsv) from r; name is used in
// positioned errors ("labels.jsonl:3:9: grade: want an integer, got
// string"). It returns the labelled lines in file order and how many lines
// were unlabelled. A line longer than boundedfile.MaxLine is an error.
func ReadLabels(name string, r io.Reader, tsv bool) ([]Label, int, error) {
	if tsv {
		return readLabelsTSV(name, r)
	}
	br := bufio.NewReaderSize(r, 1<<16)
	var out []Label
	unlabelled := 0
	for line := 1; ; line++ {
		b, err := boundedfile.ReadLine(br, boundedfile.MaxLine)
		if err != nil && err != io.EOF {
			return nil, 0, diag.Errorf(name, line, 0, "%v", err)
		}
		if t := bytes.TrimSpace(b); len(t) > 0 {
			l, ok, perr := labelJSON(name, line, t)
			if perr != nil {
				return nil, 0, perr
			}
			if ok {
				out = append(out, l)
			} else {
				unlabelled++
			}
		}
		if err == io.EOF {
			break
		}
	}
	return out, unlabelled, nil
}

func labelJSON(name string, line int, t []byte) (Label, bool, error) {
	if e := nesting.JSON(t); e != nil {
		return Label{}, false, diag.Errorf(name, line, e.Col, "%s", e.Msg)
	}
	if t[0] != '{' {
		return Label{}, false, diag.Errorf(name, line, 1, "want a JSON object per line")
	}
	var j labelLine
	if err := json.Unmarshal(t, &j); err != nil {
		col, msg := diag.JSON(err)
		return Label{}, false, diag.Errorf(name, line, col, "%s", msg)
	}
	cs, err := labelString(j.Case)
	if err != nil {
		return Label{}, false, diag.Errorf(name, line, 0, "case: %v", err)
	}
	doc, err := labelString(j.Doc)
	if err != nil {
		return Label{}, false, diag.Errorf(name, line, 0, "doc: %v", err)
	}
	l := Label{Case: cs, Doc: doc, Labeller: j.Labeller, Time: j.Time, Line: line}
	if len(j.Grade) == 0 || string(j.Grade) == "null" {
		return l, false, checkLabel(name, line, l, false)
	}
	g, err := strconv.Atoi(string(j.Grade))
	if err != nil {
		return Label{}, false, diag.Errorf(name, line, 0, "grade: want an integer such as 1, got %s", diag.OneLine(string(j.Grade)))
	}
	l.Grade = g
	return l, true, checkLabel(name, line, l, true)
}

// labelString reads a case or doc id: a string or a number.
func labelString(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", fmt.Errorf("missing")
	}
	var s string
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
	} else if _, err := strconv.ParseFloat(string(raw), 64); err == nil {
		s = string(raw)
	} else {
		return "", fmt.Errorf("want a string, got %s", diag.OneLine(string(raw)))
	}
	if s == "" {
		return "", fmt.Errorf("empty")
	}
	return s, nil
}

func checkLabel(name string, line int, l Label, graded bool) error {
	if l.Case == "" {
		return diag.Errorf(name, line, 0, "case: missing")
	}
	if l.Doc == "" {
		return diag.Errorf(name, line, 0, "doc: missing")
	}
	if graded && l.Time != "" {
		if _, err := time.Parse(time.RFC3339, l.Time); err != nil {
			return diag.Errorf(name, line, 0, "time: want an RFC 3339 time such as 2026-12-07T10:00:00Z, got %q", l.Time)
		}
	}
	return nil
}

func readLabelsTSV(name string, r io.Reader) ([]Label, int, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	col := map[string]int{}
	var out []Label
	unlabelled := 0
	for line := 1; ; line++ {
		b, err := boundedfile.ReadLine(br, boundedfile.MaxLine)
		if err != nil && err != io.EOF {
			return nil, 0, diag.Errorf(name, line, 0, "%v", err)
		}
		// Invalid UTF-8 reads as U+FFFD, as it does in JSON.
		s := strings.ToValidUTF8(strings.TrimRight(string(b), "\r\n"), "\uFFFD")
		switch {
		case strings.TrimSpace(s) == "":
		case len(col) == 0:
			for i, h := range strings.Split(s, "\t") {
				col[strings.ToLower(strings.TrimSpace(h))] = i
			}
			for _, need := range []string{"case", "doc", "grade"} {
				if _, ok := col[need]; !ok {
					return nil, 0, diag.Errorf(name, line, 0, "header: no %q column (want a header line naming case, doc and grade, tab-separated)", need)
				}
			}
		default:
			f := strings.Split(s, "\t")
			get := func(k string) string {
				if i, ok := col[k]; ok && i < len(f) {
					return strings.TrimSpace(f[i])
				}
				return ""
			}
			l := Label{Case: get("case"), Doc: get("doc"), Labeller: get("labeller"), Time: get("time"), Line: line}
			g := get("grade")
			if g == "" {
				if err := checkLabel(name, line, l, false); err != nil {
					return nil, 0, err
				}
				unlabelled++
				break
			}
			n, cerr := strconv.Atoi(g)
			if cerr != nil {
				return nil, 0, diag.Errorf(name, line, 0, "grade: want an integer such as 1, got %q", g)
			}
			l.Grade = n
			if err := checkLabel(name, line, l, true); err != nil {
				return nil, 0, err
			}
			out = append(out, l)
		}
		if err == io.EOF {
			break
		}
	}
	if len(col) == 0 {
		return nil, 0, diag.Errorf(name, 0, 0, "no header line (want one naming case, doc and grade, tab-separated)")
	}
	return out, unlabelled, nil
}

// WriteLabels writes labels as JSONL, one per line, in the order given.
func WriteLabels(w io.Writer, labels []Label) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, l := range labels {
		if err := enc.Encode(l); err != nil {
			return err
		}
	}
	return nil
}

// OpenLabels reads the labels file at path (bounded: boundedfile.Labels;
// TSV when its name ends in .tsv).
func OpenLabels(path string) ([]Label, int, error) {
	f, err := boundedfile.Open(path, boundedfile.Labels)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	return ReadLabels(path, f, strings.HasSuffix(strings.ToLower(path), ".tsv"))
}

// mergeJudgmentsFile adds the labels of the suite's judgments_file to its
// cases' judgments. A file that does not exist yet holds no labels (assay
// judgments import creates it), with a warning. A label of a case the
// suite lacks, a document labelled twice for one case, or a grade that
// differs from the case's own judgment of the document is a problem at
// the label's line.
func mergeJudgmentsFile(s *assay.Suite, p *parsed) error {
	full := resolvePath(s.Dir, p.judgmentsFile)
	s.JudgmentsFile = full
	if _, err := os.Stat(full); errors.Is(err, fs.ErrNotExist) {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s:%d: judgments_file: %s does not exist yet: no judgments read from it (assay judgments import creates it)", s.Path, p.judgmentsLine, p.judgmentsFile))
		return nil
	}
	labels, _, err := OpenLabels(full)
	if err != nil {
		return err
	}
	index := make(map[string]int, len(s.Cases))
	for i, c := range s.Cases {
		index[c.ID] = i
	}
	type key struct{ c, d string }
	seen := make(map[key]int, len(labels))
	for _, l := range labels {
		i, ok := index[l.Case]
		if !ok {
			p.probs = append(p.probs, problem{file: full, line: l.Line, msg: fmt.Sprintf("case %q: no such case in the suite", l.Case)})
			continue
		}
		if first, dup := seen[key{l.Case, l.Doc}]; dup {
			p.probs = append(p.probs, problem{file: full, line: l.Line, msg: fmt.Sprintf("case %q: document %q labelled twice (first at line %d)", l.Case, l.Doc, first)})
			continue
		}
		seen[key{l.Case, l.Doc}] = l.Line
		c := &s.Cases[i]
		if g, judged := c.Judgments[l.Doc]; judged {
			if g != l.Grade {
				p.probs = append(p.probs, problem{file: full, line: l.Line, msg: fmt.Sprintf("case %q: document %q graded %d here and %d in the suite's judgments", l.Case, l.Doc, l.Grade, g)})
			}
			continue
		}
		if c.Judgments == nil {
			c.Judgments = map[string]int{}
		}
		c.Judgments[l.Doc] = l.Grade
	}
	return nil
}
