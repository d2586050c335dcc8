// Package cli holds the bodies of assay's commands, below their flags in
// package main: each is a plan of flag values and writers, one call, and
// an error of a harness.Kind that main maps to an exit code. The pipeline
// itself is package harness; this package writes what a command writes
// besides the run store, as the CLI's text, byte for byte.
//
// Run is `assay run`: it checks the flags and the output files (distinct,
// writable, none of them an input), runs a harness.Plan with the --record
// trace and the TREC files attached to each run's results (RunPlan.onRun,
// a harness.Sink), and writes the JSON, JUnit, markdown (and
// $GITHUB_STEP_SUMMARY), badge and report directory of the result.
// WriteText is its summary; Watch is `assay run --watch`, which polls the
// run's inputs every 500 ms by size and modification time and runs again
// on a change; Progress shows a run's events (a bar on a terminal, plain
// lines elsewhere); WriteResult is `assay run --html`.
//
// The other commands: RunGate (`assay gate`, over CheckGate or
// CheckMatrix: a stored run against gates, a floors file locked from read
// to write while ratcheting, and orderings), Compare (`assay compare`;
// WriteCase for --case), ListRuns and WriteRun (`assay runs`, `runs
// show`), SuiteTrend (`runs trend`), PruneStore (`runs prune`), Export
// (`runs export`), Import, Lint, Power, ServeBuiltin (`assay serve`),
// ServeStore and WriteReport (`assay ui`, `assay report --html`),
// MigrateStore and CopyStores (`assay store`), CacheStats and CacheClear
// (`assay cache`), WriteSchema and Build (`assay schema`, `assay
// version`), Complete (the shell completion lists; it never fails,
// leaving out what it cannot read).
//
// OpenStore is the backend map: a directory, or a postgres:// URL
// (store/postgres); StoreRoot is the one rule for the store of a --store
// flag: the flag, else $ASSAY_STORE, else DefaultStoreDir. FlagName names
// a plan's fields as flags, in the errors and warnings of the library.
package cli
