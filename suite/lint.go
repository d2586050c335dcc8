package suite

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/corpus"
)

// Severities of a Finding.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityNote    = "note"
)

// A Finding is one thing Lint has to say about a suite.
type Finding struct {
	Source   string `json:"source"`   // "file:line" (or just "file")
	Severity string `json:"severity"` // "error", "warning" or "note"
	Message  string `json:"message"`
}

// String is "file:line: severity: message", the form `assay lint` prints.
func (f Finding) String() string {
	return f.Source + ": " + f.Severity + ": " + f.Message
}

// Lint runs every check on the suite at path without running it, its
// gates by o.LintGates (package suite/lint's Lint sets it; nil checks no
// gate). The error
// is non-nil only when the suite cannot be loaded at all (unreadable, syntax,
// unknown field, wrong type, unreadable corpus); structural faults that make
// Load refuse the suite are error findings here.
func Lint(path string, o LoadOptions) ([]Finding, error) {
	_, fs, err := Check(path, o)
	return fs, err
}

// streamLint makes Check lint a suite Stream streams case by case, without
// holding its cases (tests turn it off to compare with the whole load).
var streamLint = true

// Check is Lint that also returns the suite as loaded (it may hold the
// structural faults reported as error findings). A native suite that
// Stream streams is linted case by case as it is read, and the returned
// suite holds no cases (Suite.Cases is nil; N counts them); any other
// suite is loaded whole, with the same findings.
func Check(path string, o LoadOptions) (*Streamed, []Finding, error) {
	var whole *parsed
	k := kindOf(path)
	if streamLint {
		var st *Streamed
		var out []Finding
		if st, out, whole = checkStreamed(path, k, o); st != nil {
			return st, out, nil
		}
	}
	var l *loaded
	var err error
	if whole != nil {
		l, err = loadParsed(path, whole)
	} else {
		l, err = load(path, k, o)
	}
	if err != nil {
		return nil, nil, err
	}
	var out []Finding
	for _, p := range l.probs {
		src := p.src
		if src == "" {
			f := l.file
			if p.file != "" {
				f = p.file
			}
			src = fmt.Sprintf("%s:%d", f, p.line)
		}
		out = append(out, Finding{Source: src, Severity: SeverityError, Message: p.msg})
	}
	if l.native != nil {
		out = appendWarnFindings(out, l.file, l.native.warns)
	}
	out = append(out, lintSuite(l, o)...)
	sortFindings(out)
	out = appendSuiteWarnings(out, l.file, l.suite, CheckManifest(l.suite))
	return wholeStreamed(l.suite), out, nil
}

// checkStreamed is Check of a suite Stream streams, linting each case in
// Stream's validating pass; st is nil when Stream does not stream it, and
// whole is then the parse streamNativeWith made of a native suite, if any.
func checkStreamed(path string, k fileKind, o LoadOptions) (st *Streamed, out []Finding, whole *parsed) {
	var ln *linter
	var topLines map[string]int
	st, whole = streamNativeWith(path, k, func(s *assay.Suite, p *parsed) caseFunc {
		// A suite Stream streams has no structural problem: the findings
		// are the lint warnings noticed while parsing, then lintSuite's.
		out = appendWarnFindings(nil, path, p.warns)
		ln, topLines = newLinter(path, s, o), p.topLines
		return func(c assay.Case, lines fieldLines, warns []problem) error {
			out = appendWarnFindings(out, path, warns)
			ln.lintCase(c, lines)
			return nil
		}
	})
	if st == nil || ln == nil {
		return nil, nil, whole
	}
	out = append(out, ln.findings(topLines)...)
	sortFindings(out)
	out = appendSuiteWarnings(out, path, st.Suite, CheckManifestStreamed(st))
	return st, out, nil
}

// appendWarnFindings appends the lint warnings the native parse noticed.
func appendWarnFindings(out []Finding, file string, warns []problem) []Finding {
	for _, w := range warns {
		f := file
		if w.file != "" {
			f = w.file
		}
		out = append(out, Finding{Source: fmt.Sprintf("%s:%d", f, w.line), Severity: SeverityWarning, Message: oneLine(w.msg)})
	}
	return out
}

