//go:build race

package main

// raceEnabled is true under the race detector (large tests skip).
const raceEnabled = true
