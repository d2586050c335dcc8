// Command timecmd runs a command and prints, on standard error, the CPU it
// and the descendants it waited for used (user and system) and its wall
// time, in seconds to the microsecond:
//
//	TIME <user> <sys> <wall>
//
// It is GNU time's -f 'TIME %U %S %e' for bench/hotpath.sh, whose floor
// takes under 0.1 s at 1,000 cases: time's hundredths made its ratios
// move by a tenth from one round to the next. The command's exit status
// is timecmd's.
//
//	timecmd CMD [ARGS...]
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: timecmd CMD [ARGS...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "timecmd:", err)
		os.Exit(2)
	}
	st := cmd.ProcessState
	fmt.Fprintf(os.Stderr, "TIME %.6f %.6f %.6f\n", st.UserTime().Seconds(), st.SystemTime().Seconds(), wall.Seconds())
	os.Exit(st.ExitCode())
}
