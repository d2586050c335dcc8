//go:build !unix

package main

import "os"

// maxRSSMiB is 0 where the peak resident set is not known: the memory
// bound of the within command is not checked there.
func maxRSSMiB(*os.ProcessState) int { return 0 }
