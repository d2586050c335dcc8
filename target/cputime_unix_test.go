//go:build unix

package target

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the test process has used:
// a cost bound on it does not grow when other processes share the cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
