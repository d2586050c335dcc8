package grade

import (
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
)

// HitID is the document id a hit stands for in the ranking: its id, else
// its path, else its title (the rule the HTTP response mapping applies to a
// hit without an id). A hit with none of the three has the empty id.
func HitID(h assay.Hit) string { return h.Key() }

// rankedHits returns the retrieved hits in the order returned, a repeated id
// (HitID) keeping its first position. A hit without id, path or title is
// never a repeat: it keeps its own rank and matches nothing.
func rankedHits(obs assay.Observation) []assay.Hit {
	seen := make(map[string]bool, len(obs.Retrieved))
	out := make([]assay.Hit, 0, len(obs.Retrieved))
	for _, h := range obs.Retrieved {
		id := HitID(h)
		if id != "" && seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, h)
	}
	return out
}

// Ranking returns the document ids of the ranking (HitID of each ranked
// hit, rank 1 first): obs.Retrieved in the order returned, a repeated id
// keeping its first position. Metrics and retrieves use it. It agrees with
// assay.Observation.Ranking whenever every hit has an id; unlike it, a hit
// without an id keeps its rank (as its path, else title) instead of being
// dropped as a repeat of the first id-less hit.
func Ranking(obs assay.Observation) []string { return obs.Ranking() }

// hitMatches reports whether value equals the hit's id, path or title.
// An empty value matches nothing.
func hitMatches(h assay.Hit, value string) bool {
	return value != "" && (value == h.ID || value == h.Path || value == h.Title)
}

// CitationMatches reports whether value equals the citation's id, path or
// title (docs/expectations.md). An empty value matches nothing.
func CitationMatches(c assay.Citation, value string) bool {
	return value != "" && (value == c.ID || value == c.Path || value == c.Title)
}

// Surfaced reports whether citation c is surfaced by a document in
// obs.Retrieved (any position, not only the first k). A citation that
// carries an id is surfaced only by that id: some retrieved document's id
// (HitID: its id, else its path, else its title) equals it; its path and
// title are not consulted, so a citation of a document that was never
// retrieved is not surfaced because a retrieved one shares its title. A
// citation without an id is surfaced when its non-empty path or title
// equals the id, path or title of a retrieved document (fields cross: a
// citation by path "docs/a.md" is surfaced by a hit whose id is "a.md" and
// whose path is "docs/a.md").
func Surfaced(obs assay.Observation, c assay.Citation) bool {
	return newSurfacer(obs).surfaced(c)
}

// surfacer answers Surfaced for many citations of one observation in
// constant time each: the retrieved documents' ids, and every non-empty
// id, path and title of them, built once.
type surfacer struct {
	ids, names map[string]struct{}
}

func newSurfacer(obs assay.Observation) surfacer {
	s := surfacer{ids: make(map[string]struct{}, len(obs.Retrieved)), names: make(map[string]struct{}, 3*len(obs.Retrieved))}
	for _, h := range obs.Retrieved {
		if id := HitID(h); id != "" {
			s.ids[id] = struct{}{}
		}
		for _, v := range [3]string{h.ID, h.Path, h.Title} {
			if v != "" {
				s.names[v] = struct{}{}
			}
		}
	}
	return s
}

func (s surfacer) surfaced(c assay.Citation) bool {
	if c.ID != "" {
		_, ok := s.ids[c.ID]
		return ok
	}
	for _, v := range [2]string{c.Path, c.Title} {
		if v == "" {
			continue
		}
		if _, ok := s.names[v]; ok {
			return true
		}
	}
	return false
}

// citationName is how a detail names a citation: its id, else its path,
// else its title, else "citation N" (1-based position).
func citationName(c assay.Citation, i int) string {
	switch {
	case c.ID != "":
		return name(c.ID)
	case c.Path != "":
		return name(c.Path)
	case c.Title != "":
		return name(c.Title)
	}
	return "citation " + strconv.Itoa(i+1)
}

// Retrieves passes when each value of want matches (by id, path or title) a
// document among the first k of the ranking: obs.Retrieved in the order
// returned, a repeated id keeping its first position. k <= 0 means
// assay.DefaultK. A failing check names each value it did not find, and the
// rank when the value was retrieved below the cutoff:
// `missing security.md from top 10`,
// `missing a.md from top 3 (rank 5)`.
func Retrieves(obs assay.Observation, want []string, k int) assay.Check {
	if k <= 0 {
		k = assay.DefaultK
	}
	hits := rankedHits(obs)
	var facts []string
	for _, w := range want {
		rank := 0
		for i, h := range hits {
			if hitMatches(h, w) {
				rank = i + 1
				break
			}
		}
		switch {
		case rank >= 1 && rank <= k:
			continue
		case rank > k:
			facts = append(facts, "missing "+name(w)+" from top "+strconv.Itoa(k)+" (rank "+strconv.Itoa(rank)+")")
		default:
			facts = append(facts, "missing "+name(w)+" from top "+strconv.Itoa(k))
		}
	}
	if len(facts) > 0 {
		return fail(KindRetrieves, strings.Join(facts, "; "))
	}
	return pass(KindRetrieves)
}

