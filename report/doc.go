// Package report renders assay records to an io.Writer: the terminal text
// summary and the assay.run/v1 JSON document of a run, the comparison of two
// runs, and the CI formats (markdown, JUnit XML, shields.io badge).
//
// The JSON documents are described in docs/json.md, the escaping of
// untrusted text in docs/operations.md.
//
// Renderers never decide exit codes and never read the environment: what
// they show comes in through their arguments and options. They write plain
// text, without color or other terminal escapes.
//
// Untrusted strings (case ids, answers, check facts, a target's stderr, a
// server's messages, tags, warnings) never reach the output raw: every
// string argument a renderer prints goes through Escape, which shows C0 and
// C1 controls, DEL, bidirectional controls and invalid UTF-8 in Go's %q
// notation (ESC [ 3 1 m is shown as \x1b[31m). Backslashes are not doubled,
// so ordinary text (regexps, Windows paths) prints as it is; the price is
// that a literal "\x1b" in the input looks like an escaped ESC. JUnit keeps
// the newlines of its bodies (EscapeLines); markdown turns them into spaces.
// cmd/assay prints its error lines through EscapeLines too.
//
// Also for tools and CI: GateJSON (assay.gate/v1), LintJSON (assay.lint/v1),
// LintGitHub (GitHub Actions ::error/::warning/::notice annotations, with
// the runner's own escaping of %, CR, LF and, in properties, : and ,), and
// ProgressLines, the progress of a run off a terminal. ProgressLines is
// silent for the first 10 s (a run that ends sooner needs no keep-alive),
// then writes a line each time the run crosses a tenth of its trials and at
// most 30 s after the last line; its clock is the caller's, so tests need no
// sleeps. CaseDetail renders one case whole (runs show --case): the ranking
// with judgment grades ("-" unjudged), citations surfaced by the grader's
// rule (id, path or title of a retrieved document) or not.
package report
