// Command floor is the physical floor of an HTTP evaluation run on this
// machine, for bench/hotpath.sh: the least a client can do and still do
// what assay run does with a JSONL suite against an HTTP system. It reads
// the suite one line at a time, POSTs each case's query with -j workers,
// decodes the answer, checks the case's answer_includes strings, and
// writes one JSON line per result (id, pass, latency in ms) to -out. No
// store, no metrics, no report: anything assay spends above this is the
// harness's own cost.
//
//	floor -suite suite.jsonl -url http://127.0.0.1:PORT/ask [-j 4] [-out results.jsonl]
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

type testCase struct {
	ID     string `json:"id"`
	Query  string `json:"query"`
	Expect struct {
		AnswerIncludes []string `json:"answer_includes"`
	} `json:"expect"`
}

type result struct {
	ID        string  `json:"id"`
	Pass      bool    `json:"pass"`
	LatencyMS float64 `json:"latency_ms"`
	Error     string  `json:"error,omitempty"`
}

func main() {
	suitePath := flag.String("suite", "", "JSONL suite (header line, then one case a line)")
	url := flag.String("url", os.Getenv("STUB_URL"), "the system's url")
	workers := flag.Int("j", 4, "concurrent requests")
	out := flag.String("out", "floor.jsonl", "results, one JSON line each")
	flag.Parse()
	if err := run(*suitePath, *url, *workers, *out); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(2)
	}
}

func run(suitePath, url string, workers int, out string) error {
	in, err := os.Open(suitePath)
	if err != nil {
		return err
	}
	defer in.Close()
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	cases := make(chan testCase, workers)
	results := make(chan result, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range cases {
				results <- ask(client, url, c)
			}
		}()
	}
	done := make(chan error, 1)
	go func() {
		enc := json.NewEncoder(w)
		for r := range results {
			if err := enc.Encode(r); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	header := true
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if header {
			header = false
			continue
		}
		var c testCase
		if err := json.Unmarshal(line, &c); err != nil {
			return err
		}
		cases <- c
	}
	close(cases)
	wg.Wait()
	close(results)
	if err := <-done; err != nil {
		return err
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func ask(client *http.Client, url string, c testCase) result {
	body, _ := json.Marshal(map[string]string{"query": c.Query})
	start := time.Now()
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return result{ID: c.ID, Error: err.Error()}
	}
	var obs struct {
		Answer string `json:"answer"`
	}
	err = json.NewDecoder(resp.Body).Decode(&obs)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	r := result{ID: c.ID, LatencyMS: float64(time.Since(start).Microseconds()) / 1000}
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.Pass = true
	answer := strings.ToLower(obs.Answer)
	for _, s := range c.Expect.AnswerIncludes {
		if !strings.Contains(answer, strings.ToLower(s)) {
			r.Pass = false
		}
	}
	return r
}
