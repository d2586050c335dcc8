package grade

import (
	"regexp"
	"sort"
	"strings"

	"github.com/assay-eval/assay"
)

// NuggetMatch is how far a text supports one nugget (MatchNugget).
type NuggetMatch struct {
	// Assignment is assay.NuggetSupport, NuggetPartialSupport or
	// NuggetNotSupport.
	Assignment string
	// Matched lists what was found (the alternative of match, the
	// regex's match, or the alternative found of each part found).
	Matched []string
	// At is the byte offset in the text where the first of Matched
	// starts, -1 when nothing was found.
	At int
	// Missing lists the first alternative of each part not found.
	Missing []string
}

// MatchNugget decides whether text (an answer, a sentence or a passage)
// supports nugget n, by the deterministic rule of docs/expectations.md#nuggets:
//
//   - support when one of n.Match occurs in text, or n.Regex matches it;
//     with neither Match, Regex nor Parts, n.Text itself is looked for;
//   - otherwise, when n lists Parts (each a list of alternatives): support
//     when every part is found, partial_support when some are,
//     not_support when none is;
//   - otherwise not_support.
//
// Strings are compared as answer_includes compares them: by their Fold key
// (Unicode case folding and NFC) unless caseSensitive, so "STRASSE" finds
// "straße" and CJK text is matched as written. A regex that does not
// compile matches nothing (NewOptions reports it before any case runs).
// It does not read n.Assignment or n.Assign.
func MatchNugget(text string, n assay.Nugget, caseSensitive bool) NuggetMatch {
	m := NuggetMatch{Assignment: assay.NuggetNotSupport, At: -1}
	hay := newHaystack(text, caseSensitive)
	alts := n.Match
	if len(alts) == 0 && n.Regex == "" && len(n.Parts) == 0 {
		alts = []string{n.Text}
	}
	if s, at, ok := findAny(text, hay, alts); ok {
		m.Assignment, m.Matched, m.At = assay.NuggetSupport, []string{s}, at
		return m
	}
	if n.Regex != "" {
		if re, err := regexp.Compile(n.Regex); err == nil {
			if loc := re.FindStringIndex(text); loc != nil {
				m.Assignment, m.Matched, m.At = assay.NuggetSupport, []string{text[loc[0]:loc[1]]}, loc[0]
				return m
			}
		}
	}
	if len(n.Parts) == 0 {
		return m
	}
	found := 0
	for _, part := range n.Parts {
		s, at, ok := findAny(text, hay, part)
		if !ok {
			if len(part) > 0 {
				m.Missing = append(m.Missing, part[0])
			}
			continue
		}
		found++
		m.Matched = append(m.Matched, s)
		if m.At < 0 || at < m.At {
			m.At = at
		}
	}
	switch {
	case found == len(n.Parts):
		m.Assignment = assay.NuggetSupport
	case found > 0:
		m.Assignment = assay.NuggetPartialSupport
	}
	return m
}

// findAny returns the first of alts found in hay (text prepared), with its
// byte offset in text.
func findAny(text string, hay haystack, alts []string) (string, int, bool) {
	for _, a := range alts {
		if a == "" {
			continue
		}
		sub := a
		if hay.caseSensitive {
			sub = nfc(sub)
		} else {
			sub = Fold(sub)
		}
		if i := strings.Index(hay.s, sub); i >= 0 {
			return a, hay.offset(text, i), true
		}
	}
	return "", -1, false
}

// offset maps a byte offset in the prepared haystack back to text: the
// start of the rune of text whose prefix prepares to at most i bytes. For
// ASCII text the two are the same.
func (h haystack) offset(text string, i int) int {
	if isASCII(text) {
		return i
	}
	prep := nfc
	if !h.caseSensitive {
		prep = Fold
	}
	var bounds []int
	for p := range text {
		bounds = append(bounds, p)
	}
	bounds = append(bounds, len(text))
	// The largest boundary whose prepared prefix is not longer than i.
	k := sort.Search(len(bounds), func(k int) bool { return len(prep(text[:bounds[k]])) > i })
	if k == 0 {
		return 0
	}
	return bounds[k-1]
}

