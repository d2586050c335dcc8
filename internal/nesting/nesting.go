// Package nesting checks YAML and JSON text before it is parsed: how deep
// its collections nest, and how long one string, scalar or comment is.
//
// goccy/go-yaml's cost grows much faster than the input on deeply nested
// text (60 KB of "[" takes gigabytes), and encoding/json stops only at
// 10,000 levels. Every reader of a suite, target file, floors file, run
// record, replay trace, mapped HTTP response or json_schema file calls YAML
// or JSON first, and reports the *Error it returns positioned in its file,
// so bad input gets one clear line before any parser runs.
//
// The scan is one pass over the bytes, in constant memory apart from a
// stack of indentation columns bounded by MaxDepth. It counts flow
// collections ([ and {) outside quoted strings, comments, plain scalars
// and literal blocks, and block collections by their columns: a block
// mapping opens where a key followed by ": " starts, a block sequence
// where a "- " is, unless a collection is already open at that column; a
// line that starts left of an open collection closes it. Scalars are not
// levels, so a document exactly MaxDepth collections deep is read. The
// count errs only towards fewer levels (a sequence written at its parent
// key's column, "k:" above "- x", shares that column), never refusing a
// document that nests MaxDepth levels or fewer.
package nesting

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of collections a document may have: a
// document nested MaxDepth levels deep is read, one more level is an error.
const MaxDepth = 1000

// MaxScalar is the longest string, scalar or comment (in bytes) a YAML
// document may hold: a query, an answer fact or an inline corpus text is
// far smaller; a longer one is most likely a runaway generator. goccy's
// scanner allocates about 45 bytes per byte of a scalar (a 16 MiB query
// took 750 MB), which this keeps under 50 MB.
const MaxScalar = 1 << 20

// Error is what the scan found, at a 1-based line and column (in runes).
type Error struct {
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

func deepError(line, col int) *Error {
	return &Error{Line: line, Col: col, Msg: fmt.Sprintf("nested more than %d levels deep (the limit)", MaxDepth)}
}

func longError(line, col int, what string) *Error {
	return &Error{Line: line, Col: col, Msg: fmt.Sprintf("%s longer than %d MiB (the limit)", what, MaxScalar>>20)}
}

// JSON checks JSON text: collections nested at most MaxDepth deep. It does
// not check that the text is valid JSON; the decoder does that.
func JSON(src []byte) *Error {
	if bytes.Count(src, []byte("[")) <= MaxDepth-bytes.Count(src, []byte("{")) {
		// Fewer brackets than the limit, in strings or not: nothing to
		// scan for (the counts are a fraction of the scan's time).
		return nil
	}
	depth := 0
	line, lineStart := 1, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\n':
			line, lineStart = line+1, i+1
		case '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				switch src[i] {
				case '\\':
					i++
				case '\n': // invalid JSON; the decoder says so
					line, lineStart = line+1, i+1
				}
			}
		case '[', '{':
			depth++
			if depth > MaxDepth {
				return deepError(line, utf8.RuneCount(src[lineStart:i])+1)
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

// YAML checks YAML text (JSON included): collections nested at most
// MaxDepth deep, and no string, scalar or comment longer than MaxScalar.
func YAML(src []byte) *Error { return YAMLBelow(src, 0) }

// YAMLBelow is YAML for text that sits below base open levels of the
// document it is part of.
func YAMLBelow(src []byte, base int) *Error {
	s := &scanner{src: src, line: 1, base: base}
	return s.run()
}

type scanner struct {
	src       []byte
	i         int
	line      int
	lineStart int
	base      int   // levels open around src
	flow      int   // open flow collections
	block     []int // columns (0-based, bytes) of the open block nodes
}

func (s *scanner) col(i int) int { return utf8.RuneCount(s.src[s.lineStart:i]) + 1 }

func (s *scanner) depth() int { return s.base + len(s.block) + s.flow }

func (s *scanner) at(i int) byte {
	if i < len(s.src) {
		return s.src[i]
	}
	return 0
}

// blank reports whether b ends a token: a space, a line break or the end.
func blank(b byte) bool { return b == 0 || b == ' ' || b == '\t' || b == '\n' || b == '\r' }

func (s *scanner) newline(i int) { s.line, s.lineStart = s.line+1, i+1 }

// popBlock closes the block collections deeper than byte column c: a
// line whose content starts at c ends them.
func (s *scanner) popBlock(c int) {
	for len(s.block) > 0 && s.block[len(s.block)-1] > c {
		s.block = s.block[:len(s.block)-1]
	}
}

// pushBlock records a block collection (a mapping whose key, or a
// sequence whose "- ", is at byte column c) that starts at offset at of
// line line (whose start is lineStart), unless it is the one open at c.
func (s *scanner) pushBlock(c, line, lineStart, at int) *Error {
	s.popBlock(c)
	if len(s.block) == 0 || s.block[len(s.block)-1] < c {
		if s.depth() >= MaxDepth {
			return deepError(line, utf8.RuneCount(s.src[lineStart:at])+1)
		}
		s.block = append(s.block, c)
	}
	return nil
}

func (s *scanner) run() *Error {
	src := s.src
	for s.i < len(src) {
		// the start of a line
		j := s.i
		for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
			j++
		}
		if j == len(src) {
			return nil
		}
		switch src[j] {
		case '\n', '\r':
			if src[j] == '\n' {
				s.newline(j)
			}
			s.i = j + 1
			continue
		}
		if s.flow == 0 {
			if j == s.i && (hasPrefixAt(src, j, "---") || hasPrefixAt(src, j, "...")) && blank(s.at(j+3)) {
				s.block = s.block[:0] // a document marker
				s.i = j + 3
			} else {
				if src[j] != '#' {
					s.popBlock(j - s.lineStart)
				}
				s.i = j
			}
		} else {
			s.i = j
		}
		if err := s.lineRest(); err != nil {
			return err
		}
	}
	return nil
}

