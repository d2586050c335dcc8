package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/assay-eval/assay/judge/judgetest"
)

// judgeStub is the testscript program `judgestub ADDR LOG`: an
// OpenAI-compatible stand-in judge on ADDR (127.0.0.1 only) scoring by
// judgetest.Rule, writing a line per request to LOG, until SIGINT.
func judgeStub(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: judgestub 127.0.0.1:PORT LOG")
		return 2
	}
	if host, _, err := net.SplitHostPort(args[0]); err != nil || host != "127.0.0.1" {
		fmt.Fprintln(os.Stderr, "judgestub: listen on 127.0.0.1 only")
		return 2
	}
	log, err := os.Create(args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer log.Close()
	ln, err := net.Listen("tcp", args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	srv := &http.Server{Handler: judgetest.Handler(log)}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); srv.Shutdown(context.Background()) }()
	fmt.Fprintln(os.Stderr, "judgestub: listening on", args[0])
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
