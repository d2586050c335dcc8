package pool

import (
	"fmt"
	"strings"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/corpus"
	"github.com/assay-eval/assay/suite"
)

// OnConflict is what Merge does with a label whose grade differs from the
// grade the suite already has for the document (in its judgments file, or
// its own judgments:), or from another label of the same import.
type OnConflict string

// The choices.
const (
	// ConflictError refuses the import, listing the conflicts (the default).
	ConflictError OnConflict = "error"
	// ConflictKeep keeps the grade the suite has (of two new labels, the first).
	ConflictKeep OnConflict = "keep"
	// ConflictReplace takes the new label (of two new labels, the last).
	ConflictReplace OnConflict = "replace"
	// ConflictMax takes the higher grade, ConflictMin the lower.
	ConflictMax OnConflict = "max"
	ConflictMin OnConflict = "min"
)

// Choices lists the OnConflict values, for messages and docs.
var Choices = []OnConflict{ConflictError, ConflictKeep, ConflictReplace, ConflictMax, ConflictMin}

// UnmarshalText accepts one of Choices ("" is ConflictError).
func (o *OnConflict) UnmarshalText(b []byte) error {
	s := OnConflict(strings.ToLower(strings.TrimSpace(string(b))))
	if s == "" {
		*o = ConflictError
		return nil
	}
	for _, c := range Choices {
		if s == c {
			*o = c
			return nil
		}
	}
	names := make([]string, len(Choices))
	for i, c := range Choices {
		names[i] = string(c)
	}
	return fmt.Errorf("unknown conflict rule %q (want %s)", string(b), strings.Join(names, ", "))
}

// MarshalText returns the name.
func (o OnConflict) MarshalText() ([]byte, error) { return []byte(o), nil }

// MergeOptions control Merge. The zero value refuses conflicts, requires
// every label to name its labeller, and stamps labels without a time with
// time.Now.
type MergeOptions struct {
	OnConflict OnConflict
	// Labeller is given to labels that name none.
	Labeller string
	// Now is the clock of labels without a time (time.Now when nil).
	Now func() time.Time
}

// MergeResult is the judgments file after a Merge, and what changed.
type MergeResult struct {
	// Labels are the judgments file's new contents: its labels in their
	// order (changed ones in place), then the new ones in import order.
	Labels []suite.Label
	// Added new documents; Changed grades of the judgments file; Same
	// labels that repeat a grade the suite has; Kept conflicts resolved
	// in favour of the grade the suite had.
	Added, Changed, Same, Kept int
	// Resolved are the label documents given by path or title, rewritten
	// to corpus ids ("Kiln firing" -> "kiln.md").
	Resolved []corpus.Resolved
}

// SuiteJudgments is Conflict.HaveFrom for a grade of the suite's own
// judgments: (not its judgments file).
const SuiteJudgments = "the suite's judgments"

// Conflict is a label whose grade disagrees with the one already known.
type Conflict struct {
	Case, Doc          string
	Have, Want         int
	HaveFrom, WantFrom string // "file:line" or "the suite's judgments"
}

// ConflictsError is Merge's refusal: the conflicting labels.
type ConflictsError struct {
	Conflicts []Conflict
}

func (e *ConflictsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d conflicting %s: ", len(e.Conflicts), plural(len(e.Conflicts), "grade", "grades"))
	for i, c := range e.Conflicts {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(e.Conflicts)-3)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "case %q document %q is %d (%s), labelled %d (%s)", c.Case, c.Doc, c.Have, c.HaveFrom, c.Want, c.WantFrom)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Merge merges incoming labels (read from file, for positions) into the