// citeStatus says whether some citation matches value, and whether one of
// the matching citations is surfaced.
func citeStatus(obs assay.Observation, sf surfacer, value string) (cited, surfaced bool) {
	for _, c := range obs.Citations {
		if CitationMatches(c, value) {
			cited = true
			if sf.surfaced(c) {
				return true, true
			}
		}
	}
	return cited, false
}

// Cites passes when each value of want matches (by id, path or title) some
// surfaced citation. A failing check separates what was cited without being
// retrieved from what was not cited at all:
// `unsurfaced d9; not cited d3, d4`.
func Cites(obs assay.Observation, want []string) assay.Check {
	var unsurfaced, uncited []string
	sf := newSurfacer(obs)
	for _, w := range want {
		cited, surfaced := citeStatus(obs, sf, w)
		switch {
		case surfaced:
		case cited:
			unsurfaced = append(unsurfaced, w)
		default:
			uncited = append(uncited, w)
		}
	}
	var facts []string
	if len(unsurfaced) > 0 {
		facts = append(facts, "unsurfaced "+nameList(unsurfaced))
	}
	if len(uncited) > 0 {
		facts = append(facts, "not cited "+nameList(uncited))
	}
	if len(facts) > 0 {
		return fail(KindCites, strings.Join(facts, "; "))
	}
	return pass(KindCites)
}

// CitesAny passes when at least one value of want matches some surfaced
// citation. An empty want passes. A failing check says
// `none of a.md, b.md cited` and adds the values cited without being
// retrieved: `none of a.md, b.md cited and surfaced (unsurfaced b.md)`.
func CitesAny(obs assay.Observation, want []string) assay.Check {
	if len(want) == 0 {
		return pass(KindCitesAny)
	}
	var unsurfaced []string
	sf := newSurfacer(obs)
	for _, w := range want {
		cited, surfaced := citeStatus(obs, sf, w)
		if surfaced {
			return pass(KindCitesAny)
		}
		if cited {
			unsurfaced = append(unsurfaced, w)
		}
	}
	if len(unsurfaced) > 0 {
		return fail(KindCitesAny, "none of "+nameList(want)+" cited and surfaced (unsurfaced "+nameList(unsurfaced)+")")
	}
	return fail(KindCitesAny, "none of "+nameList(want)+" cited")
}

// Cited passes when each value of want matches (by id, path or title) some
// citation of the answer, surfaced or not: the weaker check promptfoo and
// Evalite suites state ("the answer cites the policy document"). Cites is
// the stricter one, which also requires the cited document among the
// retrieved. A failing check names what was not cited: `not cited d3, d4`.
func Cited(obs assay.Observation, want []string) assay.Check {
	var uncited []string
	for _, w := range want {
		if !isCited(obs, w) {
			uncited = append(uncited, w)
		}
	}
	if len(uncited) > 0 {
		return fail(KindCited, "not cited "+nameList(uncited))
	}
	return pass(KindCited)
}

// CitedAny passes when at least one value of want matches some citation,
// surfaced or not. An empty want passes. A failing check says
// `none of a.md, b.md cited`.
func CitedAny(obs assay.Observation, want []string) assay.Check {
	if len(want) == 0 {
		return pass(KindCitedAny)
	}
	for _, w := range want {
		if isCited(obs, w) {
			return pass(KindCitedAny)
		}
	}
	return fail(KindCitedAny, "none of "+nameList(want)+" cited")
}

// isCited reports whether some citation matches value.
func isCited(obs assay.Observation, value string) bool {
	for _, c := range obs.Citations {
		if CitationMatches(c, value) {
			return true
		}
	}
	return false
}

// CitesOnlySurfaced passes when every citation is surfaced (see Surfaced);
// no citation at all passes. A failing check names each citation that is
// not, by id, else path, else title: `unsurfaced docs/x.md`.
func CitesOnlySurfaced(obs assay.Observation) assay.Check {
	var bad []string
	sf := newSurfacer(obs)
	for i, c := range obs.Citations {
		if !sf.surfaced(c) {
			bad = append(bad, citationName(c, i))
		}
	}
	if len(bad) > 0 {
		return fail(KindCitesOnlySurfaced, "unsurfaced "+strings.Join(bad, ", "))
	}
	return pass(KindCitesOnlySurfaced)
}

// NoCitations passes when the observation carries no citation. A failing
// check names them: `cited a.md, b.md`.
func NoCitations(obs assay.Observation) assay.Check {
	if len(obs.Citations) == 0 {
		return pass(KindNoCitations)
	}
	names := make([]string, len(obs.Citations))
	for i, c := range obs.Citations {
		names[i] = citationName(c, i)
	}
	return fail(KindNoCitations, "cited "+strings.Join(names, ", "))
}