// appendSuiteWarnings appends the loader's warnings of s and the manifest's
// (they follow the sorted findings).
func appendSuiteWarnings(out []Finding, file string, s *assay.Suite, manifest []string) []Finding {
	for _, w := range s.Warnings {
		if strings.Contains(w, unknownRefs) {
			continue // each is an error of its own
		}
		src, msg := file, w
		// A loader warning that already says where ("file:line: msg" or
		// "file:line:col: msg") keeps its own position.
		if head, rest, ok := strings.Cut(w, ": "); ok && looksLikePos(head) {
			src, msg = head, rest
		}
		out = append(out, Finding{Source: src, Severity: SeverityWarning, Message: msg})
	}
	mp := filepath.Join(s.Dir, ManifestName)
	for _, w := range manifest {
		out = append(out, Finding{Source: mp, Severity: SeverityWarning, Message: w})
	}
	return out
}

// sortFindings orders findings by file, then line (stable otherwise).
func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		fa, la := sourceLine(a.Source)
		fb, lb := sourceLine(b.Source)
		if c := strings.Compare(fa, fb); c != 0 {
			return c
		}
		return la - lb
	})
}

// looksLikePos reports whether s is "file:line" or "file:line:col".
func looksLikePos(s string) bool {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" {
		return false
	}
	for _, p := range parts[1:] {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}

// lintSuite runs the checks that do not stop a run, with o's surfaces
// and gate linter.
func lintSuite(l *loaded, o LoadOptions) []Finding {
	ln := newLinter(l.file, l.suite, o)
	var topLines map[string]int
	for i, c := range l.suite.Cases {
		var lines fieldLines
		if l.native != nil && i < len(l.native.caseLines) {
			lines = l.native.caseLines[i]
		}
		ln.lintCase(c, lines)
	}
	if l.native != nil {
		topLines = l.native.topLines
	}
	return ln.findings(topLines)
}

// A linter runs lintSuite's checks one case at a time, keeping of the cases
// only what the checks across cases need: the first member of each group
// and the number of cases whose references are not checked.
type linter struct {
	file     string
	s        *assay.Suite // its Cases are not read
	surfaces map[string][]string
	gates    GateLinter

	docs          docIndex
	ids           map[string]bool // the corpus ids, built when first needed
	byID          map[string]int  // corpus id -> index, built when first needed
	hasCorpus     bool
	refsUnchecked int
	groups        map[string]groupMember     // group → its first member
	tags          map[string]map[string]bool // the cases' tag values (at most MaxTagValues a key)
	manyTags      map[string]bool            // keys with more values than that: scopes not checked
	out           []Finding                  // of the cases, in case order
	grouped       []Finding                  // group disagreements, in case order
}

type groupMember struct {
	id, where, set string
}

func newLinter(file string, s *assay.Suite, o LoadOptions) *linter {
	return &linter{
		file: file, s: s, surfaces: o.Surfaces, gates: o.LintGates,
		docs:      newDocIndex(s.Corpus),
		hasCorpus: s.CorpusSource != "" || len(s.Corpus) > 0,
		groups:    map[string]groupMember{},
		tags:      map[string]map[string]bool{},
		manyTags:  map[string]bool{},
	}
}

// MaxTagValues bounds the values of one tag key that lint keeps for
// LoadOptions.LintGates.
const MaxTagValues = 1000

// TagValues are the tag values a suite's cases carry, as lint keeps them:
// Values holds at most MaxTagValues values a key; a key with more (such as
// a per-case id) is in Many instead, and its values are not all known.
type TagValues struct {
	Values map[string]map[string]bool
	Many   map[string]bool
}

