// Package assaytest runs an assay golden set from `go test`:
//
//	func TestGolden(t *testing.T) {
//		run := assaytest.Run(t, "testdata/golden.yaml", mySystem) // an assay.Target
//		_ = run // *assay.Run, for further assertions
//	}
//
// Run goes through package harness, as `assay run` does, with the
// target given as a Go value (no spec, no target file). The test fails
// when the suite is invalid (with the positioned message
// "file:line:col: msg"), when the run is incomplete, or when a gate of
// the suite (or one added with Gates) fails. A suite that states no gate
// asks every graded case to pass: the test then fails on any failing
// case. Each failing case is logged with its facts, one line per failing
// check, after the case's place in the suite file
// ("testdata/golden.yaml:10: q007: answer_includes: missing \"sha-256\"").
// Run and its subtests call t.Helper, so the file:line go test prints
// before each line is the test's call of Run.
//
// Options: Trials (default 1), Concurrency (default
// runner.DefaultConcurrency), Gates (added to the suite's), StoreDir
// (default: no store; the run is read back from a temporary file), Check
// (a check written in Go, counted like the suite's expectations),
// Subtests, and Judge: a suite that defines a model judge (judge:) needs
// Judge(opener.Judge) (package harness/opener), or a blank import of
// opener in the test (its init registers the judge), which links the
// judge's HTTP client into the test; without either such a suite fails
// the test. A suite that states json_schema needs the validator that a
// blank import of package grade/jsonschema registers (opener imports it);
// without it the test fails before any case runs, naming that package.
//
// # Subtests and gates
//
// Subtests makes each case its own subtest, named by its id, so that
// `go test -run 'TestGolden/q007'` runs that case alone; the suite's
// gates then apply to the cases selected. The case subtests are
// parallel: they report after the test function that called Run
// returns.
//
// In Go a failing subtest fails its parent, so a case subtest cannot
// fail while the test passes. The gates decide, as they do for
// `assay run`: the test fails exactly when it would without Subtests,
// and then every failing case's subtest fails too, with its facts as
// errors. When the gates hold (a suite with pass_rate >= 0.9 and one
// case in twenty failing), the test passes and so do the failing cases'
// subtests: they log their facts and "tolerated: the suite's gates hold"
// (shown by go test -v). A passing case's subtest logs nothing; a case
// the run has no result of (it failed before the case) is skipped.
//
// # Checks written in Go
//
// Check adds a check run on every observation after the suite's own
// expectations. Its result is one more check of the case, of the kind
// given: the case passes only when it passes too, so it counts in
// pass_rate and every gate, and it is stored with the run's other checks
// (what reports, `assay runs show` and the UI read).
package assaytest
