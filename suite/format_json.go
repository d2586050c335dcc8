package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/assay-eval/assay/internal/nesting"
)

// jsonDoc is a JSON file being read with positions: every error and every
// case names "file:line:col" of the value it comes from.
type jsonDoc struct {
	file string
	data []byte
}

// jsonValue is one raw value and the byte offset where it starts in the file.
type jsonValue struct {
	raw json.RawMessage
	off int
}

// pos converts a byte offset into a 1-based line and column (in bytes).
func (d *jsonDoc) pos(off int) (line, col int) {
	if off > len(d.data) {
		off = len(d.data)
	}
	if off < 0 {
		off = 0
	}
	line = 1 + bytes.Count(d.data[:off], []byte{'\n'})
	col = off - bytes.LastIndexByte(d.data[:off], '\n')
	return line, col
}

// source is "file:line" of an offset, the form of Case.Source.
func (d *jsonDoc) source(off int) string {
	line, _ := d.pos(off)
	return fmt.Sprintf("%s:%d", d.file, line)
}

// errf is a positioned error at off.
func (d *jsonDoc) errf(off int, format string, args ...any) error {
	line, col := d.pos(off)
	return Errorf(d.file, line, col, "%s", fmt.Sprintf(format, args...))
}

// warnf is a positioned warning at off ("file:line: msg").
func (d *jsonDoc) warnf(off int, format string, args ...any) string {
	return fmt.Sprintf("%s: %s", d.source(off), fmt.Sprintf(format, args...))
}

// checkNesting refuses a document nested deeper than nesting.MaxDepth.
// newJSONDoc is the JSON document of a seed file, its nesting depth
// checked (positioned) before any of it is read.
func newJSONDoc(path string, data []byte) (*jsonDoc, error) {
	d := &jsonDoc{file: path, data: trimBOM(data)}
	if e := nesting.JSON(d.data); e != nil {
		return nil, Errorf(d.file, e.Line, e.Col, "%s", e.Msg)
	}
	return d, nil
}

// skipSpace returns the offset of the first byte at or after off that is not
// JSON whitespace or one of the separators in seps.
func (d *jsonDoc) skipSpace(off int, seps string) int {
	for off < len(d.data) {
		c := d.data[off]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' || strings.IndexByte(seps, c) >= 0 {
			off++
			continue
		}
		break
	}
	return off
}

// decodeErr positions an encoding/json error; base is the offset in the
// file of the bytes that were being decoded.
func (d *jsonDoc) decodeErr(err error, base int) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return d.errf(base+int(se.Offset)-1, "%s", strings.TrimPrefix(se.Error(), "json: "))
	case errors.As(err, &te):
		what := "value"
		if te.Field != "" {
			what = fmt.Sprintf("field %q", te.Field)
		}
		off := base + int(te.Offset)
		// Offset points after the bad value; step back to its start.
		off = d.valueStartBefore(off)
		return d.errf(off, "%s: want %s, got %s", what, jsonTypeName(te.Type.String()), te.Value)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return d.errf(len(d.data), "unexpected end of JSON input")
	}
	return d.errf(base, "%s", strings.TrimPrefix(err.Error(), "json: "))
}

