package suite

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
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

// Lint runs every check on the suite at path without running it. The error
// is non-nil only when the suite cannot be loaded at all (unreadable, syntax,
// unknown field, wrong type, unreadable corpus); structural faults that make
// Load refuse the suite are error findings here.
func Lint(path string, o LoadOptions) ([]Finding, error) {
	_, fs, err := Check(path, o)
	return fs, err
}

// Check is Lint that also returns the suite as loaded (it may hold the
// structural faults reported as error findings).
func Check(path string, o LoadOptions) (*assay.Suite, []Finding, error) {
	l, err := load(path, o)
	if err != nil {
		return nil, nil, err
	}
	var out []Finding
	for _, p := range l.probs {
		src := p.src
		if src == "" {
			src = fmt.Sprintf("%s:%d", l.file, p.line)
		}
		out = append(out, Finding{Source: src, Severity: SeverityError, Message: p.msg})
	}
	if l.native != nil {
		for _, w := range l.native.warns {
			out = append(out, Finding{Source: fmt.Sprintf("%s:%d", l.file, w.line), Severity: SeverityWarning, Message: oneLine(w.msg)})
		}
	}
	out = append(out, lintSuite(l, o.Surfaces)...)
	sortFindings(out)
	for _, w := range l.suite.Warnings {
		src, msg := l.file, w
		// A loader warning that already says where ("file:line: msg" or
		// "file:line:col: msg") keeps its own position.
		if head, rest, ok := strings.Cut(w, ": "); ok && looksLikePos(head) {
			src, msg = head, rest
		}
		out = append(out, Finding{Source: src, Severity: SeverityWarning, Message: msg})
	}
	if ws := CheckManifest(l.suite); len(ws) > 0 {
		mp := filepath.Join(l.suite.Dir, ManifestName)
		for _, w := range ws {
			out = append(out, Finding{Source: mp, Severity: SeverityWarning, Message: w})
		}
	}
	return l.suite, out, nil
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

// lintSuite runs the checks that do not stop a run (ARCHITECTURE issue 7).
// surfaces, when not nil, are the target file's surfaces (name → tools;
// "" is its default target; nil tools: nothing to check).
func lintSuite(l *loaded, surfaces map[string][]string) []Finding {
	s := l.suite
	var out []Finding
	// where returns "file:line" for case i's field (or the case).
	where := func(i int, fieldKeys ...string) string {
		if l.native != nil && i < len(l.native.caseLines) {
			lines := l.native.caseLines[i]
			for _, k := range fieldKeys {
				if n, ok := lines.get(k); ok {
					return fmt.Sprintf("%s:%d", l.file, n)
				}
			}
			return fmt.Sprintf("%s:%d", l.file, lines.at(""))
		}
		if s.Cases[i].Source != "" {
			return s.Cases[i].Source
		}
		return l.file
	}
	add := func(src, sev, format string, args ...any) {
		out = append(out, Finding{Source: src, Severity: sev, Message: fmt.Sprintf(format, args...)})
	}

	// Gate expressions that would not parse at run time.
	for _, g := range s.Gates {
		if _, err := gate.Parse(g.Expr, g.Source); err != nil {
			msg := err.Error()
			var pe *gate.ParseError
			if errors.As(err, &pe) {
				msg = fmt.Sprintf("gate %q: %s", pe.Expr, pe.Reason)
			}
			src := g.Source
			if src == "" {
				src = l.file
			}
			add(src, SeverityError, "%s", msg)
		}
	}

	docs := newDocIndex(s.Corpus)
	hasCorpus := s.CorpusSource != "" || len(s.Corpus) > 0
	refsUnchecked := 0
	for i, c := range s.Cases {
		name := fmt.Sprintf("case %q", c.ID)
		e := c.Expect

		// Nothing to check.
		if e.Empty() && !c.Judged() {
			add(where(i), SeverityError, "%s has nothing to check: add expectations under \"expect:\" or judgments", name)
		}

		// Empty query (a missing query is a structural fault, reported already).
		queryPresent := c.Query != ""
		if l.native != nil && i < len(l.native.caseLines) {
			_, queryPresent = l.native.caseLines[i].get("query")
		}
		if queryPresent && strings.TrimSpace(c.Query) == "" {
			add(where(i, "query"), SeverityError, "%s: empty query", name)
		}

		// References to documents the corpus lacks.
		if !hasCorpus {
			if c.Judged() || len(e.Retrieves) > 0 || len(e.Cites) > 0 || len(e.CitesAny) > 0 {
				refsUnchecked++
			}
		} else {
			for _, id := range sortedJudged(c.Judgments) {
				if docs.has(id) {
					continue
				}
				if c.Judgments[id] > 0 {
					add(where(i, "judgments", "relevant"), SeverityError, "%s: judgments: no document %q in the corpus", name, id)
				} else {
					add(where(i, "judgments"), SeverityWarning, "%s: judgments: no document %q in the corpus (judged non-relevant)", name, id)
				}
			}
			for _, ref := range e.Retrieves {
				if !docs.has(ref) {
					add(where(i, "expect.retrieves"), SeverityError, "%s: retrieves: no document %q in the corpus (matched by id, path or title)", name, ref)
				}
			}
			for _, ref := range e.Cites {
				if !docs.has(ref) {
					add(where(i, "expect.cites"), SeverityError, "%s: cites: no document %q in the corpus (matched by id, path or title)", name, ref)
				}
			}
			var missingAny []string
			for _, ref := range e.CitesAny {
				if !docs.has(ref) {
					missingAny = append(missingAny, ref)
				}
			}
			if len(missingAny) > 0 {
				sev := SeverityWarning
				if len(missingAny) == len(e.CitesAny) {
					sev = SeverityError
				}
				add(where(i, "expect.cites_any"), sev, "%s: cites_any: no document %s in the corpus (matched by id, path or title)", name, quoteList(missingAny))
			}
		}

		// Expectations that contradict each other, or cannot pass.
		for _, t := range e.CallsTool {
			if slices.Contains(e.NeverCalls, t) {
				add(where(i, "expect.never_calls"), SeverityError, "%s: tool %q is in both calls_tool and never_calls", name, t)
			}
		}
		if e.NoCitations && (len(e.Cites) > 0 || len(e.CitesAny) > 0) {
			add(where(i, "expect.no_citations"), SeverityError, "%s: no_citations contradicts cites/cites_any", name)
		}
		cs := s.Defaults.CaseSensitive
		if e.CaseSensitive != nil {
			cs = *e.CaseSensitive
		}
		for _, inc := range e.AnswerIncludes {
			for _, exc := range e.AnswerExcludes {
				if inc != "" && exc != "" && substring(inc, exc, cs) {
					add(where(i, "expect.answer_excludes"), SeverityError, "%s: answer_includes %q contains answer_excludes %q: no answer can pass", name, inc, exc)
				}
			}
		}
		k := c.K
		if k == 0 {
			k = s.Defaults.K
		}
		if k > 0 && len(e.Retrieves) > k {
			add(where(i, "expect.retrieves"), SeverityWarning, "%s: retrieves lists %d documents but k is %d: they cannot all be in the top k", name, len(e.Retrieves), k)
		}

		// Tools not on the surface: the target file's surface when lint was
		// given one, else the suite's tools: list.
		surfTools, surfName := s.Tools, "the surface"
		if surfaces != nil {
			st, ok := surfaces[c.Surface]
			switch {
			case !ok && c.Surface != "":
				if names := surfaceNames(surfaces); len(names) > 0 {
					add(where(i, "surface"), SeverityError, "%s: surface %q is not in the target file (surfaces: %s)", name, c.Surface, strings.Join(names, ", "))
				} else {
					add(where(i, "surface"), SeverityError, "%s: surface %q is not in the target file (it declares no surfaces:)", name, c.Surface)
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
					add(where(i, "expect.calls_tool"), SeverityError, "%s: calls_tool: tool %q is not on %s (tools: %s)", name, t, surfName, strings.Join(surfTools, ", "))
				}
			}
			for _, t := range e.NeverCalls {
				if !on[t] {
					add(where(i, "expect.never_calls"), SeverityError, "%s: never_calls: tool %q is not on %s (tools: %s)", name, t, surfName, strings.Join(surfTools, ", "))
				}
			}
		}

		// Leakage: the answer or a judged document named in the query.
		if strings.TrimSpace(c.Query) != "" {
			for _, a := range append(slices.Clone(e.AnswerIncludes), e.AnswerIncludesAny...) {
				if strings.TrimSpace(a) != "" && substring(c.Query, a, cs) {
					add(where(i, "expect.answer_includes", "expect.answer_includes_any"), SeverityWarning,
						"%s: leakage: the expected answer %q appears in the query", name, a)
				}
			}
			for _, id := range sortedJudged(c.Judgments) {
				if c.Judgments[id] > 0 && containsToken(c.Query, id) {
					add(where(i, "judgments", "relevant"), SeverityWarning,
						"%s: leakage: the judged document id %q appears in the query", name, id)
				}
			}
		}
	}

	// Groups whose members disagree on the expected documents.
	type member struct {
		index int
		set   string
	}
	groups := map[string]member{}
	for i, c := range s.Cases {
		g := c.Tags["group"]
		if g == "" {
			continue
		}
		set := expectedSet(c)
		first, ok := groups[g]
		if !ok {
			groups[g] = member{index: i, set: set}
			continue
		}
		if set != first.set {
			add(where(i), SeverityWarning, "case %q: group %q expects documents [%s], but case %q (%s) expects [%s]",
				c.ID, g, set, s.Cases[first.index].ID, where(first.index), first.set)
		}
	}

	if refsUnchecked > 0 {
		src := l.file
		if l.native != nil {
			if n, ok := l.native.topLines["cases"]; ok {
				src = fmt.Sprintf("%s:%d", l.file, n)
			}
		}
		add(src, SeverityNote, "no corpus: document references of %d case(s) are not checked", refsUnchecked)
	}
	return out
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
	ls, lt := strings.ToLower(s), strings.ToLower(tok)
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

// docIndex answers "does the corpus have a document with this id, path or
// title".
type docIndex map[string]bool

func newDocIndex(docs []assay.Document) docIndex {
	ix := docIndex{}
	for _, d := range docs {
		ix[d.ID] = true
		if d.Path != "" {
			ix[d.Path] = true
		}
		if d.Title != "" {
			ix[d.Title] = true
		}
	}
	return ix
}

func (ix docIndex) has(ref string) bool { return ix[ref] }
