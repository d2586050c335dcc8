// Package pool builds judging pools: the documents people should label
// next. It is TREC's pooling method: for each case, the union of the top
// Depth documents of every run given, less the documents the suite already
// judges (at any grade, 0 included), each with the case's query and the
// document's title and text so that a person can grade it.
//
// A run contributes each of its recorded rankings: with several trials per
// case, the top Depth of every trial. A ranking is the observation's as
// graded (assay.Observation.Ranking: a repeated id keeps its first place);
// an errored observation contributes nothing. A document's text is the
// corpus document's when the suite has one with that id, else the text the
// target returned with it (the first run that returned one), else empty.
//
// Entries come in suite order of their case, then by the best rank any run
// gave the document, then by id; Rank is that best rank (1-based) and Runs
// how many of the runs have it in their top Depth. A case the runs did not
// record, and a run's case the suite lacks, contribute nothing (the
// latter is counted in Stats). Build holds the top Depth of each case only.
//
// The labels people hand back are read by suite.ReadLabels; `assay
// judgments import` merges them into the suite's judgments_file (Merge).
package pool

import (
	"cmp"
	"slices"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/corpus"
)

// Entry is one document to judge for one case: a line of the pool file.
type Entry struct {
	Case  string `json:"case"`
	Query string `json:"query"`
	Doc   string `json:"doc"`
	Title string `json:"title,omitempty"`
	Text  string `json:"text"`
	// Rank is the best rank (1-based) a run gave the document.
	Rank int `json:"rank"`
	// Runs is how many of the runs have it in their top Depth.
	Runs int `json:"runs"`
	// Grade is null in a pool: the person labelling fills it in, with
	// Labeller.
	Grade    *int   `json:"grade"`
	Labeller string `json:"labeller"`
}

// Stats says what a pool was made of.
type Stats struct {
	// Pooled is how many distinct (case, document) pairs the runs' top
	// Depth hold; Judged how many of them the suite judges already
	// (Pooled - Judged entries are written).
	Pooled, Judged int
	// Cases is how many cases have at least one entry.
	Cases int
	// Unknown counts the runs' case ids the suite lacks.
	Unknown int
}

// Pool gathers the rankings of several runs. The zero value is not
// usable: call New.
type Pool struct {
	depth   int
	cases   map[string]*pcase
	unknown map[string]bool
	suite   map[string]bool
}

type pcase struct {
	docs map[string]*pdoc
}

type pdoc struct {
	rank int
	runs map[int]bool
	hit  assay.Hit
}

// New returns a pool of the top depth documents (depth >= 1) of the cases
// of s.
func New(s *assay.Suite, depth int) *Pool {
	p := &Pool{depth: max(depth, 1), cases: map[string]*pcase{}, unknown: map[string]bool{}, suite: make(map[string]bool, len(s.Cases))}
	for _, c := range s.Cases {
		p.suite[c.ID] = true
	}
	return p
}

// Add adds the top Depth of one recorded result of run (0-based index of
// the run among those pooled).
func (p *Pool) Add(run int, r assay.CaseResult) {
	if !p.suite[r.ID] {
		p.unknown[r.ID] = true
		return
	}
	if r.Error != nil || r.Observation == nil || r.Observation.Error != nil {
		return
	}
	pc := p.cases[r.ID]
	if pc == nil {
		pc = &pcase{docs: map[string]*pdoc{}}
		p.cases[r.ID] = pc
	}
	hits := map[string]assay.Hit{}
	for _, h := range r.Observation.Retrieved {
		if _, ok := hits[h.Key()]; !ok {
			hits[h.Key()] = h
		}
	}
	for i, id := range r.Observation.Ranking() {
		if i >= p.depth {
			break
		}
		if id == "" {
			continue // a hit with no name: nothing to judge
		}
		d := pc.docs[id]
		if d == nil {
			d = &pdoc{rank: i + 1, runs: map[int]bool{}, hit: hits[id]}
			pc.docs[id] = d
		}
		d.rank = min(d.rank, i+1)
		d.runs[run] = true
		if d.hit.Text == "" && hits[id].Text != "" {
			d.hit.Text = hits[id].Text
		}
		if d.hit.Title == "" {
			d.hit.Title = hits[id].Title
		}
	}
}

// Entries returns the unjudged documents of the pool, in the order of the
// package doc, and what the pool held. It empties the pool: call it once,
// after the last Add.
func (p *Pool) Entries(s *assay.Suite) ([]Entry, Stats) {
	names := corpus.NewNames(s.Corpus)
	var out []Entry
	st := Stats{Unknown: len(p.unknown)}
	for _, c := range s.Cases {
		pc := p.cases[c.ID]
		if pc == nil {
			continue
		}
		delete(p.cases, c.ID) // a case id listed twice is pooled once
		var es []Entry
		for id, d := range pc.docs {
			st.Pooled++
			if _, judged := c.Judgments[id]; judged {
				st.Judged++
				continue
			}
			e := Entry{Case: c.ID, Query: c.Query, Doc: id, Title: d.hit.Title, Text: d.hit.Text, Rank: d.rank, Runs: len(d.runs)}
			if doc, ok := names.Doc(id); ok {
				e.Title, e.Text = cmp.Or(doc.Title, e.Title), doc.Text
			}
			es = append(es, e)
		}
		slices.SortFunc(es, func(a, b Entry) int {
			return cmp.Or(cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.Doc, b.Doc))
		})
		if len(es) > 0 {
			st.Cases++
		}
		out = append(out, es...)
	}
	return out, st
}
