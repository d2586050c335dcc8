package grade

import (
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
)

// The expectation kinds, by their suite field name, in the order Case reports
// their checks.
const (
	KindAnswerIncludes    = "answer_includes"
	KindAnswerIncludesAny = "answer_includes_any"
	KindAnswerExcludes    = "answer_excludes"
	KindAnswerMatches     = "answer_matches"
	KindRetrieves         = "retrieves"
	KindCites             = "cites"
	KindCitesAny          = "cites_any"
	KindCited             = "cited"
	KindCitedAny          = "cited_any"
	KindCitesOnlySurfaced = "cites_only_surfaced"
	KindNoCitations       = "no_citations"
	KindRefusal           = "refusal"
	KindCallsTool         = "calls_tool"
	KindCallsAnyTool      = "calls_any_tool"
	KindNeverCalls        = "never_calls"
	// KindMaxTurns is a conversation's own check (Conversation), after
	// the kinds of Kinds.
	KindMaxTurns        = "max_turns"
	KindStopsAtApproval = "stops_at_approval"
	KindOutcome         = "outcome"
	KindJSONSchema      = "json_schema"
	KindMaxLatency      = "max_latency_ms"
)

// Kinds lists every expectation kind in the order Case reports them.
var Kinds = []string{
	KindAnswerIncludes, KindAnswerIncludesAny, KindAnswerExcludes, KindAnswerMatches,
	KindRetrieves, KindCites, KindCitesAny, KindCited, KindCitedAny, KindCitesOnlySurfaced, KindNoCitations,
	KindRefusal, KindCallsTool, KindCallsAnyTool, KindNeverCalls, KindTools, KindStopsAtApproval,
	KindOutcome, KindJSONSchema, KindMaxLatency,
}

func pass(kind string) assay.Check { return assay.Check{Kind: kind, Pass: true} }

func fail(kind, detail string) assay.Check {
	return assay.Check{Kind: kind, Pass: false, Detail: detail}
}

// quoteList writes strings Go-quoted, comma separated: "a", "b".
func quoteList(ss []string) string {
	var b strings.Builder
	for i, s := range ss {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(s))
	}
	return b.String()
}

// name writes a document id, path, title or tool name bare when it is a
// plain token, Go-quoted when it is empty or holds spaces, commas,
// semicolons, parentheses or quotes, so a detail stays unambiguous.
func name(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\r\n,;()\"'") || !strconv.CanBackquote(s) {
		return strconv.Quote(s)
	}
	return s
}

// nameList writes names (see name) comma separated.
func nameList(ss []string) string {
	var b strings.Builder
	for i, s := range ss {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name(s))
	}
	return b.String()
}

// num writes a float without trailing zeros: 2000, 12.5.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
