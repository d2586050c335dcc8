package suite

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/assay-eval/assay/internal/yamltree"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/diag"
)

// FormatNuggets is nuggetizer's assignments JSONL (the TREC RAG track's
// nugget assessments), read by `assay import nuggets`.
const FormatNuggets = "nuggets"

// nuggetFields are the keys of one expect.nuggets item written as a mapping.
var nuggetFields = []string{"text", "importance", "match", "regex", "parts", "assign", "assignment"}

// nuggets reads expect.nuggets: a list whose items are a string (a vital
// nugget looked for by its own text) or a mapping of nuggetFields.
func (d *nativeDecoder) nuggets(f yfield) ([]assay.Nugget, error) {
	r := d.r
	if nodeIsNull(f.val) {
		return nil, nil
	}
	if _, ok := nodeScalar(f.val); ok { // one nugget: a list of one
		f.val = &ynode{Kind: yamltree.Seq, Line: f.val.Line, Col: f.val.Col, Items: []*ynode{f.val}}
	}
	seq, ok := asSeq(f.val)
	if !ok {
		return nil, r.errAt(f.val, "nuggets: want a list of nuggets (a string, or a mapping with text:), got %s", nodeDesc(f.val))
	}
	if len(seq.Items) == 0 {
		d.prob(f.val, "nuggets: an empty list scores nothing: give at least one nugget, or remove nuggets")
	}
	out := make([]assay.Nugget, 0, len(seq.Items))
	for i, item := range seq.Items {
		item, err := r.resolve(item)
		if err != nil {
			return nil, err
		}
		what := fmt.Sprintf("nuggets[%d]", i)
		if s, ok := nodeScalar(item); ok {
			if strings.TrimSpace(s) == "" {
				d.prob(item, "%s: an empty nugget matches every answer: write its fact, or remove it", what)
			}
			out = append(out, assay.Nugget{Text: s, Importance: assay.NuggetVital})
			continue
		}
		n, err := d.nugget(what, item)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// nugget reads one nugget written as a mapping.
func (d *nativeDecoder) nugget(what string, item *ynode) (assay.Nugget, error) {
	r := d.r
	fs, err := r.fields(item, what, nuggetFields, nil)
	if err != nil {
		return assay.Nugget{}, err
	}
	n := assay.Nugget{Importance: assay.NuggetVital}
	hasText := false
	for _, f := range fs {
		key := f.key
		f.key = what + "." + f.key
		var err error
		switch key {
		case "text":
			n.Text, err = r.str(f)
			hasText = true
		case "importance":
			var v string
			if v, err = r.str(f); err == nil {
				switch v {
				case assay.NuggetVital, assay.NuggetOkay:
					n.Importance = v
				default:
					return n, r.errAt(f.val, "%s: unknown importance %q (want vital or okay)", f.key, v)
				}
			}
		case "match":
			var nodes []*ynode
			if n.Match, nodes, err = r.strList(f); err == nil {
				for j, v := range n.Match {
					if v == "" {
						d.prob(nodes[j], "%s[%d]: an empty string matches every answer: remove it", f.key, j)
					}
				}
				if n.Match != nil && len(n.Match) == 0 {
					d.prob(f.val, "%s: an empty list matches nothing: give at least one string, or remove match", f.key)
				}
			}
		case "regex":
			if n.Regex, err = r.str(f); err == nil && n.Regex != "" {
				if _, rerr := regexp.Compile(n.Regex); rerr != nil {
					d.prob(f.val, "%s: invalid regexp: %s", f.key, strings.TrimPrefix(rerr.Error(), "error parsing regexp: "))
				}
			}
		case "parts":
			n.Parts, err = d.nuggetParts(f)
		case "assign":
			var v string
			if v, err = r.str(f); err == nil {
				switch v {
				case "", "rule":
				case assay.NuggetAssignJudge:
					n.Assign = v
				default:
					return n, r.errAt(f.val, "%s: unknown value %q (want rule or judge)", f.key, v)
				}
			}
		case "assignment":
			var v string
			if v, err = r.str(f); err == nil {
				switch v {
				case assay.NuggetSupport, assay.NuggetPartialSupport, assay.NuggetNotSupport:
					n.Assignment = v
				default:
					return n, r.errAt(f.val, "%s: unknown assignment %q (want support, partial_support or not_support)", f.key, v)
				}
			}
		}
		if err != nil {
			return n, err
		}
	}
	if !hasText || strings.TrimSpace(n.Text) == "" {
		return n, r.errAt(item, "%s: missing text: every nugget states its fact (text: ...)", what)
	}
	if n.Assign != "" && n.Assignment != "" {
		return n, r.errAt(item, "%s: assign: judge and a recorded assignment exclude each other: keep one", what)
	}
	return n, nil
}

// nuggetParts reads parts: a list whose items are a string or a list of
// alternative strings.
func (d *nativeDecoder) nuggetParts(f yfield) ([][]string, error) {
	r := d.r
	if nodeIsNull(f.val) {
		return nil, nil
	}
	seq, ok := asSeq(f.val)
	if !ok {
		return nil, r.errAt(f.val, "%s: want a list of parts (each a string or a list of alternatives), got %s", f.key, nodeDesc(f.val))
	}
	if len(seq.Items) < 2 {
		d.prob(f.val, "%s: a nugget in parts has at least two; use match: for one", f.key)
	}
	out := make([][]string, 0, len(seq.Items))
	for j, item := range seq.Items {
		item, err := r.resolve(item)
		if err != nil {
			return nil, err
		}
		alts, nodes, err := r.strList(yfield{key: fmt.Sprintf("%s[%d]", f.key, j), val: item})
		if err != nil {
			return nil, err
		}
		if len(alts) == 0 {
			d.prob(item, "%s[%d]: an empty part: give a string or a list of alternatives", f.key, j)
		}
		for k, a := range alts {
			if a == "" {
				d.prob(nodes[k], "%s[%d]: an empty string matches every answer: remove it", f.key, j)
			}
		}
		out = append(out, alts)
	}
	return out, nil
}

// nuggetNoVital reads the suite's nugget_no_vital.
func (d *nativeDecoder) nuggetNoVital(f yfield) error {
	v, err := d.r.str(f)
	if err != nil {
		return err
	}
	switch v {
	case "", assay.NuggetNoVitalUndefined, assay.NuggetNoVitalZero:
		d.p.suite.NuggetNoVital = v
		return nil
	}
	return d.r.errAt(f.val, "nugget_no_vital: unknown value %q (want undefined or zero)", v)
}

// exportNugget is a nugget as WriteNative writes it: the short form (a
// string) when it is a vital nugget matched by its own text.
type exportNugget struct {
	Text       string     `yaml:"text"`
	Importance string     `yaml:"importance,omitempty"`
	Match      []string   `yaml:"match,omitempty,flow"`
	Regex      string     `yaml:"regex,omitempty"`
	Parts      [][]string `yaml:"parts,omitempty,flow"`
	Assign     string     `yaml:"assign,omitempty"`
	Assignment string     `yaml:"assignment,omitempty"`
}

func exportNuggets(ns []assay.Nugget) []any {
	if len(ns) == 0 {
		return nil
	}
	out := make([]any, len(ns))
	for i, n := range ns {
		if n.Vital() && len(n.Match) == 0 && n.Regex == "" && len(n.Parts) == 0 && n.Assign == "" && n.Assignment == "" {
			out[i] = n.Text
			continue
		}
		e := exportNugget{Text: n.Text, Match: n.Match, Regex: n.Regex, Parts: n.Parts, Assign: n.Assign, Assignment: n.Assignment}
		if !n.Vital() {
			e.Importance = assay.NuggetOkay
		}
		out[i] = e
	}
	return out
}

// nuggetizerRecord is one line of nuggetizer's assignments JSONL (its
// assign step's output): a response's nuggets with their assignments.
type nuggetizerRecord struct {
	QID     *json.RawMessage `json:"qid"`
	Query   string           `json:"query"`
	RunID   string           `json:"run_id"`
	Nuggets []struct {
		Text       *string `json:"text"`
		Importance string  `json:"importance"`
		Assignment string  `json:"assignment"`
	} `json:"nuggets"`
}

// loadNuggetizer reads nuggetizer's assignments JSONL: one object a line,
// {qid, query, run_id?, nuggets: [{text, importance, assignment}]}. Each
// line becomes a case (id = qid, tag run_id) whose expect.nuggets carry
// the recorded assignments, so that the suite scores them as nuggetizer
// does; the suite sets nugget_no_vital: zero, nuggetizer's reading of a
// response with no vital nugget. A qid may appear once (import one run's
// assignments at a time). Errors name the line and the field.
func loadNuggetizer(path string, data []byte) (*assay.Suite, error) {
	s := newSuite(path, FormatNuggets)
	s.Metrics = nil
	s.NuggetNoVital = assay.NuggetNoVitalZero
	seen := map[string]int{}
	br := bufio.NewReader(bytes.NewReader(data))
	runs := map[string]bool{}
	for ln := 1; ; ln++ {
		line, err := boundedfile.ReadLine(br, maxJSONLLine)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, Errorf(path, ln, 0, "%s", boundedfile.Reason(err))
		}
		eof := errors.Is(err, io.EOF)
		line = bytes.TrimSpace(line)
		if ln == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		if len(line) > 0 {
			c, err := nuggetizerCase(path, ln, line)
			if err != nil {
				return nil, err
			}
			if first, dup := seen[c.ID]; dup {
				return nil, Errorf(path, ln, 1, "qid %q repeats (first at line %d): import the assignments of one run at a time", c.ID, first)
			}
			seen[c.ID] = ln
			if c.Tags["run_id"] != "" {
				runs[c.Tags["run_id"]] = true
			}
			s.Cases = append(s.Cases, c)
		}
		if eof {
			break
		}
	}
	if len(s.Cases) == 0 {
		return nil, Errorf(path, 0, 0, "no assignments: want one JSON object a line, {\"qid\", \"nuggets\": [{\"text\", \"importance\", \"assignment\"}]}")
	}
	if len(runs) > 1 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %d run_ids in one file: each case keeps its run_id tag", path, len(runs)))
	}
	return s, nil
}