func hasPrefixAt(b []byte, i int, p string) bool {
	return len(b)-i >= len(p) && string(b[i:i+len(p)]) == p
}

// lineRest scans from s.i, where a node may start, to the start of the
// next line (s.i is then past the line break).
func (s *scanner) lineRest() *Error {
	src := s.src
	valueStart := true
	// where the last scalar that may be a block mapping key starts
	keyAt, keyLine, keyLineStart := -1, 0, 0
	for s.i < len(src) {
		c := src[s.i]
		switch {
		case c == '\n':
			s.newline(s.i)
			s.i++
			return nil
		case c == ' ' || c == '\t' || c == '\r':
			s.i++
			continue
		case c == '#' && (s.i == s.lineStart || blank(src[s.i-1])):
			start := s.i
			for s.i < len(src) && src[s.i] != '\n' {
				s.i++
			}
			if s.i-start > MaxScalar {
				return longError(s.line, s.col(start), "a comment")
			}
			continue
		}
		if s.flow > 0 {
			switch c {
			case '[', '{':
				if s.depth() >= MaxDepth {
					return deepError(s.line, s.col(s.i))
				}
				s.flow++
				s.i++
				valueStart = true
				continue
			case ']', '}':
				s.flow--
				s.i++
				valueStart = false
				continue
			case ',':
				s.i++
				valueStart = true
				continue
			case ':':
				s.i++
				valueStart = true
				continue
			}
		}
		if !valueStart && s.flow == 0 {
			// after a scalar in block context: a key's value, or the rest
			// of a plain scalar
			if c == ':' && blank(s.at(s.i+1)) {
				// a block mapping, whose key starts at keyAt
				if keyAt >= 0 {
					if err := s.pushBlock(keyAt-keyLineStart, keyLine, keyLineStart, keyAt); err != nil {
						return err
					}
					keyAt = -1
				}
				s.i++
				valueStart = true
				continue
			}
			if err := s.plain(); err != nil {
				return err
			}
			continue
		}
		switch c {
		case '[', '{':
			if s.depth() >= MaxDepth {
				return deepError(s.line, s.col(s.i))
			}
			s.flow++
			s.i++
			continue
		case '"', '\'':
			if s.flow == 0 {
				keyAt, keyLine, keyLineStart = s.i, s.line, s.lineStart
			}
			if err := s.quoted(c); err != nil {
				return err
			}
			valueStart = false
			continue
		case '-', '?', ':':
			if blank(s.at(s.i+1)) && s.flow == 0 {
				if c == ':' { // an explicit value, "? key\n: value"
					s.i++
					continue
				}
				// a block sequence ("- ") or a mapping with an explicit
				// key ("? ") at this column
				if err := s.pushBlock(s.i-s.lineStart, s.line, s.lineStart, s.i); err != nil {
					return err
				}
				s.i++
				continue
			}
		case '|', '>':
			if s.flow == 0 {
				indent := -1 // the column of the node the scalar is a value of
				if len(s.block) > 0 {
					indent = s.block[len(s.block)-1]
				}
				return s.blockScalar(indent)
			}
		case '&', '!', '*':
			// an anchor, tag or alias: a name, then maybe the node
			start := s.i
			for s.i < len(src) && !blank(src[s.i]) && (s.flow == 0 || !flowIndicator(src[s.i])) {
				s.i++
			}
			if s.i-start > MaxScalar {
				return longError(s.line, s.col(start), "a name")
			}
			valueStart = c != '*'
			continue
		}
		if s.flow == 0 {
			keyAt, keyLine, keyLineStart = s.i, s.line, s.lineStart
		}
		if err := s.plain(); err != nil {
			return err
		}
		valueStart = false
	}
	return nil
}

