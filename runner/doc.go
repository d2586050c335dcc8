// Package runner runs a suite's cases against a target and aggregates the
// results (§1, §5).
//
// Run sends every case (times every trial) to the target with bounded
// concurrency, a per-case timeout and cancellation; it grades each
// observation with package grade as it arrives and hands the result to an
// OnResult callback (for the store, the trace recorder and progress) in the
// order results complete. Results are returned in suite order, then trial.
//
// Failure is data: when the target returns an error the case is recorded with
// the error's class (timeout when the per-case deadline passed, canceled when
// the run was interrupted, otherwise the class the target gave) and the run
// goes on. When the run's context is canceled (Ctrl-C), no new case starts,
// cases in flight are abandoned and not recorded, and the result is marked
// incomplete. With MaxErrors > 0 the run also stops early, incomplete, once
// that many observations have errored (the system under test is plainly down).
//
// Targets may offer two optional capabilities, found by type assertion:
// Setup(ctx) error, called once before the first case (a failure stops the
// run), and Cleanup(ctx, case, observation) error, called after each case is
// graded, also when it failed, unless Options.Keep is set.
//
// Summarize and Segments implement the §5 aggregation.
package runner
