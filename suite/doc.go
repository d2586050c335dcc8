// Package suite loads and validates golden sets: the native format
// and the seed formats (docs/suite.md), and lints them.
//
// It is the first step of the pipeline: suite.Load turns a file into a fully
// resolved assay.Suite (cases, corpus, defaults, gates) that the runner,
// the targets and the graders read without looking at files again.
//
// # Loading
//
// LoadWith first asks the foreign-format detector (formats.go) whether the
// path is a GNO, kebab, Knowlex, BEIR or TREC golden set; anything else is
// parsed as the native format, YAML or JSON (JSON is read by the same YAML
// parser, so positions are right for both), or JSONL (below). A YAML or
// JSON suite is parsed as one document by goccy/go-yaml and decoded from
// its syntax tree (native.go); there is no other reader of the format. The
// native format is strict:
//
//   - `assay: 1` is required; a file without it is not a native suite.
//   - Unknown fields are errors naming the nearest known field
//     (`unknown field "answer_include" (did you mean "answer_includes"?)`),
//     or where the field belongs when it is written at the wrong level
//     (an expectation on the case, a case field under `expect:`).
//   - Wrong types are errors (`k: want an integer, got a string "ten"`).
//     Leniencies, on purpose: a single string where a list of strings is
//     expected is a list of one; numbers are accepted where a string is
//     (document ids such as 4983); a null value is the same as leaving the
//     field out; anchors, aliases and merge keys (<<) work.
//   - Every error is one line, "file:line:col: message", lowercase, with no
//     trailing period. A fault inside a JSONL corpus is positioned in that
//     file ("corpus.jsonl:12: missing \"_id\" or \"id\"").
//
// # JSONL
//
// Large golden sets are written as JSONL, one JSON object a line, in one
// of two ways:
//
//   - a JSONL suite: a file ending in .jsonl whose first line is the
//     header object, the suite's fields but "cases" ({"assay": 1, "name":
//     ..., "corpus": ...}), and whose every other line is one case;
//   - a cases file: a YAML or JSON suite whose `cases:` is the name of a
//     .jsonl file (relative to the suite file), every line of which is a
//     case. Paths in the cases (json_schema) still resolve against the
//     suite file's directory.
//
// Blank lines are skipped, CRLF line ends and a byte order mark on the
// first line are accepted, and a line is at most 64 MiB
// (boundedfile.MaxLine). Each line is read on its own with encoding/json
// (never the YAML parser) into the same positioned tree a YAML suite is
// parsed into (internal/yamltree), and decoded by the same decoder, so
// every message about a field is the native one and every error is
// "file:line:col: msg" in the file the line is in (the cases file for its
// cases); a case's Source is that file and line. A plain case line (valid
// UTF-8 without a backslash escape, only the usual fields with their usual
// JSON types, and nothing the decoder would report or warn about) is read
// with gjson straight into the case instead, to the same case and field
// lines; any other line goes through the tree, so the messages are the
// same either way (direct.go). A line must be one JSON
// object: YAML is refused (no unquoted keys, no anchors), a fault of JSON
// syntax is encoding/json's message at the token it stopped on, and an
// object or list left open at the end of the line is reported at its
// opening bracket. A JSON number is a number even where YAML would read
// the same text as a string (1e3). Each line is pre-scanned for depth and
// length as a case of a YAML suite is (below). A .jsonl suite file
// whose first line is not an object is not a JSONL suite (it is then read
// as any other file); one whose first line is an object without "assay"
// is refused as a native suite without its version.
//
// When to use it: a YAML or JSON suite is parsed whole, and goccy/go-yaml's
// tree holds memory for every case while the file is parsed, so a YAML
// suite's load time and memory grow with its cases; a JSONL suite is
// streamed, and a run or a lint of it takes about the same memory at
// 100,000 cases as at 1,000 (docs/benchmarks.md has the figures). So: up
// to a few thousand cases either is fine and YAML is easier to read and
// review; above about 5,000 cases (half a megabyte of YAML), write JSONL
// (`assay import ... -o suite.jsonl` writes it).
//
// # Conversations
//
// A case's turns: list makes it a conversation (assay.Case.Turns): each
// turn is a mapping of query, relevant, judgments and expect, read by the
// rules of a case's fields (relevant merged into the judgments with grade
// 1; with recall_over: relevant also the turn's Relevant), or a bare
// string, its query with nothing to expect. A conversation has no query,
// relevant or judgments of its own (a problem when it does), every turn
// needs a query, and max_turns, an expectation of the conversation, is a
// problem in a turn and on a case without turns. A conversation has at
// most 1000 turns. The same decoder reads JSONL lines, so a JSONL case
// writes turns as a JSON list.
//
// expect.tools (assay.ToolTrajectory, in a case or a turn) is a mapping of
// mode, args and calls, or a list of calls (mode strict, args exact); a
// call is a mapping of name, args (any values, kept as JSON values:
// numbers float64), args_match and args_regex, or a bare tool name, whose
// arguments are not compared (args_match ignore). Unknown modes, a call
// without a name, a pattern that does not compile and superset of no call
// are problems at their position.
//
// # Streaming
//
// Stream loads a suite like LoadWith, with the same checks and the same
// first error, but for a JSONL suite or a cases file it keeps no case: one
// pass over the lines validates every case and sums the fingerprint, and
// all it keeps per case is a 64-bit hash of the id, to find duplicates
// while it reads (on a hash hit, or on any fault, the suite is loaded whole
// by LoadWith, so errors are LoadWith's), and a 64-bit hash of each case
// line and its number, kept for the passes that follow (8 bytes a case).
// Streamed.Cases then reads the lines again for each pass, decoding each
// once, and fails with "file: changed while the run was reading it" when
// the file's size or time at the start or the end of the pass, or any of
// its case lines, are not those Stream validated (each line is checked
// before it is decoded, so a case Stream did not validate never reaches
// the caller). YAML and JSON suites with their cases
// inline, foreign formats and suites read from a pipe are loaded whole, and
// Cases ranges over Suite.Cases. CheckManifestStreamed checks the manifest
// from what Stream keeps: the suite's distinct json_schema files. Lint
// streams the same suites: each case is checked during Stream's pass.
//
// A loaded suite is fully resolved: Name (the file name without extension
// when unset), Path, Dir, Format "native", Defaults.K (assay.DefaultK),
// Metrics (assay.DefaultMetrics; names are validated with metric.Parse and
// stored in canonical spelling, so `nDCG@10` becomes `ndcg@10`), Gain
// (linear), RecallOver ("" for judged; with `recall_over: relevant` each
// case's `relevant:` list is also kept as Case.Relevant, the set the binary
// metrics count as relevant), RefusalMarkers (nil unless refusal_markers is set: a list, or
// a built-in set by name, `refusal_markers: de`), Gates with their
// Source "file:line" (a list, or one string with one expression per line),
// each case's Judgments (the `relevant:` list merged in with grade 1; an
// explicit grade in `judgments:` wins), each case's Source "file:line",
// Expect.JSONSchemaPath resolved against the suite's directory, and the
// Corpus loaded (package corpus) with CorpusSource set to the resolved path,
// or "inline" for a list of {id, title, text} documents in the suite.
// A case's K stays 0 when the case does not set it: it means the suite
// default, so that a command-line -k can still override it.
//
// # Files the loader reads
//
// Every file (the suite, a file a format reads beside it, the corpus and
// its documents, json_schema files, the manifest) is read through
// internal/boundedfile: it must be a regular file within its size limit
// (docs/limits.md), so a device, a FIFO or a runaway file is an error at
// once. The suite itself may also be a pipe named by a file descriptor:
// `assay lint /dev/stdin`, `assay lint <(cat suite.yaml)`. It is read once,
// whole (up to 256 MiB), and parsed from memory, never streamed; the
// relative paths in it (corpus:, json_schema:) resolve against the working
// directory, since /dev/fd is no place for a corpus.
//
// # What refuses a run and what lint reports
//
// Three levels, decided once for `assay run` and `assay lint`:
//
//   - Load errors: the file cannot be read or parsed at all (syntax, unknown
//     field, wrong type, missing `assay: 1`, unreadable corpus). Load returns
//     them; Lint returns them as its error. `assay run` and `assay lint`
//     both print the one positioned line and exit 2.
//   - Structural errors: duplicate case ids, a missing id or query, an
//     invalid regexp (Go RE2), an unknown metric, a json_schema file that is
//     missing, not well-nested JSON or does not compile (compiled by the
//     validator package grade/jsonschema registers when imported; with
//     none registered, it is only read, and package grade refuses it),
//     k < 1, an unknown gain, an inline corpus
//     document without an id, an expectation list that is empty
//     (`answer_includes_any: []`: it would check nothing, and the case be
//     graded on its other expectations or not at all, without a word) or
//     holds an empty string; a null list is no expectation. Load refuses the suite with the first of them, so
//     `assay run` exits 2 with one positioned line; Lint reports all of them
//     as error findings, so `assay lint` exits 1.
//   - Lint findings: Load accepts the suite, Lint reports. Errors: a case
//     with neither expectations nor judgments; an empty query; judgments
//     (grade > 0), `retrieves`, `cites` and `cited` naming a document the corpus
//     lacks (matched by id, path or title; `cites_any` and `cited_any` are errors only when
//     none of its documents exist); `calls_tool`/`never_calls` naming a tool
//     missing from the suite's `tools:` list; a gate expression that does
//     not parse (checked by LoadOptions.LintGates, which package
//     suite/lint sets); expectations that contradict each other (a
//     tool in both calls_tool and never_calls, no_citations with cites or
//     cites_any, an answer_includes string containing an answer_excludes
//     one). Warnings: members of a case
//     tag `group` (kebab groups) whose judged relevant documents differ;
//     leakage (an expected answer string, or a judged document id as a whole
//     word, inside the case's own query; also a judged relevant document's
//     file stem of two words or more — "api-reference" — or its title of
//     three words or more — "Helm Deployment Guide" — since a short title
//     such as "Password Reset" is the words a fair query uses); a judgment keyed by a document's path or title (resolved to its
//     id, below); a judgment key that is no id and names two or more
//     documents is an error; a judged non-relevant document the
//     corpus lacks; a document listed in `relevant` but judged 0 in
//     `judgments` (the judgment wins); more `retrieves` documents than k;
//     an ambiguous reference in `retrieves`, `cites` or `cites_any`: a
//     title or path (or an id that is also another document's title) that
//     names two or more documents of the corpus, so the expectation passes
//     for any of them (the finding names two and says to use the id); a
//     suite gate scoped to a tag no case carries (a run fails it, exit 2),
//     with the nearest tag suggested, unless the scope is [variant=...]
//     (a key with more than 1000 values is not checked; LintGates again);
//     files that changed since the manifest was written.
//     A note says when document references are not checked because the
//     suite has no corpus.
//
// `assay lint` prints one line per finding, "file:line: error: message" or
// "file:line: warning: message", sorted by line, and exits 1 on any error,
// 0 with warnings and notes only.
//
// # Depth, length and size
//
// Before any YAML or JSON text reaches a parser, package internal/nesting
// scans it once: collections nested more than 1000 levels deep (flow
// brackets and braces, and block nodes by indentation and "- " entries),
// or a string, scalar or comment longer than 1 MiB, are a load error at
// the offending position ("suite.yaml:5:1008: nested more than 1000 levels
// deep (the limit)", "suite.yaml:4:12: a scalar longer than 1 MiB (the
// limit)"), so goccy/go-yaml, whose cost on such text grows far faster
// than the text (60 KB of "[" took 5 GB; its scanner allocates about 45
// bytes per byte of a scalar), never sees it. A query, an expected string
// or an inline corpus text is far shorter; a longer document belongs in a
// corpus directory or JSONL file. Brackets inside
// quoted strings, comments, plain scalars and literal blocks do not count.
// Each line of a JSONL file is scanned the same way, with the two levels
// above a case (the suite mapping, the cases list) counted, so a case is
// held to the same depth in either encoding.
//
// Nothing costs more than linear time in the size of a mapping: the column
// fix-up converts each line once, and a block mapping of 512 or more `key: scalar` lines
// (a case's judgments, tags) reaches goccy/go-yaml as the equivalent flow
// mapping (package internal/yamltokens), because its block mapping parse
// recurses once per key and copies all the keys before it at each level.
// A case with 40,000 judgments loads in a fraction of a second, in a YAML
// suite or on a JSONL line (docs/benchmarks.md has the figures).
//
// # Fingerprint and manifest
//
// Fingerprint hashes the canonical suite: defaults, metrics, gain, refusal
// markers, tools, analyzer, gate expressions, the number of cases and the
// sum modulo 2^256 of the SHA-256 of each case's canonical JSON (so that it
// is one pass over the cases, in any order, and Stream computes it without
// holding them), the bytes of json_schema files, and corpus.Fingerprint of
// the documents. It leaves out what does not change a measurement: the
// name, description, paths, positions, comments and case order.
//
// WriteManifest (`assay lint --write-manifest`) records in
// assay.manifest.json, beside the suite, the sha256 of the suite file (every
// file of a directory suite), of each corpus file and of each json_schema
// file, with the suite's fingerprint. One manifest serves all the suites of
// a directory, keyed by file name. CheckManifest returns one warning per
// file that changed, disappeared or appeared since, worded as the remedy;
// `assay lint` shows them as warnings and `assay run` prints them.
//
// # Judgments resolve like other references
//
// With a corpus, a judgment or `relevant:` entry that is not a document id
// but names exactly one document by its path or title is rewritten to that
// id when the suite loads (Load and Stream alike), and a warning says so
// ("judgments: "Kiln firing" is the path or title of document "kiln.md":
// resolved to its id"): metrics match rankings by id, so the key as written
// would score 0 on every metric while `retrieves`, which matches paths and
// titles, passed. When the id is judged as well, that judgment wins. A key
// naming no document or several is left for lint (an error). A TREC suite's
// corpus directory of DOCNO.txt files has DOCNO (the base name without
// ".txt") as each document's id, which is what its qrels name.
//
// The resolver is corpus.Names, the one used for rankings too (package
// runner). A key written as a content anchor, "quote:TEXT" or "sha256:HEX"
// (a passage hash, corpus.PassageHash), gives its grade to every document
// that contains it, so that judgments survive a re-chunk; a document
// judged by id keeps its own grade, the higher of two anchors wins, and an
// anchor no document contains is left for lint, which lists it.
//
// # Judgments people made: judgments_file
//
// `judgments_file: FILE` names a JSONL file of labels ({case, doc, grade,
// labeller, time} per line, ReadLabels) that Load merges into the cases'
// judgments before they are resolved; `assay judgments import` writes it,
// so the suite file itself is never rewritten (its comments and layout
// stay). A file not there yet holds no labels (a warning). A label of an
// unknown case, a document labelled twice, or a grade contradicting the
// case's own judgments is a problem at the label's line. Such a suite is
// loaded whole, not streamed.
package suite
