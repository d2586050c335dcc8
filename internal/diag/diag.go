// Package diag holds the one positioned-error type and the one
// "did you mean" helper of assay's readers: the suite parser, target
// files and replay traces, gate expressions and floors files, corpus files
// and the store's run files all report a fault in a file as a *PosError
// ("file:line:col: msg"), and name the nearest known word with Nearest.
// suite.PosError is this type (an alias).
//
// Choices where the design is silent: a position with no column prints as
// "file:line: msg" and one with no line as "file: msg"; a message never
// spans lines (line breaks in quoted input are escaped as \r and \n).
// Nearest compares without regard to case (a word that differs from a
// known one only in case is always suggested), by the optimal string
// alignment distance (an insertion, deletion, substitution or swap of two
// adjacent letters each costs 1), and suggests only what is close for the
// word's length: one edit for up to 3 letters, two for up to 8, three for
// longer words. Of equally close words the first in known wins.
//
// gate.ParseError is not a second positioned error: it is the typed error
// of a gate expression (its Expr and Reason are read by lint and floors),
// and its Source is the label of the place the expression came from
// ("suite.yaml:12", "--gate"), which the gate package does not parse.
package diag

import (
	"fmt"
	"strconv"
	"strings"
)

// PosError is an error at a place in a file, printed "file:line:col: msg"
// ("file:line: msg" when the column is unknown, "file: msg" when the line is).
type PosError struct {
	File string
	Line int
	Col  int
	Msg  string
}

func (e *PosError) Error() string { return e.Where() + ": " + e.Msg }

// Where is "file:line:col", "file:line" or "file".
func (e *PosError) Where() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
		if e.Col > 0 {
			s += ":" + strconv.Itoa(e.Col)
		}
	}
	return s
}

// Errorf returns a *PosError whose message is kept on one line.
func Errorf(file string, line, col int, format string, args ...any) error {
	return &PosError{File: file, Line: line, Col: col, Msg: OneLine(fmt.Sprintf(format, args...))}
}

// OneLine escapes line breaks so that a message quoting user input (a
// regexp, an alias name) stays one line.
func OneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(s)
}

// Distance is the optimal-string-alignment edit distance between a and b,
// in runes: insertions, deletions, substitutions and transpositions of
// adjacent letters each cost 1 ("nmae" is 1 from "name").
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows: the one before last (for transpositions), last, current.
	pp := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
		}
		pp, prev, cur = prev, cur, pp
	}
	return prev[len(rb)]
}

// Nearest returns the word of known closest to s, or "" when none is close
// enough to be a likely misspelling (see the package doc) or s is itself
// one of them.
func Nearest(s string, known []string) string {
	for _, k := range known {
		if k == s {
			return ""
		}
	}
	for _, k := range known {
		if strings.EqualFold(k, s) {
			return k
		}
	}
	ls := strings.ToLower(s)
	best, bestD := "", 0
	for _, k := range known {
		d := Distance(ls, strings.ToLower(k))
		if best == "" || d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" || bestD > Limit(s) {
		return ""
	}
	return best
}

// Limit is how many edits away from s a suggestion may be.
func Limit(s string) int {
	switch n := len([]rune(s)); {
	case n > 8:
		return 3
	case n > 3:
		return 2
	}
	return 1
}
