package report

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape returns s with everything a terminal or a markdown viewer could act
// on shown as text, in Go's %q notation: C0 controls (newline and tab
// included) as \n, \t or \x1b, DEL as \x7f, C1 controls and the Unicode
// bidirectional controls as \u0085 or \u202e, and each byte of invalid UTF-8
// as \xff. Printable text, non-ASCII letters and backslashes are unchanged,
// so a string without controls prints as it is.
//
// It is the one escaping rule of every renderer (text, markdown, JUnit) and of
// the error lines cmd/assay prints.
func Escape(s string) string { return escape(s, false) }

// EscapeLines is Escape for text of several lines: newlines and tabs stay,
// everything else Escape escapes is escaped.
func EscapeLines(s string) string { return escape(s, true) }

func escape(s string, lines bool) string {
	i := firstUnsafe(s, lines)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case lines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case unsafeRune(r):
			b.WriteString(quoteRune(r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe is the index of the first byte escape changes, or -1.
func firstUnsafe(s string, lines bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		if unsafeRune(r) && !(lines && (r == '\n' || r == '\t')) {
			return i
		}
		i += size
	}
	return -1
}

// unsafeRune reports whether r is a control a terminal acts on, or a
// bidirectional control that reorders what is shown.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

func quoteRune(r rune) string {
	switch r {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\v':
		return `\v`
	}
	if r < 0x80 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}
