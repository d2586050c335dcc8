package target

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/assay-eval/assay"
)

// Request templates.
//
// URLs, header values, command arguments and every string inside a request
// body are Go text/template templates over the case:
//
//	.ID .Query .K .Tags .Vars .Trial .Variant   (and .Doc in setup for_each: corpus)
//	.Turn .History .Messages                    (conversations)
//
// .K is the case's k (or the suite default, or 10); .Vars holds the case's
// vars and the values captured by earlier steps. A body string that is one
// template action and nothing else ("{{.K}}", "{{.Tags}}") is replaced by the
// JSON value of the action, keeping its type (k: "{{.K}}" sends a number); a
// string with other text around the action is sent as a JSON string. A
// missing map key renders empty.
//
// For a turn of a conversation case, .Turn is its 1-based number, .History
// the earlier messages ({"role": "user"|"assistant", "content": ...},
// oldest first) and .Messages the history followed by the turn's own user
// message: body `messages: "{{.Messages}}"` is the OpenAI-style chat form.
// For a case of one query .Turn is 0, .History empty and .Messages holds
// the one user message. Templates are checked when the file is
// opened, so a misspelt field (.Qeury) is an error at its line and column.

// tmplData is what request templates see.
type tmplData struct {
	ID    string
	Query string
	K     int
	Tags  map[string]string
	Vars  map[string]string
	Trial int
	Doc   assay.Document
	// Variant is the matrix variant the target was opened for.
	Variant map[string]string
	// Turn, History and Messages describe a turn of a conversation.
	Turn     int
	History  []assay.Message
	Messages []assay.Message
}

var tmplFuncs = template.FuncMap{
	"json": func(v any) (string, error) {
		b, err := json.Marshal(v)
		return string(b), err
	},
}

// sampleData is used to check templates when a file is opened.
var sampleData = &tmplData{K: assay.DefaultK, Tags: map[string]string{}, Vars: map[string]string{}, Variant: map[string]string{},
	History: []assay.Message{}, Messages: []assay.Message{}}

// strTmpl is a string that may hold template actions.
type strTmpl struct {
	lit string
	t   *template.Template
}

func compileStr(n *node, what, s string) (strTmpl, error) {
	if !strings.Contains(s, "{{") {
		return strTmpl{lit: s}, nil
	}
	t, err := template.New(what).Funcs(tmplFuncs).Option("missingkey=zero").Parse(s)
	if err != nil {
		return strTmpl{}, n.errorf("%s: %s", what, cleanTmplErr(err))
	}
	if err := t.Execute(io.Discard, sampleData); err != nil {
		return strTmpl{}, n.errorf("%s: %s", what, cleanTmplErr(err))
	}
	return strTmpl{t: t}, nil
}

func (s strTmpl) isTemplate() bool { return s.t != nil }

func (s strTmpl) render(d *tmplData) (string, error) {
	if s.t == nil {
		return s.lit, nil
	}
	var b strings.Builder
	if err := s.t.Execute(&b, d); err != nil {
		return "", fmt.Errorf("%s", cleanTmplErr(err))
	}
	return b.String(), nil
}

// cleanTmplErr drops text/template's "template: NAME:1:2: " prefix noise
// while keeping what went wrong.
func cleanTmplErr(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "template: ")
	if i := strings.Index(msg, ": "); i >= 0 && strings.Count(msg[:i], ":") >= 1 {
		msg = msg[i+2:]
	}
	if strings.HasPrefix(msg, "executing ") {
		if i := strings.Index(msg, " at <"); i >= 0 {
			msg = msg[i+4:]
		}
	}
	if i := strings.Index(msg, " in type *target.tmplData"); i >= 0 {
		msg = msg[:i] + " (fields: .ID .Query .K .Tags .Vars .Trial .Turn .History .Messages .Doc)" + msg[i+len(" in type *target.tmplData"):]
	}
	return msg
}

// bodyTmpl is a compiled request body: a JSON value whose strings may be
// templates.
type bodyTmpl struct {
	kind    bodyKind
	raw     []byte      // literal JSON (scalars)
	keys    []string    // object keys, sorted
	keyJSON [][]byte    // the keys as JSON strings (parallel to keys)
	parts   []*bodyTmpl // object values (parallel to keys) or array items
	str     strTmpl     // text template (a JSON string)
	typed   *template.Template
	// field, for a typed template that is one field of the case
	// (".Query", ".ID", ".K", ".Trial", ".Turn"), is that field: it is
	// rendered as typed would render it, without text/template.
	field string
}

// objectBody is the body of an object with these keys (sorted) and values.
func objectBody(keys []string, parts []*bodyTmpl) *bodyTmpl {
	b := &bodyTmpl{kind: bodyObject, keys: keys, parts: parts, keyJSON: make([][]byte, len(keys))}
	for i, k := range keys {
		b.keyJSON[i], _ = json.Marshal(k)
	}
	return b
}

// caseFields are the fields of tmplData a typed template of one field
// renders without text/template (typedField).
var caseFields = map[string]bool{".Query": true, ".ID": true, ".K": true, ".Trial": true, ".Turn": true}

