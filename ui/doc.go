// Package ui is assay's browser UI: a read-only web server over a run
// store (New, Serve; `assay ui`) and the same pages written as static
// files (WriteStatic; `assay report --html`, `assay run
// --html`). Pages are html/template templates embedded with go:embed, with
// one embedded stylesheet and no script at all: the filters are plain GET
// forms, the trend charts and the span waterfall inline SVG drawn on the
// server. So nothing is vendored, there is no JS build step, and no page
// loads anything from another origin (the Content-Security-Policy of each
// response says default-src 'none').
//
// # Pages and URLs
//
// Every page has a stable URL that can be pasted into a pull request:
//
//	/                          runs of every suite, newest first, with trends (?suite=NAME: one suite)
//	/run/REF                   a run: summary, metrics, rates, latency (and by stage), the judge
//	                           (with its agreement with people's labels), segments, gates,
//	                           warnings, the case table (?status=failing|errored|ungraded|
//	                           flaky|passing, ?tag=KEY=VALUE, ?q=TEXT, ?page=N)
//	/run/REF/case/ID           one case whole, its trials side by side
//	/compare?base=REF&cand=REF the comparison (without them: the latest two complete runs,
//	                           of ?suite=NAME or of the latest run's suite)
//	/compare/case?base=&cand=&id=  one case in both runs: answer diff, rankings side by side
//	/history?suite=NAME        a case × run grid over the last ?n= runs (default 10, at most
//	                           50): only the cases whose outcome changed or was flaky, unless
//	                           ?all=1; ?case=ID for one case
//
// REF names a run of the store: a run id or a unique prefix of one,
// latest or latest~N, resolved as every command resolves them
// (store.ResolveEntry). Unlike the CLI's, a REF of the UI is never a path
// (uiRef): anything but hex digits and dashes is a 404. A request resolves
// each of its REFs once, however many ways its page reads the run, and a
// run id or prefix is resolved without reading every run's header when the
// store can list the runs with that prefix (store.PrefixLister).
//
// # Where the figures come from
//
// Every read of the store is in source.go, through Store only (the
// read-only interface this package declares: List, Resolve, Load and
// Cases, which every store.Store has), so the UI works the same on every
// backend (a directory, Postgres), and a REF is resolved once per request:
// runs are listed with Store.List, loaded with harness.LoadRef (the run
// `assay runs show` prints; a stopped run gets harness.Summarized's
// summary), compared with harness.CompareRefs (what `assay compare`
// prints), and a case is read whole with harness.CaseDetail (its lines
// alone, through the run's case index when it has one, and the suite's
// case, read once, for the expected and forbidden strings the answer
// highlights), a run's cases with harness.RefCases. The history of one
// case (?case=ID) reads that case's trials of each run the same way
// (store.ReadCase, or the store's store.CaseReader), not each run whole
// as the grid does. The runs page
// reads each run's header (summary, gates, git) with store.HeadLoader when
// the store has it (Postgres: one row), from run.json when the store keeps
// files, else with Store.Load. A variant matrix's orderings are checked
// there over its runs' headers alone (the orderings each run records,
// assay.Run.Orderings): its result holds no case, so an ordering on a
// metric compared case by case whose means are out of order is shown as
// not decided, not as broken (gate.Ordering.Final), since the paired test
// over the cases, which assay run reports, may find the reversal is noise.
// The
// pages format numbers as the text reports do (metrics to four decimals,
// rates as percentages to one, latency by report's rule), so a figure on
// a page and in the terminal read the same.
//
// # Large runs
//
// A loaded run (its case rows, without observations) is cached by run id,
// status and finished_at, never by a path, at most four runs, so paging
// and filtering read it once; each filter is a scan of the rows in memory.
// A complete run never changes; a run that finishes has another key and is
// read again; an incomplete run (still written, or stopped) is served from
// the cache for two seconds at most, so its pages follow its cases.
//
// Stores that keep files (store.RunFiler) have one fast path: the default
// view of a run not loaded yet (no filter, first page) is made from the
// run's header (store.PeekRun, which holds the summary), its warnings (the
// last member of run.json, read from the file's last 64 KiB) and its first
// rows (store.ReadRunCases) while the whole run loads in the background: a
// 100,000-case run's first page does not wait for its run.json to be
// decoded. A filtered or sorted page of such a run, asked for before its
// load has finished, does not wait either (filtered.go): one pass over the
// run.json's case lines (store.ReadRunCaseLines) reads of each line only
// the fields of the filter and of the sort key (gjson), and decodes whole
// only the page's lines, so the rows are the loaded run's; the background
// load starts once that page is made. A text search, the flaky filter and
// a run of several trials a case wait for the load. A run in a store
// without files is loaded whole. The compare
// page lists at most 500 changed cases (flips first); the history grid 200
// cases a page, from each run's case outcomes, kept per run (at most 64
// runs' worth).
//
// # Safety
//
// Every string from a suite, a corpus or a target goes through
// html/template's contextual escaping (text, attribute, URL), so markup,
// script, event handlers and javascript: URLs in answers, titles, ids and
// tags render as text; long unbroken strings wrap (overflow-wrap:
// anywhere). Case ids in URLs are path-escaped, and in the static report
// they become file names of their safe characters plus a hash
// (fileName), so no id can name a path outside the report. The target
// description shown is the run's, already redacted. The server answers
// GET and HEAD only (405 with Allow: GET, HEAD otherwise) and opens the
// store read-only (store.OpenOptions.ReadOnly: nothing created, migrated
// or repaired). Serve answers only requests whose Host names the address
// bound (hostGuard; 421 otherwise), against DNS rebinding. An error page
// shows the UI's own messages only (httpError); any other error is logged
// to Options.ErrorLog and the page says only that it failed, so no page
// tells whether a file exists. /assets/ serves its files by name and
// lists nothing. Loopback reports whether a listen address stays on the
// machine; the CLI warns before binding any other.
//
// # The static report
//
// WriteStatic writes DIR/index.html (the run page with every case in one
// table and no filters), DIR/cases/NAME.html per case, DIR/assets/style.css
// and, with a baseline, DIR/compare.html and DIR/diff/NAME.html for each
// changed case whose status changed plus the 100 whose headline metric
// moved most (the compare page lists the rest without a link). Links are
// relative; pages carry a Content-Security-Policy meta tag, so the
// directory opens from disk with no server and no network. It reads each
// run's case lines once (harness.RefCases: cases.jsonl, or the store's
// rows) and streams them (source.streamCases): a case's page is written
// once its trials are read, and with a base the base's trials of the
// changed cases wait in a temporary file in DIR, so neither run is held
// in memory with its observations. To keep a 1,000-case report compared with a base under 5 MB, the
// rows a page repeats (ranking, case table, changed cases) leave out the
// end tags HTML makes optional, and ids are set in monospace by the
// stylesheet rather than by a <code> each; a case diff whose two rankings
// are the same shows them in one column. Above 2,000 cases only the cases
// that did not pass and the changed ones get a page, and their pages are
// grouped by the first byte of the id's SHA-256 (cases/g-XX.html#NAME,
// diff/g-XX.html#NAME): each page's content is rendered without the
// layout into a temporary file as its case is read, and each group's
// file is written from it at the end, so memory holds one group, never
// every page, and the disk holds at most 256 files a directory instead of
// one block-rounded file per page.
package ui
