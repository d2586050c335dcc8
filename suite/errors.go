package suite

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

// Errorf returns a *PosError.
func Errorf(file string, line, col int, format string, args ...any) error {
	return &PosError{File: file, Line: line, Col: col, Msg: oneLine(fmt.Sprintf(format, args...))}
}

// oneLine escapes line breaks so that a message quoting user input (a
// regexp, an alias name) stays one line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(s)
}

// oneLineProblems applies oneLine to every problem's message.
func oneLineProblems(ps []problem) {
	for i := range ps {
		ps[i].msg = oneLine(ps[i].msg)
	}
}

// problem is a structural fault found while loading: Load refuses the suite
// for it, Lint reports it as an error finding.
type problem struct {
	line, col int
	src       string // "file:line" when the fault is not in the suite file itself
	file      string // the file of line and col when it is not the suite file (a JSONL cases file)
	msg       string
}

// levenshtein is the optimal-string-alignment edit distance between a and
// b: insertions, deletions, substitutions and transpositions of adjacent
// letters each cost 1 ("nmae" is 1 from "name").
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// suggestName returns the known name closest to s, or "" when none is close
// enough to be a likely misspelling.
func suggestName(s string, known []string) string {
	for _, k := range known {
		if k != s && strings.EqualFold(k, s) {
			return k
		}
	}
	best, bestD := "", 0
	for _, k := range known {
		d := levenshtein(s, k)
		if d == 0 {
			continue
		}
		if best == "" || d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	limit := 1 // short names: one edit
	switch n := len([]rune(s)); {
	case n > 8:
		limit = 3
	case n > 3:
		limit = 2
	}
	if bestD > limit {
		return ""
	}
	return best
}
