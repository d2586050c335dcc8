package target

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/nesting"
	"github.com/assay-eval/assay/redact"
	"github.com/tidwall/gjson"
)

// Response mapping.
//
// A map: block says where each observation field is found in a response.
// Each value is a gjson path into the JSON body ("hits.#.doc_id"), or
// "header:NAME" to read a response header, optionally prefixed with the
// name of a step ("trace:answer", "trace:header:x-docs"); without a step
// prefix the last step's response is read. Fields:
//
//	answer            text (a non-string JSON value is kept as its JSON text)
//	retrieved         a list of ids, or of objects with id (or _id, doc_id,
//	                  docid, docId), score, title, path, text; a header holds
//	                  a JSON list or a comma-separated list of titles; a
//	                  present but empty value (a header "x-docs:" sent
//	                  with a refusal, a body "") is an empty list, as for
//	                  citations and tools
//	citations         a list of objects with id/title/path/quote, or of strings
//	refused           true/false (null: not reported)
//	tools             a list of {name, args, error}, or of names
//	outcome           text
//	approval_pending  true/false
//	latency_ms        a number: the system's own latency instead of the
//	                  wall-clock time assay measured
//	spans versions usage   objects in the observation shape
//	any other name    kept in the observation's fields (for json_schema)
//
// Without a map: the body is read as an observation in its JSON shape (docs/observations.md), its
// "error" ({class, message}) included: such an observation is a failed one.

// mapField is one mapped observation field.
type mapField struct {
	name   string
	step   string // "" = the last step
	header string // header name, when reading a header
	path   string // gjson path, when reading the body
}

var knownMapFields = []string{"answer", "retrieved", "citations", "refused", "tools", "outcome", "approval_pending", "latency_ms", "spans", "versions", "usage", "measures"}

// defaultMap reads a body in the observation shape.
func defaultMap() []mapField {
	var out []mapField
	for _, f := range knownMapFields {
		if f == "latency_ms" {
			continue
		}
		out = append(out, mapField{name: f, path: f})
	}
	// A body in the observation shape may carry its own error (another
	// assay serving as the system under test, a proxy of one).
	return append(out, mapField{name: "error", path: "error"})
}

// parseMap reads a map: block. steps are the known step names; headers
// says whether header: sources are possible (not for commands).
func parseMap(n *node, steps []string, headers bool) ([]mapField, error) {
	if n.kind != mapNode {
		return nil, n.errorf("map: want a mapping of observation field to path")
	}
	var out []mapField
	for i, k := range n.keys {
		v := n.vals[i]
		s, err := v.str("map." + k)
		if err != nil {
			return nil, err
		}
		if s == "" {
			return nil, v.errorf("map.%s: empty path", k)
		}
		f := mapField{name: k}
		if pre, rest, ok := strings.Cut(s, ":"); ok && pre != "header" {
			found := false
			for _, st := range steps {
				if st == pre {
					found = true
				}
			}
			if found {
				f.step, s = pre, rest
			} else if len(steps) > 0 && !strings.ContainsAny(pre, ".#|@*?") {
				return nil, v.errorf("map.%s: no step named %q (steps: %s)", k, pre, strings.Join(steps, ", "))
			}
		}
		if h, ok := strings.CutPrefix(s, "header:"); ok {
			if !headers {
				return nil, v.errorf("map.%s: a command has no headers", k)
			}
			if h == "" {
				return nil, v.errorf("map.%s: header: needs a header name", k)
			}
			f.header = http.CanonicalHeaderKey(h)
		} else {
			f.path = s
		}
		out = append(out, f)
	}
	return out, nil
}

// response is what one step received.
type response struct {
	body   []byte
	header http.Header
	json   int8             // 0 unknown, 1 valid, -1 invalid, -2 nested too deeply
	red    *redact.Redactor // the snippet of a body that is not JSON is redacted before it is cut
	// top are the keys of a body that is a JSON object and the value each
	// first has, read in one pass when a path first names one key (get);
	// topRead says whether they were read, topOK whether the body is an
	// object.
	top            []topValue
	topRead, topOK bool
}

// topValue is a key of a body's object, where its (first) value starts
// and that value as written.
type topValue struct {
	key, raw string
	index    int
}

