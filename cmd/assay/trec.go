package main

import (
	"io"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/trec"
	"github.com/spf13/cobra"
)

// newTrecCmd is `assay trec`, a trec_eval v10.0 drop-in. Its options are
// trec_eval's (-l2, -M100, -m P.5,10), so cobra's flag parsing is off and
// package trec reads the command line; its exit statuses are trec_eval's.
func newTrecCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:                "trec [-q] [-c] [-n] [-J] [-l N] [-M N] [-N N] [-m MEASURE[.PARAMS]]... QRELS RUN",
		Short:              "Evaluate a TREC run against qrels, byte-identical to trec_eval v10.0",
		Long:               trec.Help,
		Example:            "  assay trec -m ndcg_cut.10 -m recall.5,10 qrels.txt run.txt",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			// The evaluator keeps little for runs whose topics are
			// contiguous, so the collector may run half as often (about
			// 0.15 s less CPU and 35 MiB more on the 7M-line pair); the soft
			// limit keeps interleaved runs, which keep more, near 160 MiB.
			debug.SetGCPercent(200)
			debug.SetMemoryLimit(160 << 20)
			// A reader that goes away (| head) makes the write fail with
			// EPIPE, which trec reports, instead of killing the process
			// silently with SIGPIPE.
			signal.Ignore(syscall.SIGPIPE)
			code := trec.Main(args, trec.IO{
				Stdin:  env.Stdin,
				Stdout: env.Stdout,
				Stderr: env.Stderr,
				Open:   openTrecFile,
			})
			if code != 0 {
				return exitStatus(code)
			}
			return nil
		},
	}
}

// openTrecFile opens a qrels or run file for assay trec. The file it
// returns can Seek, which trec needs to stream a run file (read it in
// passes) instead of keeping it whole as it does standard input.
func openTrecFile(name string) (io.ReadCloser, error) {
	return boundedfile.Open(name, boundedfile.RunFile)
}