// Nuggets assigns every nugget of c for obs, in suite order (nil when c
// has none). A nugget with a recorded Assignment keeps it (by record);
// the others are assigned by MatchNugget on the answer (by rule), and
// not_support when the observation errored. Nuggets left not_support
// with assign: judge are for the judge to assign (package judge), which
// then calls ScoreNuggets again.
func Nuggets(c assay.Case, obs assay.Observation, caseSensitive bool) []assay.NuggetResult {
	if len(c.Expect.Nuggets) == 0 {
		return nil
	}
	out := make([]assay.NuggetResult, len(c.Expect.Nuggets))
	for i, n := range c.Expect.Nuggets {
		r := assay.NuggetResult{Text: n.Text, Importance: n.Importance, By: assay.NuggetByRule, Assignment: assay.NuggetNotSupport}
		if r.Importance == "" {
			r.Importance = assay.NuggetVital
		}
		switch {
		case n.Assignment != "":
			r.Assignment, r.By = n.Assignment, assay.NuggetByRecord
		case obs.Error == nil:
			m := MatchNugget(obs.Answer, n, caseSensitive)
			r.Assignment, r.Matched, r.Missing = m.Assignment, m.Matched, m.Missing
			if m.At >= 0 {
				at := m.At
				r.At = &at
			}
		}
		out[i] = r
	}
	return out
}

// NuggetScores computes the four nugget metrics of one case from its
// assignments, as nuggetizer's calculate_nugget_scores does
// (docs/metrics.md#nuggets):
//
//	nugget_strict_vital = vital nuggets supported / vital nuggets
//	nugget_strict_all   = nuggets supported / nuggets
//	nugget_vital        = (vital supported + 0.5 × vital partially supported) / vital nuggets
//	nugget_all          = (supported + 0.5 × partially supported) / nuggets
//
// With no vital nugget the two vital scores are undefined (left out),
// or 0 when noVitalZero (nuggetizer's reading). No nugget: nil.
func NuggetScores(rs []assay.NuggetResult, noVitalZero bool) map[string]float64 {
	if len(rs) == 0 {
		return nil
	}
	var vital, all, vitalFull, allFull, vitalHalf, allHalf int
	for _, r := range rs {
		v := r.Importance != assay.NuggetOkay
		all++
		if v {
			vital++
		}
		switch r.Assignment {
		case assay.NuggetSupport:
			allFull++
			if v {
				vitalFull++
			}
		case assay.NuggetPartialSupport:
			allHalf++
			if v {
				vitalHalf++
			}
		}
	}
	out := map[string]float64{
		assay.MetricNuggetStrictAll: float64(allFull) / float64(all),
		assay.MetricNuggetAll:       (float64(allFull) + 0.5*float64(allHalf)) / float64(all),
	}
	switch {
	case vital > 0:
		out[assay.MetricNuggetStrictVital] = float64(vitalFull) / float64(vital)
		out[assay.MetricNuggetVital] = (float64(vitalFull) + 0.5*float64(vitalHalf)) / float64(vital)
	case noVitalZero:
		out[assay.MetricNuggetStrictVital] = 0
		out[assay.MetricNuggetVital] = 0
	}
	return out
}

// ScoreNuggets sets r's nugget metrics from r.Nuggets (NuggetScores),
// removing those that are no longer defined.
func ScoreNuggets(r *assay.CaseResult, noVitalZero bool) {
	if len(r.Nuggets) == 0 {
		return
	}
	for _, m := range assay.NuggetMetrics {
		delete(r.Metrics, m)
	}
	sc := NuggetScores(r.Nuggets, noVitalZero)
	if r.Metrics == nil {
		r.Metrics = make(map[string]float64, len(sc))
	}
	for k, v := range sc {
		r.Metrics[k] = v
	}
}
