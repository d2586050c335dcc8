//go:build race

package runner

// raceEnabled is true under the race detector, whose instrumentation
// makes allocations of its own: allocation counts are not checked there.
const raceEnabled = true
