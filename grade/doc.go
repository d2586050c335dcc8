// Package grade turns one observation of one case into a graded
// assay.CaseResult: one check per expectation the case states (the user's
// contract is docs/expectations.md) and, for judged cases, the per-case
// metrics (docs/metrics.md).
//
// Its place in the pipeline:
//
//	Target.Observe -> Observation ──grade.Case──> CaseResult ──runner.Summarize──> Summary
//
// Every expectation kind is a pure exported function (AnswerIncludes,
// Retrieves, Cites, ...) returning an assay.Check. A passing check has an
// empty Detail; a failing one states the fact, worded the same way
// everywhere: strings from the answer are Go-quoted (`missing "sha-256"`);
// document ids, paths, titles and tool names are bare unless they are empty
// or hold spaces, commas, semicolons, parentheses or quotes, in which case
// they are Go-quoted (`unsurfaced d9`, `missing "Getting Started" from top 5`);
// several facts of one check are joined by "; ".
//
// # Shared definitions
//
//   - Ranking: obs.Retrieved in the order returned; a repeated id keeps its
//     first position (Ranking). Metrics and retrieves use it. A hit's id is
//     its id, else its path, else its title (as the HTTP response mapping
//     fills it), so a trace whose hits carry only paths ranks every hit and
//     judges it by path; a hit with none of the three keeps its rank, is
//     never a repeat, and is neither relevant nor matched.
//   - A citation matches a value when the value equals its id, path or title.
//     Empty strings match nothing.
//   - A citation is surfaced when a document anywhere in obs.Retrieved
//     names it. A citation that carries an id is surfaced only by that id:
//     some retrieved document's id (HitID) equals it; its path and title
//     are not consulted, since a title (or path) can be shared by several
//     documents, and a citation of a document that was never retrieved
//     must not pass because a retrieved one shares its title. A citation
//     without an id is surfaced when its non-empty path or title equals
//     the id, path or title of a retrieved document (fields cross: a
//     citation by path matches a hit by path or by id); it is as precise
//     as the name it gives. A title or path that names two documents of
//     the corpus is ambiguous as an expectation value: assay lint warns
//     about it (use the document's id).
//   - cites/cites_any are the surfaced rule: the answer cites the document
//     AND the target retrieved it, so a citation the system invented or
//     kept from an earlier turn does not count. cited/cited_any are
//     weaker: a matching citation is enough, retrieved or not. They are what
//     a promptfoo or Evalite suite ported as-is states ("the answer cites
//     the policy"); use them when the target does not report its ranking
//     or when the check is about the answer only, and prefer cites when the
//     ranking is known, since cited passes on an unsurfaced citation.
//   - Refused: obs.Refused when the target reports it (non-null); otherwise
//     the answer contains a refusal marker, case-insensitively (Fold). The
//     markers (Options.Markers) are the suite's refusal_markers when it
//     sets them (a list, or a built-in set by name); otherwise the built-in
//     set of the case's tags.lang (assay.RefusalMarkerSet: de, en, fr, it,
//     by primary subtag); otherwise assay.DefaultRefusalMarkers (English).
//     The sets are phrases a refusal says ("i don't know", "kann ich nicht
//     beantworten"), not words an ordinary answer may hold ("no
//     information").
//   - Substring comparisons are case-insensitive unless the case's
//     expect.case_sensitive, else the suite's defaults.case_sensitive, says
//     otherwise. Case-insensitive compares the Fold keys of both sides:
//     full Unicode case folding (golang.org/x/text/cases.Fold) then NFC, so
//     final sigma, ß/SS and decomposed accents match. Both sides are NFC in
//     case-sensitive mode too. The Turkish dotted/dotless i are not
//     special-cased (Unicode's default folding: İ -> i + U+0307, ı stays
//     ı), whatever the case's tags.lang: one rule for every case. The
//     answer is folded once per check, each expected string once, so a
//     check is linear in the answer and the strings.
//   - k is the case's k, else the suite's defaults.k, else assay.DefaultK.
//
// # The kinds, in the order Case reports their checks (Kinds)
//
//	answer_includes      every string occurs in the answer            missing "a", "b"
//	answer_includes_any  at least one string occurs in the answer     none of "a", "b"
//	answer_excludes      no string occurs in the answer               found "md5"
//	answer_matches       the RE2 pattern matches somewhere (unanchored;
//	                     case_sensitive does not apply, use (?i))      no match for PATTERN
//	retrieves            each value matches (id, path or title) a
//	                     document among the first k of the ranking     missing a.md from top 10 [(rank 12)]
//	cites                each value matches some surfaced citation    unsurfaced d9; not cited d3
//	cites_any            at least one value does                      none of a, b cited [and surfaced (unsurfaced b)]
//	cited                each value matches some citation, surfaced
//	                     or not (weaker than cites)                   not cited d3, d4
//	cited_any            at least one value does                      none of a, b cited
//	cites_only_surfaced  every citation is surfaced (none passes)     unsurfaced docs/x.md
//	no_citations         there is no citation                         cited a.md, b.md
//	refusal              refused == the stated value                  not refused | refused
//	calls_tool           each name called at least once without error not called search; get errored: MSG
//	calls_any_tool       some call has an empty error                 no tool called | every call errored (2 calls)
//	never_calls          no call has that name, errored or not        called delete_doc
//	tools                the calls made match the expected calls by
//	                     the trajectory's mode (Trajectory, below)     call 3: expected search(q≈'refund'), got get_doc(id='d7')
//	stops_at_approval    approval_pending is true                     no approval pending
//	outcome              outcome equals the value exactly             outcome "failed", want "completed"
//	json_schema          the answer (or obs.Fields["json"] when the
//	                     target mapped one) is one JSON value valid
//	                     against the schema (draft from $schema:
//	                     2020-12 default, 07 supported)                answer is not JSON: ... | at '/k': ... (sorted, at most 5)
//	max_latency_ms       latency_ms reported and <= the bound         latency 250 ms > 100 ms | no latency reported
//
// An observation with an error fails every expectation the case states,
// each check carrying the error as its detail (`timeout: no answer after
// 30s`).
//
// # Case
//
// Case fills an assay.CaseResult: ID (the case's), Trial (the
// observation's), Pass (nil when the case states no expectation; otherwise
// true iff every check passes and the observation has no error), Error,
// Checks (never nil: an empty list for an ungraded case), Metrics (only for
// judged cases: canonical metric name -> metric.Spec.Eval over the ranking,
// with the suite's gain; an errored observation contributes an empty
// ranking, so zeros), LatencyMs, Tags, Retrieved (length of the ranking),
// Citations (number of citations), Refused (the rule above), TopScore (the
// score of the first retrieved document; nil when none or errored), Stages
// (the observation's span durations summed by span name, see Stages; nil
// when it has no span or errored), Hash (CaseHash of the case), for judged
// cases Unjudged (unj@K for each metric cutoff K and the default k, over
// the binary judgments: metric.Unjudged) and Upper (each metric with the
// unjudged documents it reads counted relevant, metric.Spec.Upper, where
// that differs from its value), Nuggets (for a case with expect.nuggets:
// each nugget's assignment, by Nuggets) with the four nugget metrics in
// Metrics (NuggetScores), and Observation (a pointer to a copy of the
// observation).
//
// # Nuggets
//
// MatchNugget is the deterministic rule that decides how far a text
// supports one nugget: support when an alternative of match occurs (by
// the answer_includes comparison) or regex matches, else by its parts
// (all found: support; some: partial_support), else not_support; a
// nugget with no match, regex or parts is looked for by its text. It
// takes any text (an answer, a sentence, a passage) and reports what was
// found and at which byte offset. Nuggets assigns a case's nuggets for
// one observation (a recorded assignment is kept as is; an errored
// observation supports none); NuggetScores computes nugget_strict_vital,
// nugget_strict_all, nugget_vital and nugget_all as nuggetizer's
// calculate_nugget_scores does (partial support worth one half), with the
// vital scores of a case without a vital nugget undefined unless the
// suite says nugget_no_vital: zero (Options.NuggetNoVitalZero);
// ScoreNuggets puts them in a result again after the judge assigned the
// nuggets no rule matched (package judge, AssignNuggets).
//
// Case is pure and deterministic: the same case, observation and Options
// give the same result (schema failures are sorted, since the validator's
// own order follows map iteration).
//
// # Attribution
//
// Case also grades the answer sentence by sentence (Attribute, the user's
// contract is docs/metrics.md#attribution): the answer is split by package
// sentence, each sentence cites the documents of its [n] markers (ranks of
// the ranking) and the citations whose start/end offsets overlap it
// (CitedSentences), and is supported when a cited passage (the hit's
// text, else the citation's quote) contains a nugget the sentence states
// (Options.Nuggets) or shares LexicalSupportMin of its content terms
// (package engine's analysis for the case's tags.lang), unsupported when
// it cites passages and none does, uncited otherwise. When some sentence
// cites something, Attribution holds the labels and Metrics gains
// support_rate, citation_precision and citation_recall (judged case or
// not); otherwise neither is set: undefined, not 0.
//
// # Trajectory matching
//
// Trajectory compares the calls of obs.Tools (errored calls included, in
// order) with an expect.tools trajectory, as LangChain's agentevals define
// the modes: strict (the expected calls, one for one, in order), unordered
// (the same calls in any order), subset (every call made is an expected
// one) and superset (every expected call is made). Two calls match when
// their names are equal, every argument of ArgsRegex is present and its
// value (a string, else its JSON text) matches the pattern, and the other
// arguments compare by the call's ArgsMatch, else the trajectory's Args:
// exact (equal argument objects), ignore, subset (each argument made is
// expected with its value) or superset (each expected argument is made
// with its value). JSON values compare as decoded by encoding/json
// (numbers as float64); arguments written as a JSON string holding an
// object are read as that object, and arguments that are no object match
// only under ignore. The unordered modes use a largest one-to-one matching
// (augmenting paths), so a call that fits two expected calls is not spent
// on the wrong one. The detail names the first divergence: for strict,
// the first position where the calls differ; otherwise the first expected
// call left unmatched (with the first unmatched call of the same tool,
// when there is one) or the first call made left unmatched. Values in
// details are cut to 40 characters.
//
// # Conversations
//
// Conversation grades a conversation case (assay.Case.Turns) from one
// observation per turn: each turn is graded by Case on c.TurnCase (its
// query, judgments and expectations, with the history before it) into
// the result's Turns (Turn set, Tags and Hash left to the conversation).
// The conversation's own expectations are checked by Case against
// ConversationObservation: the last turn's observation with every turn's
// tool calls, the latency summed (nil when a turn has none), attempts the
// most of a turn's, cached only when every turn was. With max_turns N,
// they are checked after each turn k against ConversationObservation of
// turns 1..k; the checks kept are those of the first k where all pass
// (else the last turn's), followed by a max_turns check that passes when
// that k is at most N. Pass is nil when neither a turn nor the
// conversation is graded; otherwise true iff every graded turn passed, no
// turn errored and the conversation's own checks passed. FailedTurn is the
// first turn that failed or errored; Error the first turn error, its
// message prefixed "turn N: ". Metrics, Unjudged and Upper are, per name,
// the means over the turns that carry the name (Upper: a turn's Upper
// value, else its metric, over the turns that recorded their judged
// coverage, kept where it differs from the mean); Stages are summed. The
// hash covers every turn's hash. History builds the history the next turn
// is sent with: the earlier messages, the turn's user message and, when
// it answered without error, its answer.
//
// # Options
//
// NewOptions resolves the suite once per run: metric names through
// metric.Parse (default assay.DefaultMetrics; duplicates after
// canonicalisation kept once), the gain (linear unless exponential), every
// answer_matches and nugget regex pattern (a bad one is an error), the
// suite's nugget_no_vital, every json_schema file
// (Expect.JSONSchemaPath, else the written path relative to the suite's
// directory; relative $refs resolve against the schema file). Errors name
// the case: `kb.yaml:12: case q7: json_schema s.json: not a valid schema: ...`.
//
// The JSON Schema validator is not linked by this package: package
// grade/jsonschema registers it when imported (package harness/opener
// imports it, and so does the assay command), so that a program whose
// suites state no json_schema links no JSON Schema library. With none
// registered, a json_schema file is an error of NewOptions naming that
// package.
package grade