// get is gjson.GetBytes(r.body, path), for a body checkJSON accepted. A
// path that names one key of a body that is an object (the default map's
// every path) is looked up among the body's keys, read once for all the
// fields, rather than by a scan of the body per field; what it finds is
// what gjson finds there, the first value of that key.
func (r *response) get(path string) gjson.Result {
	if !oneKeyPath(path) {
		return gjson.GetBytes(r.body, path)
	}
	if !r.topRead {
		r.topRead = true
		body := gjson.ParseBytes(r.body)
		if r.topOK = body.IsObject(); r.topOK {
			r.top = make([]topValue, 0, 8)
			body.ForEach(func(k, v gjson.Result) bool {
				r.top = append(r.top, topValue{k.Str, v.Raw, v.Index})
				return true
			})
		}
	}
	if !r.topOK {
		return gjson.GetBytes(r.body, path)
	}
	for _, t := range r.top {
		if t.key == path {
			v := gjson.Parse(t.raw)
			v.Index = t.index
			return v
		}
	}
	return gjson.Result{}
}

// oneKeyPath reports whether a gjson path is one key with nothing special
// in it: a letter or _, then letters, digits, _ and -.
func oneKeyPath(path string) bool {
	if path == "" {
		return false
	}
	for i := 0; i < len(path); i++ {
		c := path[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '-'):
		default:
			return false
		}
	}
	return true
}

func (r *response) checkJSON(where string) error {
	if r.json == 0 {
		r.json = 1
		if e := nesting.JSON(r.body); e != nil {
			r.json = -2
		} else if !gjson.ValidBytes(r.body) {
			// gjson's check accepts what json.Valid accepts (a
			// differential test and fuzz target pin it) in a third of
			// the time; nesting.JSON has bounded its recursion.
			r.json = -1
		}
	}
	if r.json > 0 {
		return nil
	}
	if r.json == -2 {
		e := nesting.JSON(r.body)
		return assay.Errorf(assay.ErrMalformed, "%s JSON is %s, at line %d column %d", where, e.Msg, e.Line, e.Col)
	}
	var v any
	err := json.Unmarshal(r.body, &v)
	msg := "invalid JSON"
	if se, ok := err.(*json.SyntaxError); ok {
		msg = fmt.Sprintf("%s at byte %d", se.Error(), se.Offset)
	} else if len(r.body) == 0 {
		msg = "empty body"
	}
	if binary(r.body) {
		return assay.Errorf(assay.ErrMalformed, "%s is not JSON: %s (binary data, %d bytes)", where, msg, len(r.body))
	}
	return assay.Errorf(assay.ErrMalformed, "%s is not JSON: %s (starts %q)", where, msg, r.red.Head(string(r.body), 40))
}

// binary reports whether b (its first 4 KiB) looks like binary data
// rather than text: a NUL byte or invalid UTF-8 (a rune cut at either end
// does not count).
func binary(b []byte) bool {
	for i := 0; i < 3 && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
		b = b[1:] // a tail cut inside a rune is not binary
	}
	if len(b) > 4096 {
		b = b[:4096]
		for i := 0; i < 4 && len(b) > 0 && !utf8.Valid(b); i++ {
			b = b[:len(b)-1] // a rune cut by the 4 KiB limit is not binary
		}
	}
	return bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b)
}

// applyMap fills o from the responses. last names the last step; where
// describes the source for messages ("response", "stdout").
func applyMap(o *assay.Observation, fields []mapField, resp map[string]*response, last, where string) error {
	for _, f := range fields {
		step := f.step
		if step == "" {
			step = last
		}
		r := resp[step]
		if r == nil {
			return assay.Errorf(assay.ErrMalformed, "map.%s: step %q did not run", f.name, step)
		}
		src := where
		if step != last || f.step != "" {
			src = fmt.Sprintf("%s of step %q", where, step)
		}
		var res gjson.Result
		fromHeader := f.header != ""
		if fromHeader {
			hv := r.header.Values(f.header)
			if len(hv) == 0 {
				continue
			}
			res = headerResult(f.name, strings.Join(hv, ","))
		} else {
			if err := r.checkJSON(src); err != nil {
				return err
			}
			res = r.get(f.path)
			if !res.Exists() || res.Type == gjson.Null {
				continue
			}
		}
		if err := setField(o, f, res, fromHeader); err != nil {
			loc := "path " + strconv.Quote(f.path)
			if fromHeader {
				loc = "header " + f.header
			}
			return assay.Errorf(assay.ErrMalformed, "%s: %s (%s in %s)", f.name, err.Error(), loc, src)
		}
	}
	return nil
}

// headerResult turns a header value into a JSON result: list fields read a
// JSON list or a comma-separated list; other fields read the text.
func headerResult(field, v string) gjson.Result {
	v = strings.TrimSpace(v)
	switch field {
	case "retrieved", "citations", "tools":
		if strings.HasPrefix(v, "[") && gjson.Valid(v) {
			return gjson.Parse(v)
		}
		items := []string{} // a present, empty header is an empty list, not a missing one
		for _, p := range strings.Split(v, ",") {
			p = strings.TrimSpace(p)
			if strings.Contains(p, "%") {
				if u, err := url.PathUnescape(p); err == nil {
					p = u
				}
			}
			if p != "" {
				items = append(items, p)
			}
		}
		b, _ := json.Marshal(items)
		return gjson.ParseBytes(b)
	case "refused", "approval_pending", "latency_ms":
		if gjson.Valid(v) {
			return gjson.Parse(v)
		}
	}
	b, _ := json.Marshal(v)
	return gjson.ParseBytes(b)
}

