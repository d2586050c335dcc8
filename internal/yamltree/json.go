package yamltree

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// ParseJSONLine reads one JSON value from line, line number n of a file,
// with encoding/json into a tree positioned in that file. Numbers are read
// as the YAML reader reads them: an integer that fits 64 bits is an Int,
// a larger one a String (unquoted), anything with a fraction or exponent a
// Float. Text after the value is refused, at its position. The caller
// bounds the line's depth and strings first (package nesting).
//
// A line of ASCII with no escape in its strings (most lines of a suite)
// that json.Valid accepts is walked with gjson, which reads each string
// and number as the bytes written: the same tree, without the decoder's
// token-by-token allocations. Any other line, and every line that is not
// valid JSON (so every error), goes through encoding/json's decoder.
func ParseJSONLine(line []byte, n int) (*Node, error) {
	ascii := isASCII(line)
	if ascii && bytes.IndexByte(line, '\\') < 0 && json.Valid(line) {
		return validLine(gjson.ParseBytes(line), n), nil
	}
	return decodeLine(line, n, ascii)
}

// decodeLine is ParseJSONLine with encoding/json's decoder, token by
// token; ascii tells whether line is all ASCII.
func decodeLine(line []byte, n int, ascii bool) (*Node, error) {
	p := jsonLine{line: line, n: n, dec: json.NewDecoder(bytes.NewReader(line)), ascii: ascii}
	p.dec.UseNumber()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if rest := bytes.TrimLeft(line[p.dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, &SyntaxError{Line: n, Col: p.col(len(line) - len(rest)), Msg: "one JSON value a line; found more after it"}
	}
	return v, nil
}

type jsonLine struct {
	line  []byte
	n     int
	dec   *json.Decoder
	ascii bool
	open  []int // offsets of the brackets not yet closed
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// col is the 1-based column, in characters, of byte offset off.
func (p *jsonLine) col(off int) int {
	off = min(max(off, 0), len(p.line))
	if p.ascii {
		return off + 1
	}
	return utf8.RuneCount(p.line[:off]) + 1
}

// next reads the next token and the offset it starts at.
func (p *jsonLine) next() (json.Token, int, error) {
	off := int(p.dec.InputOffset())
	for off < len(p.line) {
		c := p.line[off]
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != ',' && c != ':' {
			break
		}
		off++
	}
	tok, err := p.dec.Token()
	if err != nil {
		return nil, off, p.syntax(err, off)
	}
	return tok, off, nil
}

// syntax is the SyntaxError of err, which stopped a token at offset off.
func (p *jsonLine) syntax(err error, off int) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		// The decoder's offset counts from where it last stopped; the
		// fault is in the token that starts at off.
		msg := se.Error()
		if strings.HasSuffix(msg, "'") {
			// The decoder says nothing more after a "{" (its one state
			// without context): what it wants there is a key.
			msg += " looking for beginning of object key string"
		}
		return &SyntaxError{Line: p.n, Col: p.col(off), Msg: msg}
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		if len(p.open) > 0 {
			at := p.open[len(p.open)-1]
			what := "object"
			if p.line[at] == '[' {
				what = "list"
			}
			return &SyntaxError{Line: p.n, Col: p.col(at), Msg: "unexpected end of the line: this " + what + " is not closed"}
		}
		return &SyntaxError{Line: p.n, Col: p.col(off), Msg: "unexpected end of the line"}
	}
	return &SyntaxError{Line: p.n, Col: p.col(off), Msg: strings.TrimPrefix(err.Error(), "json: ")}
}

func (p *jsonLine) value() (*Node, error) {
	tok, off, err := p.next()
	if err != nil {
		return nil, err
	}
	return p.valueOf(tok, off)
}