// nuggetizerCase decodes one line.
func nuggetizerCase(path string, ln int, line []byte) (assay.Case, error) {
	if !utf8.Valid(line) {
		return assay.Case{}, Errorf(path, ln, 1, "not valid UTF-8")
	}
	var rec nuggetizerRecord
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&rec); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			col, msg := diag.JSON(err)
			return assay.Case{}, Errorf(path, ln, col, "%s", msg)
		}
		col := 1
		var se *json.SyntaxError
		if errors.As(err, &se) {
			col = int(se.Offset)
		}
		return assay.Case{}, Errorf(path, ln, max(col, 1), "not a JSON object: %v", err)
	}
	if dec.More() {
		return assay.Case{}, Errorf(path, ln, int(dec.InputOffset())+1, "more than one JSON value on the line: want one object a line")
	}
	if rec.QID == nil {
		return assay.Case{}, Errorf(path, ln, 1, "missing qid")
	}
	id := qidString(*rec.QID)
	if id == "" {
		return assay.Case{}, Errorf(path, ln, 1, "qid: want a string or a number, got %s", string(*rec.QID))
	}
	c := assay.Case{ID: id, Query: rec.Query, Source: fmt.Sprintf("%s:%d", path, ln)}
	if c.Query == "" {
		c.Query = id
	}
	if rec.RunID != "" {
		c.Tags = map[string]string{"run_id": rec.RunID}
	}
	if len(rec.Nuggets) == 0 {
		return assay.Case{}, Errorf(path, ln, 1, "qid %s: no nuggets: nuggetizer scores a response by its nuggets", id)
	}
	for i, n := range rec.Nuggets {
		if n.Text == nil || strings.TrimSpace(*n.Text) == "" {
			return assay.Case{}, Errorf(path, ln, 1, "qid %s: nuggets[%d]: missing text", id, i)
		}
		switch n.Importance {
		case assay.NuggetVital, assay.NuggetOkay:
		default:
			return assay.Case{}, Errorf(path, ln, 1, "qid %s: nuggets[%d]: importance %q (want vital or okay)", id, i, n.Importance)
		}
		switch n.Assignment {
		case assay.NuggetSupport, assay.NuggetPartialSupport, assay.NuggetNotSupport:
		default:
			return assay.Case{}, Errorf(path, ln, 1, "qid %s: nuggets[%d]: assignment %q (want support, partial_support or not_support)", id, i, n.Assignment)
		}
		c.Expect.Nuggets = append(c.Expect.Nuggets, assay.Nugget{Text: *n.Text, Importance: n.Importance, Assignment: n.Assignment})
	}
	return c, nil
}

// qidString is a qid written as a JSON string or number.
func qidString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}