// A GateLinter returns the findings on a suite's gates (file is the suite
// file, the source of a gate that records none), given the tag values its
// cases carry and the ranking metrics it computes (its metrics:, or
// assay.DefaultMetrics when it names none). Package suite/lint's Gates
// checks them against the gate grammar.
type GateLinter func(gates []assay.Gate, file string, tags TagValues, metrics []string) []Finding

// addTags records the case's tag values.
func (ln *linter) addTags(tags map[string]string) {
	for k, v := range tags {
		vals := ln.tags[k]
		if vals == nil {
			vals = map[string]bool{}
			ln.tags[k] = vals
		}
		if vals[v] {
			continue
		}
		if len(vals) >= MaxTagValues {
			ln.manyTags[k] = true
			continue
		}
		vals[v] = true
	}
}

// findings are the suite's findings once every case went through lintCase:
// the gates', the cases', the groups' and the note on unchecked references
// (topLines: the native suite's field lines, nil for a foreign format).
func (ln *linter) findings(topLines map[string]int) []Finding {
	var out []Finding
	// The gates: the caller's check, with the tag values the cases carry.
	if ln.gates != nil && len(ln.s.Gates) > 0 {
		metrics := ln.s.Metrics
		if len(metrics) == 0 {
			metrics = assay.DefaultMetrics
		}
		out = append(out, ln.gates(ln.s.Gates, ln.file, TagValues{Values: ln.tags, Many: ln.manyTags}, metrics)...)
	}
	out = append(out, ln.out...)
	out = append(out, ln.grouped...)
	if ln.refsUnchecked > 0 {
		src := ln.file
		if n, ok := topLines["cases"]; ok {
			src = fmt.Sprintf("%s:%d", ln.file, n)
		}
		out = append(out, Finding{Source: src, Severity: SeverityNote, Message: fmt.Sprintf("no corpus: document references of %d case(s) are not checked", ln.refsUnchecked)})
	}
	return out
}

