package cputime

import "testing"

// TestUsedGrows: spinning for a while shows up in Used.
func TestUsedGrows(t *testing.T) {
	before := Used()
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i % 7
	}
	if x < 0 || Used() <= before {
		t.Fatalf("Used did not grow: %v then %v", before, Used())
	}
}
