package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"unicode/utf8"
)

// usageStub is the testscript program `usagestub ADDR LOG`: a stand-in
// system under test on ADDR (127.0.0.1 only) that answers each POST of
// {"query": Q} with the answer "echo: Q" and a usage of model m1: as many
// input tokens as Q has characters and twice as many output tokens (three
// times on the path /ask-long), so that a script can price each case by
// hand. It writes a line per request to LOG, until SIGINT.
func usageStub(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: usagestub 127.0.0.1:PORT LOG")
		return 2
	}
	if host, _, err := net.SplitHostPort(args[0]); err != nil || host != "127.0.0.1" {
		fmt.Fprintln(os.Stderr, "usagestub: listen on 127.0.0.1 only")
		return 2
	}
	log, err := os.Create(args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer log.Close()
	var mu sync.Mutex
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Query string `json:"query"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		fmt.Fprintf(log, "%s %s %s\n", r.Method, r.URL.Path, req.Query)
		mu.Unlock()
		n := utf8.RuneCountInString(req.Query)
		out := 2 * n
		if r.URL.Path == "/ask-long" {
			out = 3 * n
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"answer":  "echo: " + req.Query,
			"refused": false,
			"usage":   map[string]any{"model": "m1", "input_tokens": n, "output_tokens": out},
		})
	})
	ln, err := net.Listen("tcp", args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	srv := &http.Server{Handler: handler}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); srv.Shutdown(context.Background()) }()
	fmt.Fprintln(os.Stderr, "usagestub: listening on", args[0])
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
