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
// check ("q007: answer_includes: missing \"sha-256\"").
//
// Options: Trials (default 1), Concurrency (default
// runner.DefaultConcurrency), Gates (added to the suite's), StoreDir
// (default: no store; the run is read back from a temporary file) and
// Subtests, which makes each case its own subtest so that
// `go test -run 'TestGolden/q007'` runs that case alone. With Subtests,
// the case subtests are parallel: they report after the test function
// that called Run returns, and the suite's gates apply to the cases
// selected.
package assaytest