func setField(o *assay.Observation, f mapField, r gjson.Result, fromHeader bool) error {
	switch f.name {
	case "retrieved", "citations", "tools":
		if r.Type == gjson.String && strings.TrimSpace(r.Str) == "" {
			r = gjson.Parse("[]") // an empty value is an empty list (a refusal sends no documents)
		}
	}
	switch f.name {
	case "answer":
		if r.Type == gjson.String {
			o.Answer = r.Str
		} else {
			o.Answer = r.Raw
		}
	case "outcome":
		if r.Type != gjson.String {
			return fmt.Errorf("want a string, got %s", kindOf(r))
		}
		o.Outcome = r.Str
	case "refused":
		b, err := boolOf(r)
		if err != nil {
			return err
		}
		o.Refused = &b
	case "approval_pending":
		b, err := boolOf(r)
		if err != nil {
			return err
		}
		o.ApprovalPending = b
	case "latency_ms":
		if r.Type != gjson.Number {
			return fmt.Errorf("want a number, got %s", kindOf(r))
		}
		v := r.Num
		o.LatencyMs = &v
	case "retrieved":
		hits, err := hitsOf(r, fromHeader)
		if err != nil {
			return err
		}
		o.Retrieved = hits
	case "citations":
		cs, err := citationsOf(r)
		if err != nil {
			return err
		}
		o.Citations = cs
	case "tools":
		ts, err := toolsOf(r)
		if err != nil {
			return err
		}
		o.Tools = ts
	case "spans":
		if !r.IsArray() {
			return fmt.Errorf("want a list, got %s", kindOf(r))
		}
		var sp []assay.Span
		if err := json.Unmarshal([]byte(r.Raw), &sp); err != nil {
			return fmt.Errorf("want [{name, start_ms, end_ms}]: %v", err)
		}
		o.Spans = sp
	case "versions":
		if !r.IsObject() {
			return fmt.Errorf("want an object, got %s", kindOf(r))
		}
		v := map[string]string{}
		r.ForEach(func(k, val gjson.Result) bool {
			if val.Type == gjson.String {
				v[k.String()] = val.Str
			} else {
				v[k.String()] = val.Raw
			}
			return true
		})
		o.Versions = v
	case "error":
		if !r.IsObject() {
			return fmt.Errorf("want {class, message}, got %s", kindOf(r))
		}
		e := &assay.Error{Class: assay.ErrorClass(r.Get("class").String()), Message: r.Get("message").String(), Status: int(r.Get("status").Int())}
		if e.Class == "" {
			e.Class = assay.ErrMalformed
		}
		o.Error = e
	case "measures":
		if !r.IsObject() {
			return fmt.Errorf("want an object of numbers, got %s", kindOf(r))
		}
		m := map[string]float64{}
		var bad error
		r.ForEach(func(k, val gjson.Result) bool {
			if val.Type != gjson.Number {
				bad = fmt.Errorf("measure %q: want a number, got %s", k.String(), kindOf(val))
				return false
			}
			m[k.String()] = val.Float()
			return true
		})
		if bad != nil {
			return bad
		}
		o.Measures = m
	case "usage":
		if !r.IsObject() {
			return fmt.Errorf("want an object, got %s", kindOf(r))
		}
		var u map[string]any
		if err := json.Unmarshal([]byte(r.Raw), &u); err != nil {
			return err
		}
		o.Usage = u
	default:
		if o.Fields == nil {
			o.Fields = map[string]any{}
		}
		var v any
		if r.Raw != "" {
			if err := json.Unmarshal([]byte(r.Raw), &v); err != nil {
				v = r.String()
			}
		} else {
			v = r.Value()
		}
		o.Fields[f.name] = v
	}
	return nil
}

func kindOf(r gjson.Result) string {
	switch {
	case r.IsArray():
		return "a list"
	case r.IsObject():
		return "an object"
	}
	switch r.Type {
	case gjson.String:
		return "a string"
	case gjson.Number:
		return "a number"
	case gjson.True, gjson.False:
		return "a boolean"
	}
	return "null"
}

func boolOf(r gjson.Result) (bool, error) {
	switch r.Type {
	case gjson.True:
		return true, nil
	case gjson.False:
		return false, nil
	case gjson.String:
		switch strings.ToLower(r.Str) {
		case "true", "yes", "1":
			return true, nil
		case "false", "no", "0", "":
			return false, nil
		}
	}
	return false, fmt.Errorf("want true or false, got %s", kindOf(r))
}

