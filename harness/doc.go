// Package harness is the assay pipeline as a library: what `assay run`,
// `assay gate`, `assay compare`, package assaytest and (later) the
// browser UI all call. It prints nothing, reads the environment only
// through Plan.Getenv, and returns typed errors (Error, of a Kind: Usage,
// Input, Incomplete, GateFailed, Regressed) that a caller maps to what it
// does; the CLI maps them to its exit codes (2, 2, 2, 1, 1) in its one
// switch. Progress is reported as data (Plan.OnEvent), warnings are in
// the runs (assay.Run.Warnings).
//
// # The flow of Run
//
//  1. Load the suite (package suite; streamed from its file where the
//     format allows), its warnings and its manifest check.
//  2. Select the cases (Plan.Cases, Plan.Tags, Plan.K), checking that
//     every named case exists and that something is left.
//  3. Check the plan: numbers in range, outputs distinct files (at most one
//     "-"), output directories creatable, no output naming an input (the
//     suite, the corpus, the target file, the replay trace).
//  4. Build the grading options (metrics, gain, json_schema files) and the
//     gates: the suite's and Plan.Gates, each parsed; without a baseline,
//     a suite's delta/ratio/no_new_failures gate is left out with a
//     warning, and one given in the plan is a Usage error. When every gate
//     is left out so, the run ends GateFailed (no gate was checked) unless
//     Plan.AllowNoBaseline; Result.NoBaseline says so.
//  5. Resolve the target: Plan.System, else the spec Plan.Target, else
//     builtin when the suite has a corpus. A target file with variants:
//     is a matrix: one run per variant, of one group, its orderings and
//     variant-scoped gates checked up front.
//  6. Open the store (Plan.StoreDir; none when empty) and load the
//     baseline (Plan.Baseline, any store.ResolveRef REF).
//     The judge (Plan.Judge: its Config, else a --judge File, else the
//     suite's judge:; none with Off) is checked here, its api_key expanded
//     through Getenv and registered with Plan.Secrets, and its cache
//     opened under a store directory (<store>/cache, kind judge).
//  7. For each run (each variant): open the target, register its secrets
//     with Plan.Secrets, begin the run record in the store, run every case
//     (package runner: concurrency, trials, timeouts, MaxErrors), grading
//     each observation before it is redacted; each result goes to the
//     run's directory (the store's; with no store a scratch one under
//     $TMPDIR, store.BeginScratch, removed by Result.Close), the --record
//     trace, the TREC outputs and the aggregator. With a judge, each run
//     has its own (its own budget): the runner calls it after the
//     deterministic checks, the judge metrics are added to the run's
//     metric list, and its totals go to Summary.Judge with warnings for
//     results not judged, judge errors and unstable results. The reports read the
//     results back from the run directory one at a time
//     (store.ReadResults through Run.CaseStream).
//     The cases stay in memory only when something needs them all: a
//     baseline, trials > 1, or a gate or ordering whose parsed expression
//     needs the cases (gate.Expr.NeedsCases).
//  8. Summarize, evaluate the gates (gate.Evaluate), redact the run, and
//     finish its record (status complete, or incomplete with the reason
//     as a warning). A matrix compares each variant with the baseline
//     run of the same variant of the baseline's matrix (baselineFor).
//  9. Compare with the baseline (compare.Runs) and write the outputs
//     (JSON, JUnit, markdown and $GITHUB_STEP_SUMMARY, badges, report
//     directories), redacted.
//  10. Return the Result and the outcome: nil, or an Error of kind
//     Incomplete, Input (gates that measure nothing), GateFailed or
//     Regressed; a run that shares no case with its baseline is a Usage
//     error.
//
// The caller renders the Result (Result.WriteText, or report.Text,
// report.MatrixText, report.CompareText) and closes it. Plan.Strict makes
// any graded case that did not pass a GateFailed error, gates or not. A
// run (or merged run, or a run given to CheckGate) in which every case
// errored is a GateFailed error whatever its gates: it observed nothing.
// Result.NoGates is the line of a run whose exit status checks nothing (no
// gate, no baseline, not Strict), with a gate it would have held: its pass
// rate rounded down to two decimals, else its first metric's mean.
//
// CaseViews and RefCaseViews return one case of a stored run whole, for
// `runs show --case`: observations from cases.jsonl, the query and
// judgments from the suite file the run recorded, only when its fingerprint
// is still the run's (else a note says why they are missing). Build is the
// binary's own build information (`assay version`).
//
// # The commands' bodies
//
// Each command of the CLI is its flags, one call here, and an exit code;
// the call takes a plan and writers, and returns a harness.Error: RunGate
// (`assay gate`, over CheckGate or CheckMatrix), Compare (`assay
// compare`; WriteCase for --case), ListRuns and WriteRun (`assay runs`,
// `runs show`), PruneStore (`runs prune`), Import, Lint, ServeBuiltin
// (`assay serve`), MigrateStore and CopyStores with their texts
// (Migrated.WriteText, WriteCopied). Progress shows a run's events (a bar
// on a terminal the caller names, plain lines elsewhere). StoreRoot is
// the one rule for the store of a --store flag: the flag, else
// $ASSAY_STORE (through the getenv given), else DefaultStoreDir. The text
// they write is the CLI's, byte for byte; warnings are written as
// report.Warnings lines to the writer given for them.
//
// CheckGate and CheckMatrix are `assay gate`: a stored run checked against
// gates, a floors file (locked from read to write while ratcheting) and
// orderings. CompareRefs and Export serve `assay compare` and `assay runs
// export`. OpenRefStore and LoadRef resolve run references through the
// one resolver (store.ResolveRef).
//
// Plan.Cache answers http and command targets from the response cache
// under the store (package cache, <store>/cache/target): the target is
// wrapped in target.Cached, whose key is the target's fingerprint, the
// case fields the request is built from, the variant and the trial; a
// target of another kind runs as usual with a warning. CacheStats and
// CacheClear serve `assay cache stats|clear` (docs/cache.md).
//
// Watch serves `assay run --watch`: it runs a Plan, polls the run's inputs
// (suite, corpus, json_schema files, target file, replay trace) every
// 500 ms by size and modification time — no file-notification
// dependency — and runs again on a change, writing a short comparison
// with the previous run (report.WatchChanges). Complete makes the shell
// completion lists (run refs, target kinds and files, gate names, import
// formats); it never fails, leaving out what it cannot read.
//
// # Shards, merge, trends and retention (docs/shards.md)
//
// Plan.Shard "I/N" runs slice I (0-based) of the selected cases (package
// shard: a stable SHA-256 hash of the case id) and stores the run as a
// shard of Plan.Group (default shard.DefaultGroup from the suite
// fingerprint, git commit and CI run id, read through Getenv). Each result
// records its position among the cases selected. A shard run checks no
// gate: its record keeps them (Run.Shard.Gates), and a baseline is refused
// there. A variant matrix is not sharded (shard each variant's target
// file). A shard is never latest (store.Filter.NoShards).
//
// Merge (`assay merge`) picks, per slice of a group, the newest complete
// run (else the newest incomplete), refuses shards of different suites,
// options (concurrency aside), gain, tie rule, target, gates or count,
// merges their case streams in (position, trial) order into one stored
// run aggregated by runner.Aggregator, checks the recorded gates (those
// needing a baseline only with MergePlan.Baseline) and returns an
// Incomplete error naming every missing or incomplete slice. Choices made
// where the issue is silent: the merged run starts with the earliest shard
// and finishes with the latest; its run-level measures are the shards'
// when all agree, else none; a slice run again replaces the earlier run.
//
// SuiteTrend (`assay runs trend`) joins Store.Trend over the metrics asked
// for (default pass_rate and the headline of the suite's newest run);
// only pass_rate and IR metrics are indexed per run. Prune (`assay runs
// prune`) deletes, per suite, the runs beyond the newest Keep and/or older
// than OlderThan (both given: a run goes when neither keeps it), never the
// latest complete run of a suite nor a run a floors file's log names; every
// run counts toward Keep, shards and incomplete runs included, and a run
// being written is not told apart from a stopped one (keep N generous, or
// prune by age).
package harness