// typedField writes d's field b.field as the template {{(FIELD) | json}}
// writes it: the json function's json.Marshal of the value.
func (b *bodyTmpl) typedField(w *bytes.Buffer, d *tmplData) {
	var v any
	switch b.field {
	case ".Query":
		v = d.Query
	case ".ID":
		v = d.ID
	case ".K":
		v = d.K
	case ".Trial":
		v = d.Trial
	case ".Turn":
		v = d.Turn
	}
	out, _ := json.Marshal(v) // a string or an int: never an error
	w.Write(out)
}

type bodyKind int

const (
	bodyLiteral bodyKind = iota
	bodyObject
	bodyArray
	bodyString
	bodyTyped
)

func compileBody(n *node, what string) (*bodyTmpl, error) {
	switch n.kind {
	case mapNode:
		idx := make([]int, len(n.keys))
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(a, c int) bool { return n.keys[idx[a]] < n.keys[idx[c]] })
		var keys []string
		var parts []*bodyTmpl
		for _, i := range idx {
			p, err := compileBody(n.vals[i], what+"."+n.keys[i])
			if err != nil {
				return nil, err
			}
			keys = append(keys, n.keys[i])
			parts = append(parts, p)
		}
		return objectBody(keys, parts), nil
	case seqNode:
		b := &bodyTmpl{kind: bodyArray}
		for i, it := range n.items {
			p, err := compileBody(it, fmt.Sprintf("%s[%d]", what, i))
			if err != nil {
				return nil, err
			}
			b.parts = append(b.parts, p)
		}
		return b, nil
	}
	s, ok := n.value.(string)
	if !ok {
		raw, err := json.Marshal(n.value)
		if err != nil {
			return nil, n.errorf("%s: %v", what, err)
		}
		return &bodyTmpl{kind: bodyLiteral, raw: raw}, nil
	}
	if pipe := singleAction(s); pipe != "" {
		t, err := template.New(what).Funcs(tmplFuncs).Option("missingkey=zero").Parse("{{(" + pipe + ") | json}}")
		if err == nil {
			if err := t.Execute(io.Discard, sampleData); err != nil {
				return nil, n.errorf("%s: %s", what, cleanTmplErr(err))
			}
			b := &bodyTmpl{kind: bodyTyped, typed: t}
			if caseFields[pipe] {
				b.field = pipe
			}
			return b, nil
		}
	}
	st, err := compileStr(n, what, s)
	if err != nil {
		return nil, err
	}
	if !st.isTemplate() {
		raw, _ := json.Marshal(s)
		return &bodyTmpl{kind: bodyLiteral, raw: raw}, nil
	}
	return &bodyTmpl{kind: bodyString, str: st}, nil
}

// singleAction returns the pipeline of s when s is exactly one template
// action without variable declarations, else "".
func singleAction(s string) string {
	trees, err := parse.Parse("x", s, "{{", "}}", tmplFuncs, template.FuncMap{})
	if err != nil {
		return ""
	}
	tr := trees["x"]
	if tr == nil || tr.Root == nil || len(tr.Root.Nodes) != 1 {
		return ""
	}
	a, ok := tr.Root.Nodes[0].(*parse.ActionNode)
	if !ok || a.Pipe == nil || len(a.Pipe.Decl) > 0 {
		return ""
	}
	return a.Pipe.String()
}

func (b *bodyTmpl) render(w *bytes.Buffer, d *tmplData) error {
	switch b.kind {
	case bodyLiteral:
		w.Write(b.raw)
	case bodyObject:
		w.WriteByte('{')
		for i, k := range b.keys {
			if i > 0 {
				w.WriteByte(',')
			}
			if i < len(b.keyJSON) {
				w.Write(b.keyJSON[i])
			} else {
				kb, _ := json.Marshal(k)
				w.Write(kb)
			}
			w.WriteByte(':')
			if err := b.parts[i].render(w, d); err != nil {
				return err
			}
		}
		w.WriteByte('}')
	case bodyArray:
		w.WriteByte('[')
		for i, p := range b.parts {
			if i > 0 {
				w.WriteByte(',')
			}
			if err := p.render(w, d); err != nil {
				return err
			}
		}
		w.WriteByte(']')
	case bodyString:
		s, err := b.str.render(d)
		if err != nil {
			return err
		}
		sb, _ := json.Marshal(s)
		w.Write(sb)
	case bodyTyped:
		if b.field != "" {
			b.typedField(w, d)
			break
		}
		if err := b.typed.Execute(w, d); err != nil {
			return fmt.Errorf("%s", cleanTmplErr(err))
		}
	}
	return nil
}

// caseData builds the template data of a case.
func caseData(c assay.Case, k, trial int, vars, variant map[string]string) *tmplData {
	if c.K > 0 {
		k = c.K
	}
	if k <= 0 {
		k = assay.DefaultK
	}
	tags := c.Tags
	if tags == nil {
		tags = map[string]string{}
	}
	history := c.History
	if history == nil {
		history = []assay.Message{}
	}
	messages := append(append(make([]assay.Message, 0, len(history)+1), history...), assay.Message{Role: assay.RoleUser, Content: c.Query})
	return &tmplData{ID: c.ID, Query: c.Query, K: k, Tags: tags, Vars: vars, Trial: trial, Variant: variant,
		Turn: c.Turn, History: history, Messages: messages}
}
