// Package harness is the assay pipeline as a library: what `assay run`,
// `assay merge`, package assaytest and the browser UI call. It prints
// nothing and writes nothing but the run store and its caches (with no
// store, a scratch directory that Result.Close removes): it reads the environment
// only through Plan.Getenv, reports progress as data (Plan.OnEvent), gives
// each result to the caller as it is made (Plan.OnRun), keeps warnings in
// the runs (assay.Run.Warnings), and returns typed errors (Error, of a
// Kind: Usage, Input, Incomplete, GateFailed, Regressed) that a caller
// maps to what it does. A Usage error about a field of a plan is a
// PlanError naming the field; its text names fields as {Field}, written
// as Go spells them, or as a caller presents them (PlanError.Text,
// Plan.Names).
//
// # The flow of Run
//
//  1. Load the suite (package suite; streamed from its file where the
//     format allows), its warnings and its manifest check.
//  2. Select the cases (Plan.Cases, Plan.Tags, Plan.K), checking that
//     every named case exists and that something is left, and the shard
//     (Plan.Shard).
//  3. Check the plan's numbers; zero values take the defaults (one
//     trial, runner.DefaultConcurrency, runner.DefaultTimeout).
//  4. Build the grading options (metrics, gain, json_schema files) and the
//     gates: the suite's and Plan.Gates, each parsed; without a baseline,
//     a suite's delta/ratio/no_new_failures gate is left out with a
//     warning, and one given in the plan is a Usage error. When every gate
//     is left out so, the run ends GateFailed (no gate was checked) unless
//     Plan.AllowNoBaseline; Result.NoBaseline says so.
//  5. Resolve the target: Plan.System, else the spec Plan.Target, else
//     builtin when the suite has a corpus; a spec is opened through
//     Plan.Targets, else the Targets registered (importing package
//     harness/opener registers its own; a plan with a spec and none is a
//     Usage error). A target file with variants:
//     is a matrix: one run per variant, of one group, its orderings and
//     variant-scoped gates checked up front.
//  6. Open the store (Plan.StoreDir with Plan.StoreOptions; none when
//     empty) and load the baseline (Plan.Baseline, any store.ResolveRef
//     REF). The judge (Plan.Judge: its Config, else its File, else the
//     suite's judge:; none with Off), made by Plan.Judge.New, else by the
//     judge maker registered (package harness/opener's; a judge defined
//     and none is a Usage error), is
//     checked here, its api_key expanded
//     through Getenv and registered with Plan.Secrets, and its cache
//     opened under a store directory (<store>/cache, kind judge).
//  7. For each run (each variant), in steps: open the target and register
//     its secrets (openTarget); make the run's record (newRecord); ask the
//     caller for the run's Sink (Plan.OnRun) and begin the record in the
//     store, or in a scratch directory under Plan.TempDir with no store
//     (begin); run every case through package runner, each result graded
//     before it is redacted and given to the sink, the run's directory
//     and the aggregator (stream); then summarize, evaluate the gates
//     (gate.Evaluate), redact and finish the record (finish), and close
//     the sink. With a judge, each run has its own (its own budget), its
//     metrics added to the run's and its totals in Summary.Judge. The
//     cases stay in memory only when something needs them all: a
//     baseline, trials > 1, or a gate or ordering whose parsed expression
//     needs the cases (gate.Expr.NeedsCases); otherwise the run reads them
//     back from its directory (Run.CaseStream). A matrix compares each
//     variant with the baseline run of the same variant of the baseline's
//     matrix.
//  8. Compare with the baseline (compare.Runs) and return the Result and
//     the outcome: nil, or an Error of kind Incomplete, Input (gates that
//     measure nothing), GateFailed or Regressed; a run that shares no case
//     with its baseline is a Usage error.
//
// The harness reaches the kinds of target and the model judge only
// through the interfaces of package seam, which package opener implements
// and registers in its init, as a database/sql driver does: a program
// that names a target by spec imports opener (a blank import is enough;
// the assay command does), and one that runs a Go value (package
// assaytest) does not, so it links no HTTP client, no templates and no
// search engine's target.
//
// The caller renders the Result and closes it. Plan.Strict makes any
// graded case that did not pass a GateFailed error, gates or not. A run
// (or merged run) in which every case errored is a GateFailed error
// whatever its gates (AllErrored): it observed nothing.
//
// Plan.Cache answers http and command targets from the response cache
// under the store (package cache, <store>/cache/target): the target is
// wrapped by Plan.Targets.Cache (package opener's: target.Cached, whose
// key is the target's fingerprint, the case fields the request is built
// from, the variant and the trial); a target of another kind runs as
// usual with a warning.
//
// # Stored runs
//
// LoadRef resolves a run reference through the one resolver
// (store.ResolveRef) and loads the run; RefCases reads its cases, from its
// files or from the store. CompareRefs compares two stored runs, with the
// earlier runs of the baseline's system (History) weighing the flips.
// CaseViews and RefCaseViews return one case of a stored run whole:
// observations from cases.jsonl, the query and judgments from the suite
// file the run recorded, only when its fingerprint is still the run's
// (else a note says why they are missing).
//
// # Shards and merge (docs/shards.md)
//
// Plan.Shard "I/N" runs slice I (0-based) of the selected cases (package
// shard: a stable SHA-256 hash of the case id) and stores the run as a
// shard of Plan.Group (default shard.DefaultGroup from the suite
// fingerprint, git commit and CI run id, read through Getenv). Each result
// records its position among the cases selected. A shard run checks no
// gate: its record keeps them (Run.Shard.Gates), and a baseline is refused
// there. A variant matrix is not sharded. A shard is never latest
// (store.Filter.NoShards).
//
// Merge picks, per slice of a group, the newest complete run (else the
// newest incomplete), refuses shards of different suites, options
// (concurrency aside), gain, tie rule, target, gates or count, merges
// their case streams in (position, trial) order into one stored run
// aggregated by runner.Aggregator, checks the recorded gates (those
// needing a baseline only with MergePlan.Baseline) and returns an
// Incomplete error naming every missing or incomplete slice. The merged
// run starts with the earliest shard and finishes with the latest; its
// run-level measures are the shards' when all agree, else none; a slice
// run again replaces the earlier run.
package harness
