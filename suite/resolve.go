package suite

import (
	"fmt"
	"slices"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/corpus"
)

// Judgments resolve like every other reference. A judgment (or relevant:
// entry) keyed by a document's path or title, where the corpus has no
// document with that id, is rewritten to the id of the one document it
// names, and a warning says so: grading matches rankings by id, so the key
// as written would score 0 on every metric while expect.retrieves, which
// matches by id, path or title, passed. A key that names no document, or
// several, is left as it is for lint to report as an error. A suite without
// a corpus is left alone.
//
// A key written as a content anchor ("quote:TEXT", "sha256:HEX"; see
// package corpus) gives its grade to every document that contains it, so a
// judgment survives a re-chunk; a document judged by id keeps its own
// grade, and of two anchors in one document the higher grade wins. No
// warning is given: this is what an anchor is for. An anchor that no
// document contains is left as it is, and lint lists it.

// A relevant judgment (or relevant: entry) whose key, once resolved, is
// no document id of the corpus scores as a document never retrieved: the
// case's recall and nDCG count a relevant document it cannot rank. The
// load says so in one warning, with how many such keys there are and
// where the first few are (lint reports each as an error).

// refResolver resolves judgment keys against a corpus, and counts the
// relevant keys that name no document (note).
type refResolver struct {
	names   *corpus.Names
	unknown int      // relevant keys that are no document id
	first   []string // where the first maxUnknownNamed are
}

// maxUnknownNamed is how many unknown keys the warning spells out.
const maxUnknownNamed = 3

func newRefResolver(docs []assay.Document) *refResolver {
	if len(docs) == 0 {
		return nil
	}
	return &refResolver{names: corpus.NewNames(docs)}
}

// target is the id that ref resolves to, or "" when ref is an id itself,
// or names no document or several.
func (r *refResolver) target(ref string) string {
	if r == nil {
		return ""
	}
	if id, err := r.names.Resolve(ref); err == nil && id != ref {
		return id
	}
	return ""
}

// needs reports whether any of c's judgment keys resolves to another id,
// or is a content anchor that some document contains.
func (r *refResolver) needs(c *assay.Case) bool {
	for id := range c.Judgments {
		if r.target(id) != "" || len(r.anchored(id)) > 0 {
			return true
		}
	}
	for _, id := range c.Relevant {
		if r.target(id) != "" || len(r.anchored(id)) > 0 {
			return true
		}
	}
	return false
}

// anchored are the ids of the documents that contain the content anchor
// ref (corpus.Names.Anchored); nil when it is no anchor or matches none.
func (r *refResolver) anchored(ref string) []string {
	if r == nil {
		return nil
	}
	return r.names.Anchored(ref)
}

// resolve rewrites c's judgments and relevant list in place and returns a
// warning for each key it rewrote.
func (r *refResolver) resolve(c *assay.Case) []string {
	if r == nil || !r.needs(c) {
		return nil
	}
	var warns []string
	j := make(map[string]int, len(c.Judgments))
	// Content anchors first give their grade to every document that
	// contains them; a document judged by id (or path or title) keeps that
	// judgment, and of two anchors in one document the higher grade wins.
	anchoredGrade := map[string]int{}
	for _, id := range sortedJudged(c.Judgments) {
		for _, to := range r.anchored(id) {
			if g, ok := anchoredGrade[to]; !ok || c.Judgments[id] > g {
				anchoredGrade[to] = c.Judgments[id]
			}
		}
	}
	for _, id := range sortedJudged(c.Judgments) {
		if len(r.anchored(id)) > 0 {
			continue
		}
		to := r.target(id)
		if to == "" {
			if _, dup := j[id]; !dup {
				j[id] = c.Judgments[id]
			}
			continue
		}
		at := caseAt(c)
		if g, dup := c.Judgments[to]; dup {
			warns = append(warns, fmt.Sprintf("%s: case %q: judgments: %q names document %q, which is judged %d already (that judgment wins)", at, c.ID, id, to, g))
			continue
		}
		warns = append(warns, fmt.Sprintf("%s: case %q: judgments: %q is the path or title of document %q: resolved to its id", at, c.ID, id, to))
		j[to] = c.Judgments[id]
	}
	for to, g := range anchoredGrade {
		if _, judged := j[to]; !judged {
			j[to] = g
		}
	}
	c.Judgments = j
	if len(c.Relevant) > 0 {
		rel := make([]string, 0, len(c.Relevant))
		for _, id := range c.Relevant {
			if ids := r.anchored(id); len(ids) > 0 {
				for _, to := range ids {
					if !slices.Contains(rel, to) {
						rel = append(rel, to)
					}
				}
				continue
			}
			if to := r.target(id); to != "" {
				if _, judged := c.Judgments[id]; !judged { // a judged one was told above
					warns = append(warns, fmt.Sprintf("%s: case %q: relevant: %q is the path or title of document %q: resolved to its id", caseAt(c), c.ID, id, to))
				}
				id = to
			}
			if !slices.Contains(rel, id) {
				rel = append(rel, id)
			}
		}
		c.Relevant = rel
	}
	return warns
}

// resolveJudgments resolves the judgments of every case of s.
func resolveJudgments(s *assay.Suite) {
	r := newRefResolver(s.Corpus)
	if r == nil {
		return
	}
	for i := range s.Cases {
		s.Warnings = append(s.Warnings, r.resolve(&s.Cases[i])...)
		r.note(&s.Cases[i])
	}
	if w := r.warning(); w != "" {
		s.Warnings = append(s.Warnings, w)
	}
}

// note counts the relevant judgment keys and relevant: entries of c,
// resolved, that are no document id of the corpus.
func (r *refResolver) note(c *assay.Case) {
	if r == nil {
		return
	}
	add := func(ref string) {
		r.unknown++
		if len(r.first) < maxUnknownNamed {
			r.first = append(r.first, fmt.Sprintf("%s (case %q: %q)", caseAt(c), c.ID, ref))
		}
	}
	for _, id := range sortedJudged(c.Judgments) {
		if c.Judgments[id] > 0 && !r.names.IsID(id) {
			add(id)
		}
	}
	for _, id := range c.Relevant {
		if _, judged := c.Judgments[id]; !judged && !r.names.IsID(id) {
			add(id)
		}
	}
}

// warning tells the unknown keys noted; "" when there were none.
func (r *refResolver) warning() string {
	if r == nil || r.unknown == 0 {
		return ""
	}
	s := strings.Join(r.first, ", ")
	if more := r.unknown - len(r.first); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	what := "a relevant judgment names" + unknownRefs + "s as a document never retrieved"
	if r.unknown > 1 {
		what = fmt.Sprintf("%d relevant judgments name%s as documents never retrieved", r.unknown, unknownRefs)
	}
	return fmt.Sprintf("%s: %s; correct the id or remove the judgment (lint lists each)", what, s)
}

// unknownRefs is the words of the warning about judgments that name no
// document; lint, which reports each as an error, leaves it out.
const unknownRefs = " no document of the corpus and score"

// caseAt is where c is, for a warning: its source, else its id.
func caseAt(c *assay.Case) string {
	if c.Source != "" {
		return c.Source
	}
	return c.ID
}
