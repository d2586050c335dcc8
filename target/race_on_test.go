//go:build race

package target

// raceEnabled is true under the race detector, which slows the large
// tests tenfold: their CPU bounds are not checked there.
const raceEnabled = true
