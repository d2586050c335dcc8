package corpus

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
)

// Names resolves the names a document goes by (its id, its path, its
// title) to its id. It is the one resolver of document references: suite
// judgments keyed by a path or title, lint's checks of expect.retrieves and
// cites, and rankings a target returned as titles or paths (a header
// listing titles) all go through it, so a reference means the same
// document everywhere.
//
// A reference that is a document's id is that document, whatever the other
// documents' paths and titles are. Otherwise a reference equal to the path
// or title of exactly one document resolves to that document's id; one
// shared by several documents (two files titled "Glaze") is ambiguous and
// never guessed. A nil *Names (a suite without a corpus) resolves nothing.
type Names struct {
	ids   map[string]int // id -> index in docs
	names map[string]named
	docs  []assay.Document
	// anchors resolves content anchors (Anchored), built on first use.
	anchors anchorIndex
}

// named are the documents one reference names: the first two ids and how
// many in all.
type named struct {
	first, second string
	n             int
}

// NewNames indexes docs by id, path and title. It returns nil for an empty
// corpus.
func NewNames(docs []assay.Document) *Names {
	if len(docs) == 0 {
		return nil
	}
	x := &Names{ids: make(map[string]int, len(docs)), names: make(map[string]named, len(docs)), docs: docs}
	for i, d := range docs {
		x.ids[d.ID] = i
		for j, ref := range [3]string{d.ID, d.Path, d.Title} {
			if ref == "" || (j > 0 && ref == d.ID) || (j == 2 && ref == d.Path) {
				continue // one document named twice by itself
			}
			e := x.names[ref]
			switch e.n {
			case 0:
				e.first = d.ID
			case 1:
				e.second = d.ID
			}
			e.n++
			x.names[ref] = e
		}
	}
	return x
}

// IsID reports whether ref is the id of a document.
func (x *Names) IsID(ref string) bool {
	if x == nil {
		return false
	}
	_, ok := x.ids[ref]
	return ok
}

// Count is how many documents ref names by id, path or title.
func (x *Names) Count(ref string) int {
	if x == nil {
		return 0
	}
	return x.names[ref].n
}

// Doc returns the document with id, if there is one.
func (x *Names) Doc(id string) (assay.Document, bool) {
	if x == nil {
		return assay.Document{}, false
	}
	i, ok := x.ids[id]
	if !ok {
		return assay.Document{}, false
	}
	return x.docs[i], true
}

// Resolve returns the id of the document ref names: ref itself when it is
// an id; the one document's id when ref is the path or title of exactly
// one; "" when it names none. A reference that is no id and names several
// documents returns an *AmbiguousError naming them.
func (x *Names) Resolve(ref string) (string, error) {
	if x == nil || ref == "" {
		return "", nil
	}
	if _, ok := x.ids[ref]; ok {
		return ref, nil
	}
	e := x.names[ref]
	switch e.n {
	case 0:
		return "", nil
	case 1:
		return e.first, nil
	}
	return "", &AmbiguousError{Ref: ref, IDs: []string{e.first, e.second}, N: e.n}
}

// Ambiguity describes a reference that names more than one document by id,
// path or title: the error of Resolve when ref is no id, and also when it
// is one (lint tells of an id that is another document's title); nil when
// it names one document or none.
func (x *Names) Ambiguity(ref string) *AmbiguousError {
	if x == nil {
		return nil
	}
	e := x.names[ref]
	if e.n < 2 {
		return nil
	}
	return &AmbiguousError{Ref: ref, IDs: []string{e.first, e.second}, N: e.n}
}

// AmbiguousError is a reference that names several documents.
type AmbiguousError struct {
	Ref string
	// IDs are the first two of the documents' ids, in corpus order.
	IDs []string
	// N is how many documents Ref names.
	N int
}

// Documents is "2 documents of the corpus (\"a.md\", \"b.md\")", with
// "and N more" past two.
func (e *AmbiguousError) Documents() string {
	q := make([]string, len(e.IDs))
	for i, id := range e.IDs {
		q[i] = strconv.Quote(id)
	}
	s := fmt.Sprintf("%d documents of the corpus (%s", e.N, strings.Join(q, ", "))
	if e.N > len(e.IDs) {
		s += fmt.Sprintf(" and %d more", e.N-len(e.IDs))
	}
	return s + ")"
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%q names %s", e.Ref, e.Documents())
}

// Resolved is one name of a ranking or citation that Observation rewrote
// to a document id.
type Resolved struct {
	Name, ID string
}

// Observation resolves, in place, each retrieved document and citation of
// obs named by a path or title (no id of the corpus) to the id of the one
// document it names: metrics and judgments match rankings by id, so a
// ranking of titles (a response header listing them) would otherwise score
// 0 on every measure while expect.retrieves, which matches titles, passed.
// A resolved hit or citation keeps the name it was given and gains the
// document's path and title where it had none. Names of no document are
// left as they are. It returns the names it rewrote, each once, in the
// order met; a name that no id answers and that names several documents is
// an error naming them (the observation is left unchanged).
func (x *Names) Observation(obs *assay.Observation) ([]Resolved, error) {
	if x == nil {
		return nil, nil
	}
	var (
		out  []Resolved
		seen map[string]bool
	)
	note := func(name, id string) {
		if seen == nil {
			seen = map[string]bool{}
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, Resolved{name, id})
		}
	}
	// Check first, so an error leaves obs as it was.
	for i, h := range obs.Retrieved {
		if _, err := x.Resolve(h.Key()); err != nil {
			return nil, fmt.Errorf("retrieved document %d: %w", i+1, err)
		}
	}
	for i, c := range obs.Citations {
		if _, err := x.Resolve(c.ID); err != nil {
			return nil, fmt.Errorf("citation %d: %w", i+1, err)
		}
	}
	var hits []assay.Hit
	for i, h := range obs.Retrieved {
		key := h.Key()
		id, _ := x.Resolve(key)
		if id == "" || id == key {
			continue
		}
		if hits == nil { // the caller's slice may be shared: copy on write
			hits = append([]assay.Hit(nil), obs.Retrieved...)
		}
		d, _ := x.Doc(id)
		h.ID = id
		h.Path = cmp.Or(h.Path, d.Path)
		h.Title = cmp.Or(h.Title, d.Title)
		hits[i] = h
		note(key, id)
	}
	if hits != nil {
		obs.Retrieved = hits
	}
	var cits []assay.Citation
	for i, c := range obs.Citations {
		id, _ := x.Resolve(c.ID)
		if id == "" || id == c.ID {
			continue
		}
		if cits == nil {
			cits = append([]assay.Citation(nil), obs.Citations...)
		}
		d, _ := x.Doc(id)
		name := c.ID
		c.ID = id
		c.Path = cmp.Or(c.Path, d.Path)
		c.Title = cmp.Or(c.Title, d.Title)
		cits[i] = c
		note(name, id)
	}
	if cits != nil {
		obs.Citations = cits
	}
	return out, nil
}
