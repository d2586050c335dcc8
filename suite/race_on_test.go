//go:build race

package suite

// raceEnabled is true under the race detector, which slows the large
// tests tenfold and changes what the heap holds.
const raceEnabled = true