var idKeys = []string{"id", "_id", "doc_id", "docid", "docId", "document_id"}

// hitKeys and citationKeys are the keys read of a retrieved document and
// of a citation given as an object: the id keys in their order, then the
// rest.
var (
	hitKeys      = [...]string{"id", "_id", "doc_id", "docid", "docId", "document_id", "score", "title", "path", "text", "content"}
	citationKeys = [...]string{"id", "_id", "doc_id", "docid", "docId", "document_id", "title", "path", "quote"}
)

// firstValues sets out[i] to the first value of key names[i] in the
// object o (or the zero Result): what o.Get(names[i]) finds, for names
// that are plain keys, in one pass over o instead of one per name.
func firstValues(o gjson.Result, names []string, out []gjson.Result) {
	o.ForEach(func(k, v gjson.Result) bool {
		for i, name := range names {
			if k.Str == name && !out[i].Exists() {
				out[i] = v
			}
		}
		return true
	})
}

func hitsOf(r gjson.Result, titles bool) ([]assay.Hit, error) {
	if !r.IsArray() {
		return nil, fmt.Errorf("want a list, got %s", kindOf(r))
	}
	items := r.Array()
	hits := make([]assay.Hit, 0, len(items))
	for i, it := range items {
		var h assay.Hit
		switch {
		case it.Type == gjson.String:
			h.ID = it.Str
			if titles {
				h.Title = it.Str
			}
		case it.Type == gjson.Number:
			h.ID = it.Raw
		case it.IsObject():
			var v [len(hitKeys)]gjson.Result
			firstValues(it, hitKeys[:], v[:])
			for _, id := range v[:len(idKeys)] {
				if id.Exists() && id.Type != gjson.Null {
					h.ID = id.String()
					break
				}
			}
			rest := v[len(idKeys):]
			h.Score = rest[0].Float()
			h.Title = rest[1].String()
			h.Path = rest[2].String()
			h.Text = rest[3].String()
			if h.Text == "" {
				h.Text = rest[4].String()
			}
			if h.ID == "" {
				h.ID = firstNonEmpty(h.Path, h.Title)
			}
			if h.ID == "" {
				return nil, fmt.Errorf("item %d has no id, path or title", i)
			}
		default:
			return nil, fmt.Errorf("item %d: want an id or an object, got %s", i, kindOf(it))
		}
		hits = append(hits, h)
	}
	return hits, nil
}

func citationsOf(r gjson.Result) ([]assay.Citation, error) {
	if !r.IsArray() {
		return nil, fmt.Errorf("want a list, got %s", kindOf(r))
	}
	items := r.Array()
	out := make([]assay.Citation, 0, len(items))
	for i, it := range items {
		var c assay.Citation
		switch {
		case it.Type == gjson.String:
			c.ID = it.Str
		case it.Type == gjson.Number:
			c.ID = it.Raw
		case it.IsObject():
			var v [len(citationKeys)]gjson.Result
			firstValues(it, citationKeys[:], v[:])
			for _, id := range v[:len(idKeys)] {
				if id.Exists() && id.Type != gjson.Null {
					c.ID = id.String()
					break
				}
			}
			rest := v[len(idKeys):]
			c.Title = rest[0].String()
			c.Path = rest[1].String()
			c.Quote = rest[2].String()
		default:
			return nil, fmt.Errorf("item %d: want an id or an object, got %s", i, kindOf(it))
		}
		out = append(out, c)
	}
	return out, nil
}

func toolsOf(r gjson.Result) ([]assay.ToolCall, error) {
	if !r.IsArray() {
		return nil, fmt.Errorf("want a list, got %s", kindOf(r))
	}
	items := r.Array()
	out := make([]assay.ToolCall, 0, len(items))
	for i, it := range items {
		var t assay.ToolCall
		switch {
		case it.Type == gjson.String:
			t.Name = it.Str
		case it.IsObject():
			t.Name = firstNonEmpty(it.Get("name").String(), it.Get("tool").String())
			if a := it.Get("args"); a.Exists() {
				t.Args = assay.RawJSON(a.Raw)
			} else if a := it.Get("arguments"); a.Exists() {
				t.Args = assay.RawJSON(a.Raw)
			}
			if e := it.Get("error"); e.Exists() && e.Type != gjson.Null && e.Type != gjson.False {
				t.Error = e.String()
			}
		default:
			return nil, fmt.Errorf("item %d: want a name or an object, got %s", i, kindOf(it))
		}
		if t.Name == "" {
			return nil, fmt.Errorf("item %d has no name", i)
		}
		out = append(out, t)
	}
	return out, nil
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
