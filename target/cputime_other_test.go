//go:build !unix

package target

import "time"

var cpuStart = time.Now()

// cpuTime is the wall time since the tests started where CPU time is not
// known.
func cpuTime() time.Duration { return time.Since(cpuStart) }
