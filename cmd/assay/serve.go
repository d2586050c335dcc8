package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"
	"github.com/assay-eval/assay/internal/httpserve"

	"github.com/spf13/cobra"
)

// defaultServeAddr is loopback: assay serve is for demos and tests, and
// binds to another interface only when told.
const defaultServeAddr = "127.0.0.1:8088"

type serveFlags struct {
	addr   string
	target string
	split  string
}

func newServeCmd(env *Env) *cobra.Command {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve SUITE",
		Short: "Serve the built-in BM25 engine over a suite's corpus as an HTTP service",
		Long: `Serve the built-in engine over SUITE's corpus as an HTTP service: a reference
server for the http target, for demos and for tests.

  POST /search {"query": "...", "k": 10}   the ranking: {"retrieved": [{id, score, title, path}]}
  POST /ask    {"query": "...", "k": 10}   an observation in the trace shape (answer,
                                           citations, refused, retrieved, latency_ms, spans)
  GET  /healthz                            {"status": "ok", "documents": N, "engine": "bm25"}

It binds to 127.0.0.1 unless --addr names another interface (port 0 picks a
free port), prints "assay: serving on http://ADDR" on stderr, and shuts down
cleanly on SIGINT or SIGTERM.

Each connection is bounded: 10 s to send the request headers (at most 64 KiB),
30 s for the whole request, a body of at most 1 MiB (413 beyond), 60 s to take
the response, 60 s idle between keep-alive requests, and at most 512
connections at once (more wait until one closes).`,
		Example: `  assay serve examples/quickstart/suite.yaml --addr 127.0.0.1:8088`,
		Args:    exactArgs(1, "assay serve SUITE [--addr 127.0.0.1:8088]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runServe(env, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.addr, "addr", defaultServeAddr, "`ADDR` to listen on (host:port)")
	fl.StringVar(&f.target, "target", "builtin", "engine variant `SPEC`: builtin, builtin:rm3, or either with ?k1=..&b=..")
	fl.StringVar(&f.split, "split", "", "qrels split `NAME` of a BEIR directory (default test)")
	return cmd
}

func runServe(env *Env, path string, f *serveFlags) error {
	ctx := env.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	// serve runs until stopped: it stops on SIGINT/SIGTERM itself, also
	// when its caller's context does not carry them.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return cli.ServeBuiltin(ctx, cli.ServePlan{SuitePath: path, Split: f.split, Target: f.target, Addr: f.addr, Limits: serveBounds, Log: env.Stderr})
}

// serveLimits bound each connection of assay serve (httpserve.ServeLimits).
type serveLimits = httpserve.ServeLimits

// serveBounds are the bounds of assay serve (tests shrink them).
var serveBounds = httpserve.DefaultServeLimits
