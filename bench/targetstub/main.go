// Command targetstub is the stand-in system for assay's target benchmarks
// (bench/target_http.sh): an HTTP service on 127.0.0.1 that answers every
// POST with the same small observation after a fixed latency, and a suite
// generator.
//
//	targetstub -suite N > suite.yaml          # N cases, no corpus
//	targetstub -suite N -jsonl > suite.jsonl  # the same as a JSONL suite
//	targetstub [-latency 20ms] -- CMD ARGS... # serve while CMD runs
//
// In the second form CMD gets STUB_URL (the service's url) in its
// environment; when it exits the stub prints its own handling-time p50/p95
// in ms ("stub p50 20.07 p95 20.11 n 1000 ...") and the wall a perfect
// four-way client would need given those times, on stderr, and exits with
// CMD's status.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"sync"
	"time"
)

const answer = `{"answer": "The kettle is descaled once a month with citric acid.", "retrieved": [{"id": "kettle.md", "score": 3.2}, {"id": "tea.md", "score": 1.1}], "citations": [{"id": "kettle.md"}], "refused": false}`

func main() {
	latency := flag.Duration("latency", 0, "time to wait before answering")
	cases := flag.Int("suite", 0, "print a suite with this many cases and exit")
	jsonl := flag.Bool("jsonl", false, "with -suite: print the suite as JSONL")
	flag.Parse()
	if *cases > 0 && *jsonl {
		fmt.Println(`{"assay": 1, "name": "stub"}`)
		for i := range *cases {
			fmt.Printf(`{"id": "c%06d", "query": "how often is the kettle descaled %d", "expect": {"answer_includes": ["month"]}}`+"\n", i, i)
		}
		return
	}
	if *cases > 0 {
		fmt.Println("assay: 1\nname: stub\ncases:")
		for i := range *cases {
			fmt.Printf("  - {id: c%06d, query: how often is the kettle descaled %d, expect: {answer_includes: [month]}}\n", i, i)
		}
		return
	}
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: targetstub -suite N | targetstub [-latency D] -- CMD ARGS...")
		os.Exit(2)
	}
	var mu sync.Mutex
	var took []float64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		io.Copy(io.Discard, r.Body)
		if *latency > 0 {
			time.Sleep(*latency)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answer)
		d := float64(time.Since(start).Microseconds()) / 1000
		mu.Lock()
		took = append(took, d)
		mu.Unlock()
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(l)
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Env = append(os.Environ(), "STUB_URL=http://"+l.Addr().String()+"/ask")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	code := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		code = ee.ExitCode()
	}
	srv.Shutdown(context.Background())
	sort.Float64s(took)
	if n := len(took); n > 0 {
		rank := func(p float64) float64 {
			i := int(p*float64(n)+0.999999) - 1
			return took[max(0, min(n-1, i))]
		}
		var sum float64
		for _, v := range took {
			sum += v
		}
		fmt.Fprintf(os.Stderr, "stub p50 %.2f p95 %.2f n %d  (sum/4 %.2f s: the wall of a perfect 4-way client)\n", rank(0.50), rank(0.95), n, sum/4000)
	}
	os.Exit(code)
}
