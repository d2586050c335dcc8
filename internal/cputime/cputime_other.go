//go:build !unix

package cputime

import "time"

var start = time.Now()

// Used is the wall time since the process started where CPU time is not
// known.
func Used() time.Duration { return time.Since(start) }
