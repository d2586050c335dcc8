// Package cputime tells the tests that bound a cost in CPU time (rather
// than wall time, which a loaded machine stretches) how much CPU the
// process has used.
package cputime
