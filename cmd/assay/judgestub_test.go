package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/assay-eval/assay/judge/judgetest"
)

// judgeStub is the handler of the testscript program `judgestub ADDR LOG`:
// an OpenAI-compatible stand-in judge on ADDR (127.0.0.1 only) scoring by
// judgetest.Rule, writing a line per request to LOG, until SIGINT
// (serveStub).
func judgeStub(log io.Writer) http.Handler { return judgetest.Handler(log) }

// stubs are the stand-in services a script starts in the background
// (`exec NAME ADDR LOG &stub&`, then `kill -INT stub` and `wait stub`),
// each a handler given the log it writes a line per request to.
var stubs = map[string]func(log io.Writer) http.Handler{
	"judgestub": judgeStub,
	"usagestub": usageStub,
	"convstub":  convStub,
}

// stubMain is the program NAME of stubs: it serves until SIGINT or
// SIGTERM.
func stubMain(name string) func() {
	return func() {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		code := serveStub(ctx, name, ".", os.Stderr, os.Args[1:])
		stop()
		os.Exit(code)
	}
}

// serveStub runs the stand-in NAME ADDR LOG (stubs) until ctx is done: it
// listens on ADDR (127.0.0.1 only), writes a line per request to LOG (a
// path relative to dir) and says on stderr that it listens. It returns the
// program's exit status: 0 after ctx is done, 2 on a usage error.
func serveStub(ctx context.Context, name, dir string, stderr io.Writer, args []string) int {
	handler, ok := stubs[name]
	if !ok {
		fmt.Fprintf(stderr, "no stand-in %q\n", name)
		return 2
	}
	if len(args) != 2 {
		fmt.Fprintf(stderr, "usage: %s 127.0.0.1:PORT LOG\n", name)
		return 2
	}
	if host, _, err := net.SplitHostPort(args[0]); err != nil || host != "127.0.0.1" {
		fmt.Fprintf(stderr, "%s: listen on 127.0.0.1 only\n", name)
		return 2
	}
	logPath := args[1]
	if !filepath.IsAbs(logPath) {
		logPath = filepath.Join(dir, logPath)
	}
	log, err := os.Create(logPath)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	defer log.Close()
	ln, err := net.Listen("tcp", args[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	srv := &http.Server{Handler: handler(log)}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		srv.Shutdown(context.Background())
	}()
	fmt.Fprintln(stderr, name+": listening on", args[0])
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		fmt.Fprintln(stderr, err)
		return 1
	}
	<-stopped
	return 0
}