// lintCase checks case c; lines are where its fields are in a native suite
// (nil for a foreign format).
func (ln *linter) lintCase(c assay.Case, lines fieldLines) {
	s := ln.s
	// where returns "file:line" for the case's field (or the case).
	file := ln.file
	if f, _ := sourceLine(c.Source); f != "" {
		file = f // a JSONL cases file
	}
	where := func(fieldKeys ...string) string {
		if lines != nil {
			for _, k := range fieldKeys {
				if n, ok := lines.get(k); ok {
					return fmt.Sprintf("%s:%d", file, n)
				}
			}
			return fmt.Sprintf("%s:%d", file, lines.at(""))
		}
		if c.Source != "" {
			return c.Source
		}
		return ln.file
	}
	add := func(src, sev, format string, args ...any) {
		ln.out = append(ln.out, Finding{Source: src, Severity: sev, Message: fmt.Sprintf(format, args...)})
	}

	name := fmt.Sprintf("case %q", c.ID)
	e := c.Expect
	ln.addTags(c.Tags)

	// Proposed from traces and not yet checked by a person.
	if c.Review == assay.ReviewPending {
		add(where("review"), SeverityError, "%s is pending review: check its query, add what it expects, then remove \"review\" to make it active", name)
	}

	// Nothing to check.
	turnChecks := false
	for _, t := range c.Turns {
		turnChecks = turnChecks || !t.Expect.Empty() || len(t.Expect.Judge) > 0 || len(t.Expect.Nuggets) > 0 || len(t.Judgments) > 0
	}
	if e.Empty() && len(e.Judge) == 0 && len(e.Nuggets) == 0 && !c.Judged() && !turnChecks {
		add(where(), SeverityError, "%s has nothing to check: add expectations under \"expect:\" or judgments", name)
	}

	// Judge bounds: checked only when a judge runs, on the criteria of
	// its rubric (a --judge file may bring another rubric: a warning).
	if len(e.Judge) > 0 {
		switch {
		case s.Judge == nil:
			add(where("expect.judge", "expect"), SeverityWarning, "%s: expect.judge is checked only when a judge runs: define judge: in the suite, or run with --judge FILE", name)
		default:
			known := judgeCriteria(s.Judge)
			for _, k := range keysSorted(e.Judge) {
				if !slices.Contains(known, k) {
					add(where("expect.judge", "expect"), SeverityWarning, "%s: expect.judge: no criterion %q in the judge's rubric (criteria: %s)", name, k, strings.Join(known, ", "))
				}
			}
		}
	}

	// Nuggets the judge is to assign, with no judge in the suite: a run
	// without --judge FILE refuses it.
	if s.Judge == nil && slices.ContainsFunc(e.Nuggets, func(n assay.Nugget) bool { return n.Assign == assay.NuggetAssignJudge }) {
		add(where("expect.nuggets", "expect"), SeverityWarning, "%s: a nugget says assign: judge and the suite defines no judge: a run needs --judge FILE (or define judge: in the suite)", name)
	}

	// A refusal judged by markers of another language than the case's.
	if lang := c.Tags["lang"]; e.Refusal != nil && *e.Refusal && lang != "" && englishMarkersFor(s, lang) {
		add(where("refusal", "tags"), SeverityWarning, "%s is tagged lang=%s but its refusal is judged by the English refusal markers: set refusal_markers to a list in that language (built-in sets: %s), or have the target report refused",
			name, lang, strings.Join(assay.RefusalMarkerLanguages(), ", "))
	}

	// Empty query (a missing query is a structural fault, reported already).
	queryPresent := c.Query != ""
	if lines != nil {
		_, queryPresent = lines.get("query")
	}
	if queryPresent && strings.TrimSpace(c.Query) == "" {
		add(where("query"), SeverityError, "%s: empty query", name)
	}
	for i, t := range c.Turns {
		if strings.TrimSpace(t.Query) == "" {
			src := t.Source // the turn's own line
			if src == "" {
				src = where("turns")
			}
			add(src, SeverityError, "%s: turn %d: empty query", name, i+1)
		}
	}

	// References to documents the corpus lacks.
	if !ln.hasCorpus {
		if c.Judged() || len(e.Retrieves) > 0 || len(e.Cites) > 0 || len(e.CitesAny) > 0 ||
			len(e.Cited) > 0 || len(e.CitedAny) > 0 {
			ln.refsUnchecked++
		}
	} else {
		docs := ln.docs
		for _, id := range sortedJudged(c.Judgments) {
			if docs.has(id) {
				if why := docs.ambiguous(id); why != "" && !ln.isID(id) {
					// metrics match rankings by id: this judgment would score nothing
					add(where("judgments", "relevant"), SeverityError, "%s: judgments: %q is not a document id and %s", name, id, why)
				}
				continue
			}
			if corpus.IsAnchor(id) {
				// a content anchor that no document (no chunk) contains any more
				sev := SeverityWarning
				if c.Judgments[id] > 0 {
					sev = SeverityError
				}
				add(where("judgments", "relevant"), sev, "%s: judgments: content anchor %q matches no document of the corpus (re-chunked or edited?): anchor it to text the corpus has, or remove it", name, id)
				continue
			}
			if c.Judgments[id] > 0 {
				add(where("judgments", "relevant"), SeverityError, "%s: judgments: no document %q in the corpus", name, id)
			} else {
				add(where("judgments"), SeverityWarning, "%s: judgments: no document %q in the corpus (judged non-relevant)", name, id)
			}
		}
		for _, id := range c.Relevant {
			if _, judged := c.Judgments[id]; judged {
				continue // checked above
			}
			if !docs.has(id) {
				add(where("relevant"), SeverityError, "%s: relevant: no document %q in the corpus", name, id)
			} else if why := docs.ambiguous(id); why != "" && !ln.isID(id) {
				add(where("relevant"), SeverityError, "%s: relevant: %q is not a document id and %s", name, id, why)
			}
		}
		for _, ref := range e.Retrieves {
			if !docs.has(ref) {
				add(where("expect.retrieves"), SeverityError, "%s: retrieves: no document %q in the corpus (matched by id, path or title)", name, ref)
			} else if why := docs.ambiguous(ref); why != "" {
				add(where("expect.retrieves"), SeverityWarning, "%s: retrieves: %q %s", name, ref, why)
			}
		}
		for _, every := range []expectList{{"cites", e.Cites}, {"cited", e.Cited}} {
			for _, ref := range every.vals {
				if !docs.has(ref) {
					add(where("expect."+every.key), SeverityError, "%s: %s: no document %q in the corpus (matched by id, path or title)", name, every.key, ref)
				} else if why := docs.ambiguous(ref); why != "" {
					add(where("expect."+every.key), SeverityWarning, "%s: %s: %q %s", name, every.key, ref, why)
				}
			}
		}
		for _, anyOf := range []expectList{{"cites_any", e.CitesAny}, {"cited_any", e.CitedAny}} {
			var missingAny []string
			for _, ref := range anyOf.vals {
				if !docs.has(ref) {
					missingAny = append(missingAny, ref)
				} else if why := docs.ambiguous(ref); why != "" {
					add(where("expect."+anyOf.key), SeverityWarning, "%s: %s: %q %s", name, anyOf.key, ref, why)
				}
			}
			if len(missingAny) > 0 {
				sev := SeverityWarning
				if len(missingAny) == len(anyOf.vals) {
					sev = SeverityError
				}
				add(where("expect."+anyOf.key), sev, "%s: %s: no document %s in the corpus (matched by id, path or title)", name, anyOf.key, quoteList(missingAny))
			}
		}
	}

	// Expectations that contradict each other, or cannot pass.
	for _, t := range e.CallsTool {
		if slices.Contains(e.NeverCalls, t) {
			add(where("expect.never_calls"), SeverityError, "%s: tool %q is in both calls_tool and never_calls", name, t)
		}
	}
	if e.NoCitations && (len(e.Cites) > 0 || len(e.CitesAny) > 0) {
		add(where("expect.no_citations"), SeverityError, "%s: no_citations contradicts cites/cites_any", name)
	}
	if e.NoCitations && (len(e.Cited) > 0 || len(e.CitedAny) > 0) {
		add(where("expect.no_citations"), SeverityError, "%s: no_citations contradicts cited/cited_any", name)
	}
	cs := s.Defaults.CaseSensitive
	if e.CaseSensitive != nil {
		cs = *e.CaseSensitive
	}
	for _, inc := range e.AnswerIncludes {
		for _, exc := range e.AnswerExcludes {
			if inc != "" && exc != "" && substring(inc, exc, cs) {
				add(where("expect.answer_excludes"), SeverityError, "%s: answer_includes %q contains answer_excludes %q: no answer can pass", name, inc, exc)
			}
		}
	}
	k := c.K
	if k == 0 {
		k = s.Defaults.K
	}
	if k > 0 && len(e.Retrieves) > k {
		add(where("expect.retrieves"), SeverityWarning, "%s: retrieves lists %d documents but k is %d: they cannot all be in the top k", name, len(e.Retrieves), k)
	}

	// Tools not on the surface: the target file's surface when lint was
	// given one, else the suite's tools: list.
	surfTools, surfName := s.Tools, "the surface"
	if ln.surfaces != nil {
		st, ok := ln.surfaces[c.Surface]
		switch {
		case !ok && c.Surface != "":
			if names := surfaceNames(ln.surfaces); len(names) > 0 {
				add(where("surface"), SeverityError, "%s: surface %q is not in the target file (surfaces: %s)", name, c.Surface, strings.Join(names, ", "))
			} else {
				add(where("surface"), SeverityError, "%s: surface %q is not in the target file (it declares no surfaces:)", name, c.Surface)
			}
		case ok && st != nil:
			surfTools = st
			if c.Surface != "" {
				surfName = fmt.Sprintf("surface %q", c.Surface)
			}
		}
	}
	if len(surfTools) > 0 {
		on := map[string]bool{}
		for _, t := range surfTools {
			on[t] = true
		}
		for _, t := range e.CallsTool {
			if !on[t] {
				add(where("expect.calls_tool"), SeverityError, "%s: calls_tool: tool %q is not on %s (tools: %s)", name, t, surfName, strings.Join(surfTools, ", "))
			}
		}
		for _, t := range e.NeverCalls {
			if !on[t] {
				add(where("expect.never_calls"), SeverityError, "%s: never_calls: tool %q is not on %s (tools: %s)", name, t, surfName, strings.Join(surfTools, ", "))
			}
		}
		// The calls of tools expectations, the conversation's and its
		// turns'.
		trajectories := []*assay.ToolTrajectory{e.Tools}
		for _, t := range c.Turns {
			trajectories = append(trajectories, t.Expect.Tools)
		}
		for _, tr := range trajectories {
			if tr == nil {
				continue
			}
			for _, call := range tr.Calls {
				if !on[call.Name] {
					add(where("expect.tools", "expect"), SeverityError, "%s: tools: tool %q is not on %s (tools: %s)", name, call.Name, surfName, strings.Join(surfTools, ", "))
				}
			}
		}
	}

	// Leakage: the answer or a judged document named in the query.
	if strings.TrimSpace(c.Query) != "" {
		// the query is lowered once, not once per expected string or id:
		// 20,000 judgments and a long query made that gigabytes
		lq := strings.ToLower(c.Query)
		for _, a := range append(slices.Clone(e.AnswerIncludes), e.AnswerIncludesAny...) {
			if strings.TrimSpace(a) == "" {
				continue
			}
			if cs && strings.Contains(c.Query, a) || !cs && strings.Contains(lq, strings.ToLower(a)) {
				add(where("expect.answer_includes", "expect.answer_includes_any"), SeverityWarning,
					"%s: leakage: the expected answer %q appears in the query", name, a)
			}
		}
		var words *queryWords
		for _, id := range sortedJudged(c.Judgments) {
			if c.Judgments[id] <= 0 {
				continue
			}
			if words == nil {
				words = newQueryWords(lq, c.Judgments)
			}
			if words.containsToken(strings.ToLower(id)) {
				add(where("judgments", "relevant"), SeverityWarning,
					"%s: leakage: the judged document id %q appears in the query", name, id)
			}
		}
		ln.nameLeaks(c, lq, func(format string, args ...any) {
			add(where("judgments", "relevant"), SeverityWarning, "%s: leakage: "+format, append([]any{name}, args...)...)
		})
	}

	// Groups whose members disagree on the expected documents.
	if g := c.Tags["group"]; g != "" {
		set := expectedSet(c)
		first, ok := ln.groups[g]
		switch {
		case !ok:
			ln.groups[g] = groupMember{id: c.ID, where: where(), set: set}
		case set != first.set:
			ln.grouped = append(ln.grouped, Finding{Source: where(), Severity: SeverityWarning, Message: fmt.Sprintf(
				"case %q: group %q expects documents [%s], but case %q (%s) expects [%s]",
				c.ID, g, set, first.id, first.where, first.set)})
		}
	}
}

