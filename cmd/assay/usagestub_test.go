package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"unicode/utf8"
)

// usageStub is the handler of the testscript program `usagestub ADDR
// LOG` (serveStub): a stand-in system under test on ADDR (127.0.0.1 only)
// that answers each POST of {"query": Q} with the answer "echo: Q" and a
// usage of model m1: as many input tokens as Q has characters and twice as
// many output tokens (three times on the path /ask-long), so that a script
// can price each case by hand. It writes a line per request to LOG, until
// SIGINT.
func usageStub(log io.Writer) http.Handler {
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
	return handler
}