func (p *jsonLine) valueOf(tok json.Token, off int) (*Node, error) {
	out := &Node{Line: p.n, Col: p.col(off)}
	switch v := tok.(type) {
	case json.Delim:
		p.open = append(p.open, off)
		defer func() { p.open = p.open[:len(p.open)-1] }()
		out.Flow = true
		if v == '{' {
			out.Kind = Map
			for p.dec.More() {
				kt, koff, err := p.next()
				if err != nil {
					return nil, err
				}
				key, err := p.valueOf(kt, koff)
				if err != nil {
					return nil, err
				}
				val, err := p.value()
				if err != nil {
					return nil, err
				}
				out.Keys = append(out.Keys, key)
				out.Vals = append(out.Vals, val)
			}
		} else {
			out.Kind = Seq
			for p.dec.More() {
				it, err := p.value()
				if err != nil {
					return nil, err
				}
				out.Items = append(out.Items, it)
			}
		}
		if _, _, err := p.next(); err != nil { // the closing bracket
			return nil, err
		}
	case string:
		out.Kind, out.Text, out.Quoted = String, v, true
	case json.Number:
		numberNode(out, string(v))
	case bool:
		out.Kind, out.Value, out.Text = Bool, v, strconv.FormatBool(v)
	case nil:
		out.Kind = Null
	}
	return out, nil
}

// validLine is the tree of v, a value of line n that json.Valid accepted,
// written in ASCII with no escape: a string is the bytes between its
// quotes, a column its byte offset plus one.
func validLine(v gjson.Result, n int) *Node {
	w := walk{n: n}
	return w.value(v)
}

// walk builds the tree of one valid line: a mapping's keys and values, a
// list's items, are gathered on a stack of the line's own and copied out
// at their final length.
type walk struct {
	n     int
	stack []*Node
}

func (w *walk) node(v gjson.Result) *Node { return &Node{Line: w.n, Col: v.Index + 1} }

func (w *walk) value(v gjson.Result) *Node {
	out := w.node(v)
	switch v.Type {
	case gjson.JSON:
		out.Flow = true
		base := len(w.stack)
		if v.Raw[0] == '{' {
			out.Kind = Map
			v.ForEach(func(k, val gjson.Result) bool {
				key := w.node(k)
				key.Kind, key.Text, key.Quoted = String, unquoted(k.Raw), true
				w.stack = append(w.stack, key, w.value(val))
				return true
			})
			if m := (len(w.stack) - base) / 2; m > 0 {
				out.Keys, out.Vals = make([]*Node, m), make([]*Node, m)
				for i := range m {
					out.Keys[i], out.Vals[i] = w.stack[base+2*i], w.stack[base+2*i+1]
				}
			}
		} else {
			out.Kind = Seq
			v.ForEach(func(_, it gjson.Result) bool {
				w.stack = append(w.stack, w.value(it))
				return true
			})
			if len(w.stack) > base {
				out.Items = append([]*Node(nil), w.stack[base:]...)
			}
		}
		clear(w.stack[base:])
		w.stack = w.stack[:base]
	case gjson.String:
		out.Kind, out.Text, out.Quoted = String, unquoted(v.Raw), true
	case gjson.Number:
		numberNode(out, v.Raw)
	case gjson.True, gjson.False:
		out.Kind, out.Value, out.Text = Bool, v.Type == gjson.True, v.Raw
	case gjson.Null:
		out.Kind = Null
	}
	return out
}

// unquoted is the text of a JSON string written with no escape.
func unquoted(raw string) string { return raw[1 : len(raw)-1] }

// numberNode sets out to the number written s.
func numberNode(out *Node, s string) {
	out.Text = s
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			out.Kind, out.Value = Int, i
			return
		}
		if u, err := strconv.ParseUint(s, 10, 64); err == nil {
			out.Kind, out.Value = Int, u
			return
		}
		out.Kind = String // too large for 64 bits, as the YAML reader keeps it
		return
	}
	f, _ := strconv.ParseFloat(s, 64) // ±Inf when out of range
	out.Kind, out.Value = Float, f
}