func surfaceNames(m map[string][]string) []string {
	var out []string
	for k := range m {
		if k != "" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func sortedJudged(j map[string]int) []string {
	ids := make([]string, 0, len(j))
	for id := range j {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// expectedSet is the space-separated sorted ids a case judges relevant.
func expectedSet(c assay.Case) string {
	var ids []string
	for _, id := range sortedJudged(c.Judgments) {
		if c.Judgments[id] > 0 {
			ids = append(ids, id)
		}
	}
	return strings.Join(ids, " ")
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}

func substring(s, sub string, caseSensitive bool) bool {
	if caseSensitive {
		return strings.Contains(s, sub)
	}
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// containsToken reports whether tok occurs in s (case-insensitively) not
// glued to letters or digits on either side, so that id "12" is not found in
// "2012".
func containsToken(s, tok string) bool {
	if tok == "" {
		return false
	}
	return containsTokenLower(strings.ToLower(s), strings.ToLower(tok))
}

// containsTokenLower is containsToken of lowered text.
func containsTokenLower(ls, lt string) bool {
	if lt == "" {
		return false
	}
	for from := 0; from <= len(ls)-len(lt); {
		j := strings.Index(ls[from:], lt)
		if j < 0 {
			return false
		}
		start, end := from+j, from+j+len(lt)
		before, _ := utf8.DecodeLastRuneInString(ls[:start])
		after, _ := utf8.DecodeRuneInString(ls[end:])
		if (start == 0 || !isWordRune(before)) && (end == len(ls) || !isWordRune(after)) {
			return true
		}
		from = start + 1
	}
	return false
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// queryWords finds judged ids in a lowered query as containsToken does, in
// time linear in the query and the ids rather than their product (20,000
// judged ids searched one by one in a long query took minutes). An id found
// as a token has its longest run of word runes standing in the query as a
// whole word (the runes beside the run are the id's own non-word runes, or
// the token's boundaries), so the query's words are indexed once, keeping
// the offsets of those words that are some id's run, and an id is checked
// only where its run stands.
type queryWords struct {
	lq  string
	pos map[string][]int // word -> offsets in lq
}

func newQueryWords(lq string, ids map[string]int) *queryWords {
	w := &queryWords{lq: lq, pos: map[string][]int{}}
	for id, g := range ids {
		if g > 0 {
			if run, _ := longestWordRun(strings.ToLower(id)); run != "" {
				w.pos[run] = nil
			}
		}
	}
	for i := 0; i < len(lq); {
		r, n := utf8.DecodeRuneInString(lq[i:])
		if !isWordRune(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(lq) {
			r, n := utf8.DecodeRuneInString(lq[j:])
			if !isWordRune(r) {
				break
			}
			j += n
		}
		if offs, ok := w.pos[lq[i:j]]; ok {
			w.pos[lq[i:j]] = append(offs, i)
		}
		i = j
	}
	return w
}

// containsToken reports whether the lowered id lt occurs in the query as
// containsTokenLower finds it.
func (w *queryWords) containsToken(lt string) bool {
	run, off := longestWordRun(lt)
	if run == "" {
		return containsTokenLower(w.lq, lt) // no word rune at all: rare
	}
	for _, p := range w.pos[run] {
		start, end := p-off, p-off+len(lt)
		if start < 0 || end > len(w.lq) || w.lq[start:end] != lt {
			continue
		}
		before, _ := utf8.DecodeLastRuneInString(w.lq[:start])
		after, _ := utf8.DecodeRuneInString(w.lq[end:])
		if (start == 0 || !isWordRune(before)) && (end == len(w.lq) || !isWordRune(after)) {
			return true
		}
	}
	return false
}

// longestWordRun is the longest run of word runes in s (the first of the
// longest) and its byte offset.
func longestWordRun(s string) (string, int) {
	best, bestAt := "", 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if !isWordRune(r) {
				break
			}
			j += n
		}
		if j-i > len(best) {
			best, bestAt = s[i:j], i
		}
		i = j
	}
	return best, bestAt
}

// docIndex answers "does the corpus have a document with this id, path or
// title", and "how many": a reference that names two documents (a title
// or path they share, or one's id that is another's title) is ambiguous.
// It is corpus.Names, the one resolver of document references.
type docIndex struct{ *corpus.Names }

func newDocIndex(docs []assay.Document) docIndex { return docIndex{corpus.NewNames(docs)} }

func (ix docIndex) has(ref string) bool { return ix.Count(ref) > 0 }

// nameLeaks reports, through leak, each relevant judged document of c
// whose file stem or title stands in the lowered query lq as whole words.
// Only stems of two words or more ("api-reference", written as the file
// name is) and titles of minTitleWords words or more ("Helm Deployment
// Guide") are checked: a short title such as "Glaze" or "Password Reset"
// is also the words a fair query uses to name its topic. A stem equal to
// the id was checked as the id.
func (ln *linter) nameLeaks(c assay.Case, lq string, leak func(format string, args ...any)) {
	if len(ln.s.Corpus) == 0 || len(c.Judgments) == 0 {
		return
	}
	if ln.byID == nil {
		ln.byID = make(map[string]int, len(ln.s.Corpus))
		for i, d := range ln.s.Corpus {
			ln.byID[d.ID] = i
		}
	}
	type named struct{ id, stem, title string }
	var docs []named
	names := map[string]int{}
	for _, id := range sortedJudged(c.Judgments) {
		i, ok := ln.byID[id]
		if !ok || c.Judgments[id] <= 0 {
			continue
		}
		d := ln.s.Corpus[i]
		p := d.Path
		if p == "" {
			p = d.ID
		}
		n := named{id: id}
		if b := path.Base(p); b != "." && b != "/" {
			n.stem = strings.TrimSuffix(b, path.Ext(b))
		}
		if n.stem == id || wordCount(n.stem) < 2 {
			n.stem = ""
		}
		if n.title = d.Title; strings.EqualFold(n.title, n.stem) || n.title == id || wordCount(n.title) < minTitleWords {
			n.title = ""
		}
		for _, x := range []string{n.stem, n.title} {
			if x != "" {
				names[strings.ToLower(x)] = 1
			}
		}
		if n.stem != "" || n.title != "" {
			docs = append(docs, n)
		}
	}
	if len(docs) == 0 {
		return
	}
	words := newQueryWords(lq, names)
	for _, n := range docs {
		if n.stem != "" && words.containsToken(strings.ToLower(n.stem)) {
			leak("the query contains the file stem %q of the judged document %q", n.stem, n.id)
		}
		if n.title != "" && words.containsToken(strings.ToLower(n.title)) {
			leak("the query contains the title %q of the judged document %q", n.title, n.id)
		}
	}
}

// wordCount is the number of runs of word runes in s.
// minTitleWords is the fewest words a document title has for leakage lint
// to look for it in a query.
const minTitleWords = 3

func wordCount(s string) int {
	n, in := 0, false
	for _, r := range s {
		w := isWordRune(r)
		if w && !in {
			n++
		}
		in = w
	}
	return n
}

// isID reports whether ref is the id of a corpus document.
func (ln *linter) isID(ref string) bool {
	if ln.ids == nil {
		ln.ids = make(map[string]bool, len(ln.s.Corpus))
		for _, d := range ln.s.Corpus {
			ln.ids[d.ID] = true
		}
	}
	return ln.ids[ref]
}

// ambiguous describes a reference that names more than one document,
// "names 2 documents of the corpus (a.md, b.md)"; "" when it names one or
// none.
func (ix docIndex) ambiguous(ref string) string {
	e := ix.Ambiguity(ref)
	if e == nil {
		return ""
	}
	return "names " + e.Documents() + ": it passes for any of them; use the document's id"
}

// englishMarkersFor reports whether a case tagged lang, in a language
// other than English, has its refusal judged by the English markers: the
// suite's refusal_markers are the English set, or the suite sets none and
// lang has no built-in set.
func englishMarkersFor(s *assay.Suite, lang string) bool {
	if en, _ := assay.RefusalMarkerSet("en"); s.RefusalMarkers != nil {
		own, _ := assay.RefusalMarkerSet(lang)
		return slices.Equal(s.RefusalMarkers, en) && !slices.Equal(own, en)
	}
	_, ok := assay.RefusalMarkerSet(lang)
	return !ok
}

// judgeCriteria are the criterion names of a judge definition's rubric
// (assay.DefaultJudgeRubric when it has none).
func judgeCriteria(j *assay.JudgeConfig) []string {
	rubric := j.Rubric
	if len(rubric) == 0 {
		rubric = assay.DefaultJudgeRubric
	}
	out := make([]string, len(rubric))
	for i, c := range rubric {
		out[i] = c.Name
	}
	return out
}