// judgments of s, whose judgments file holds existing (read from
// existingFile; s was loaded with them merged). A label's case must be one
// of s; with a corpus, its document must name a corpus document (by id,
// or a path or title of exactly one, resolved to its id). A label that
// disagrees with a grade already known is a conflict, settled by
// o.OnConflict; a conflict with the suite's own judgments: (not its
// judgments file) can only be kept or refused, since Merge writes the
// judgments file only. The result's Labels are what the judgments file
// must hold.
func Merge(s *assay.Suite, existingFile string, existing []suite.Label, file string, incoming []suite.Label, o MergeOptions) (MergeResult, error) {
	if o.OnConflict == "" {
		o.OnConflict = ConflictError
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	stamp := now().UTC().Format(time.RFC3339)
	names := corpus.NewNames(s.Corpus)
	cases := make(map[string]*assay.Case, len(s.Cases))
	for i := range s.Cases {
		cases[s.Cases[i].ID] = &s.Cases[i]
	}
	type key struct{ c, d string }
	res := MergeResult{Labels: append([]suite.Label(nil), existing...)}
	inFile := make(map[key]int, len(existing)) // index in res.Labels
	for i, l := range existing {
		inFile[key{l.Case, l.Doc}] = i
	}
	from := func(name string, l suite.Label) string { return fmt.Sprintf("%s:%d", name, l.Line) }
	var conflicts []Conflict
	seenNew := map[key]bool{}
	resolvedSeen := map[string]bool{}
	for _, l := range incoming {
		c := cases[l.Case]
		if c == nil {
			return MergeResult{}, fmt.Errorf("%s:%d: case %q: no such case in suite %s", file, l.Line, l.Case, s.Path)
		}
		if names != nil {
			id, err := names.Resolve(l.Doc)
			if err != nil {
				return MergeResult{}, fmt.Errorf("%s:%d: case %q: %v: label the document's id", file, l.Line, l.Case, err)
			}
			if id == "" {
				return MergeResult{}, fmt.Errorf("%s:%d: case %q: no document %q in the corpus (by id, path or title)", file, l.Line, l.Case, l.Doc)
			}
			if id != l.Doc {
				if !resolvedSeen[l.Doc] {
					resolvedSeen[l.Doc] = true
					res.Resolved = append(res.Resolved, corpus.Resolved{Name: l.Doc, ID: id})
				}
				l.Doc = id
			}
		}
		if l.Labeller == "" {
			l.Labeller = o.Labeller
		}
		if l.Labeller == "" {
			return MergeResult{}, &MissingLabellerError{File: file, Line: l.Line}
		}
		if l.Time == "" {
			l.Time = stamp
		}
		k := key{l.Case, l.Doc}
		i, have := inFile[k]
		if !have {
			if g, inline := c.Judgments[l.Doc]; inline {
				// judged by the suite itself, not its judgments file
				switch {
				case g == l.Grade:
					res.Same++
				case o.OnConflict == ConflictKeep || (o.OnConflict == ConflictMax && g > l.Grade) || (o.OnConflict == ConflictMin && g < l.Grade):
					res.Kept++
				default:
					conflicts = append(conflicts, Conflict{l.Case, l.Doc, g, l.Grade, SuiteJudgments, from(file, l)})
				}
				continue
			}
			inFile[k] = len(res.Labels)
			seenNew[k] = true
			res.Labels = append(res.Labels, l)
			res.Added++
			continue
		}
		old := res.Labels[i]
		if old.Grade == l.Grade {
			if !seenNew[k] {
				res.Same++
			}
			continue
		}
		take := false
		switch o.OnConflict {
		case ConflictKeep:
		case ConflictReplace:
			take = true
		case ConflictMax:
			take = l.Grade > old.Grade
		case ConflictMin:
			take = l.Grade < old.Grade
		default:
			oldFrom := from(existingFile, old)
			if seenNew[k] {
				oldFrom = from(file, old)
			}
			conflicts = append(conflicts, Conflict{l.Case, l.Doc, old.Grade, l.Grade, oldFrom, from(file, l)})
			continue
		}
		if !take {
			res.Kept++
			continue
		}
		res.Labels[i] = l
		if !seenNew[k] {
			res.Changed++
		}
	}
	if len(conflicts) > 0 {
		return MergeResult{}, &ConflictsError{Conflicts: conflicts}
	}
	return res, nil
}

// MissingLabellerError is a label that names no labeller, with no
// default given.
type MissingLabellerError struct {
	File string
	Line int
}

func (e *MissingLabellerError) Error() string {
	return fmt.Sprintf("%s:%d: the label names no labeller", e.File, e.Line)
}
