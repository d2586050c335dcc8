//go:build race

package store

// raceEnabled is true under the race detector, whose instrumentation
// allocates: allocation counts are not checked there.
const raceEnabled = true