func flowIndicator(b byte) bool { return b == ',' || b == '[' || b == ']' || b == '{' || b == '}' }

// plain skips a plain scalar (or the rest of one) on this line: up to a
// ": " (block context), a flow indicator (flow context), " #" or the end
// of the line.
func (s *scanner) plain() *Error {
	src := s.src
	start := s.i
	for s.i < len(src) {
		c := src[s.i]
		if c == '\n' {
			break
		}
		if c == ':' && (blank(s.at(s.i+1)) || s.flow > 0 && flowIndicator(s.at(s.i+1))) && s.i > start {
			break
		}
		if s.flow > 0 && flowIndicator(c) {
			break
		}
		if c == '#' && s.i > start && blank(src[s.i-1]) {
			break
		}
		s.i++
	}
	if s.i-start > MaxScalar {
		return longError(s.line, s.col(start), "a scalar")
	}
	if s.i == start { // a lone ':' or the like: step over it
		s.i++
	}
	return nil
}

// quoted skips a single- or double-quoted scalar, which may span lines.
func (s *scanner) quoted(q byte) *Error {
	src := s.src
	line, lineStart, start := s.line, s.lineStart, s.i
	for s.i++; s.i < len(src); s.i++ {
		c := src[s.i]
		if c == '\n' {
			s.newline(s.i)
			continue
		}
		if q == '"' && c == '\\' {
			if s.at(s.i+1) == '\n' {
				s.newline(s.i + 1)
			}
			s.i++
			continue
		}
		if c == q {
			if q == '\'' && s.at(s.i+1) == '\'' {
				s.i++
				continue
			}
			s.i++
			break
		}
	}
	if s.i-start > MaxScalar {
		return longError(line, utf8.RuneCount(src[lineStart:start])+1, "a string")
	}
	return nil
}

// blockScalar skips a literal (|) or folded (>) scalar: the rest of the
// indicator's line, then every line that is blank or more indented than
// indent.
func (s *scanner) blockScalar(indent int) *Error {
	src := s.src
	line, lineStart, start := s.line, s.lineStart, s.i
	for s.i < len(src) && src[s.i] != '\n' {
		s.i++
	}
	for s.i < len(src) {
		// s.i is at a line break
		s.newline(s.i)
		s.i++
		k := s.i
		for k < len(src) && src[k] == ' ' {
			k++
		}
		if k < len(src) && src[k] != '\n' && src[k] != '\r' && k-s.i <= indent {
			break // a line of the enclosing node
		}
		for s.i < len(src) && src[s.i] != '\n' {
			s.i++
		}
	}
	if s.i-start > MaxScalar {
		return longError(line, utf8.RuneCount(src[lineStart:start])+1, "a block scalar")
	}
	return nil
}