// valueStartBefore finds the start of the JSON value that ends right before
// end (after a ':' or ',' or '['), for type errors.
func (d *jsonDoc) valueStartBefore(end int) int {
	if end > len(d.data) {
		end = len(d.data)
	}
	i := end - 1
	depth := 0
	inStr := false
	for ; i >= 0; i-- {
		c := d.data[i]
		if inStr {
			if c == '"' && (i == 0 || d.data[i-1] != '\\') {
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '}', ']':
			depth++
		case '{', '[':
			if depth == 0 {
				return d.skipSpace(i+1, "")
			}
			depth--
		case ':', ',':
			if depth == 0 {
				return d.skipSpace(i+1, "")
			}
		}
	}
	return 0
}

func jsonTypeName(goType string) string {
	switch {
	case goType == "string":
		return "a string"
	case strings.HasPrefix(goType, "int") || strings.HasPrefix(goType, "uint"):
		return "an integer"
	case strings.HasPrefix(goType, "float"):
		return "a number"
	case goType == "bool":
		return "true or false"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.HasPrefix(goType, "map[") || strings.HasPrefix(goType, "struct") || strings.Contains(goType, "."):
		return "an object"
	}
	return goType
}

// array reads the JSON array that starts at off and returns its elements.
func (d *jsonDoc) array(off int) ([]jsonValue, error) {
	off = d.skipSpace(off, "")
	if off >= len(d.data) || d.data[off] != '[' {
		return nil, d.errf(off, "want a JSON array")
	}
	dec := json.NewDecoder(bytes.NewReader(d.data[off:]))
	if _, err := dec.Token(); err != nil {
		return nil, d.decodeErr(err, off)
	}
	var out []jsonValue
	for dec.More() {
		start := d.skipSpace(off+int(dec.InputOffset()), ",")
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, d.decodeErr(err, start)
		}
		out = append(out, jsonValue{raw: raw, off: start})
	}
	if _, err := dec.Token(); err != nil {
		return nil, d.decodeErr(err, off)
	}
	return out, nil
}

// object reads the JSON object that starts at off and returns its members
// and their order. A duplicate key is an error.
func (d *jsonDoc) object(off int) (map[string]jsonValue, []string, error) {
	off = d.skipSpace(off, "")
	if off >= len(d.data) || d.data[off] != '{' {
		return nil, nil, d.errf(off, "want a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(d.data[off:]))
	if _, err := dec.Token(); err != nil {
		return nil, nil, d.decodeErr(err, off)
	}
	members := map[string]jsonValue{}
	var order []string
	for dec.More() {
		keyOff := d.skipSpace(off+int(dec.InputOffset()), ",")
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, d.decodeErr(err, off)
		}
		key, _ := tok.(string)
		if _, dup := members[key]; dup {
			return nil, nil, d.errf(keyOff, "duplicate key %q", key)
		}
		start := d.skipSpace(off+int(dec.InputOffset()), ":")
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, d.decodeErr(err, start)
		}
		members[key] = jsonValue{raw: raw, off: start}
		order = append(order, key)
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, d.decodeErr(err, off)
	}
	return members, order, nil
}

// decode unmarshals v's raw bytes into dst with a positioned error, and
// returns warnings for the object keys not in known.
func (d *jsonDoc) decode(v jsonValue, dst any, known ...string) ([]string, error) {
	if err := json.Unmarshal(v.raw, dst); err != nil {
		return nil, d.decodeErr(err, v.off)
	}
	if len(known) == 0 {
		return nil, nil
	}
	members, order, err := d.object(v.off)
	if err != nil {
		return nil, err
	}
	var warns []string
	for _, k := range order {
		if !hasString(known, k) {
			warns = append(warns, d.warnf(members[k].off, "unknown field %q ignored", k))
		}
	}
	return warns, nil
}

// jsonTopKeys returns the keys of the top-level object, or nil.
func jsonTopKeys(b []byte) map[string]bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	keys := make(map[string]bool, len(m))
	for k := range m {
		keys[k] = true
	}
	return keys
}

// jsonHasTopKey reports whether the JSON object in b has key at its top
// level, reading it only up to that key (a native suite names "assay"
// first). It may say true of a broken file: sniffBytes treats both alike.
func jsonHasTopKey(b []byte, key string) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		if k, ok := t.(string); ok && k == key {
			return true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}

// sniffJSONArray names the GNO format of a JSON array by its first element's
// keys; a broken array whose start looks like GNO still counts, so the
// loader can report the syntax error with its position.
func sniffJSONArray(b []byte) string {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return ""
	}
	if !dec.More() {
		return ""
	}
	var first map[string]json.RawMessage
	if err := dec.Decode(&first); err != nil {
		return ""
	}
	keys := make(map[string]bool, len(first))
	for k := range first {
		keys[k] = true
	}
	return gnoShape(keys)
}

func hasString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// jsonString reads a string-or-number id.
func jsonID(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&n) == nil {
		return n.String(), true
	}
	return "", false
}
