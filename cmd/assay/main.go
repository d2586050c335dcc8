// Command assay is the CLI of the assay evaluation harness: flags → a
// harness plan (package harness runs it) → rendering → an exit code. It is
// the only place that reads the process environment, prints, and chooses
// exit codes (0 ok, 1 gate failed or regression, 2 usage, input or harness
// error), in one switch over harness.Error kinds. Every
// command, flag and exit status is described in docs/cli.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() { os.Exit(mainCode()) }

// mainCode runs the command line of the process, signals included, and
// returns its exit status.
func mainCode() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, os.Args[1:], &Env{
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Getenv: os.Getenv,
	})
}
