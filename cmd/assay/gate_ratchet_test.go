package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/assay-eval/assay/gate"
)

// Ten concurrent 'assay gate --ratchet' processes on one floors file,
// each over a different complete run, end with the floors of the best run
// (the maximum each metric reached) and with every raise a process
// reported in the file's log, each floor's log a chain old -> new that
// only rises. Without the lock, processes that read the same file state
// overwrite each other's raises (the log loses entries, or a lower run's
// floors replace a higher one's).
//
// The race is over in milliseconds, so the test runs several rounds, each
// on a new floors file. The ten commands of a round run in ten worker
// processes (inprocess_test.go), each a process of its own as a CI job's
// assay is, started once for all the rounds rather than once per command.
// Starting the workers is most of the test's CPU and a round is cheap, so
// it is ten workers for twelve rounds: with the lock broken (each process
// locking a file of its own) 14 rounds of 36 failed over three runs, where
// twenty workers for six rounds failed 10 of 18.
func TestGateRatchetConcurrent(t *testing.T) {
	t.Parallel()
	defer trimWorkers(2)
	for round := range 12 {
		t.Run(fmt.Sprintf("round%d", round), func(t *testing.T) { ratchetRound(t, uint64(round)) })
	}
}

func ratchetRound(t *testing.T, seed uint64) {
	dir := t.TempDir()
	floors := filepath.Join(dir, "ci", gate.DefaultFloorsFile)
	const n = 10
	type achieved struct{ pass, ndcg, mrr float64 }
	runs := make([]achieved, n)
	for i := range runs {
		// each run better than the one before on every metric, by a
		// different step each: a run below an earlier raise fails its
		// floors and must not ratchet, so the end state is the best run's
		runs[i] = achieved{pass: float64(10+i) / 40, ndcg: 0.40 + 0.0123*float64(i), mrr: 0.30 + 0.017*float64(i)}
		doc := fmt.Sprintf(`{"schema": "assay.run/v1", "run_id": "01937a5e-0000-7000-8000-0000000000%02d", "status": "complete",
 "suite": {"name": "kb", "fingerprint": "sha256:00"}, "target": {"kind": "replay"},
 "started_at": "2026-11-30T08:00:00Z", "finished_at": "2026-11-30T08:00:01Z",
 "summary": {"cases": 40, "graded": 40, "passed": %d, "failed": %d, "errors": 0, "pass_rate": %v,
             "metrics": {"ndcg@10": {"mean": %v, "n": 40}, "mrr": {"mean": %v, "n": 40}},
             "rates": {"no_hit": 0, "refusal": 0, "grounded": 1, "error": 0},
             "latency_ms": {"p50": 1, "p95": 1, "p99": 1, "max": 1, "n": 40}},
 "cases": []}`, i, 10+i, 30-i, runs[i].pass, runs[i].ndcg, runs[i].mrr)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("run%02d.json", i)), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	order := rand.New(rand.NewPCG(seed, 2)).Perm(n) // not best-last
	var wg sync.WaitGroup
	outs := make([]string, n)
	start := make(chan struct{})
	for k, i := range order {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rq := workRequest{
				Args: []string{"gate", filepath.Join(dir, fmt.Sprintf("run%02d.json", i)), "--floors", floors, "--ratchet"},
				Env:  os.Environ(),
				Dir:  dir,
			}
			<-start
			rep, err := runInWorker(rq)
			if err != nil {
				t.Errorf("run %d: %v", i, err)
			}
			// 0: held and ratcheted (or nothing rose); 1: below a floor
			// another process raised first. Never 2 (an error).
			if rep.Code != 0 && rep.Code != 1 {
				t.Errorf("run %d: exit %d\n%s%s", i, rep.Code, rep.Stdout, rep.Stderr)
			}
			outs[k] = string(rep.Stdout)
		}()
	}
	close(start)
	wg.Wait()

	data, err := os.ReadFile(floors)
	if err != nil {
		t.Fatal(err)
	}
	got, err := gate.ReadFloors(bytes.NewReader(data), floors)
	if err != nil {
		t.Fatal(err)
	}
	best := runs[n-1]
	want := map[string]float64{"pass_rate": roundDown4(best.pass), "ndcg@10": roundDown4(best.ndcg), "mrr": roundDown4(best.mrr)}
	for key, w := range want {
		if g, ok := got.Floors[key]; !ok || math.Abs(g-w) > 1e-12 {
			t.Errorf("floor %s = %v (set %v), want %v, the best run's", key, g, ok, w)
		}
	}
	if len(got.Floors) != len(want) {
		t.Errorf("floors %v, want the keys of %v", got.Floors, want)
	}

	// Every raise reported on stdout is in the log, and the log holds
	// nothing else.
	reported := map[string]int{}
	line := regexp.MustCompile(`(?m)^(?:set|raised) floor (\S+) (\S+) -> (\S+)$`)
	for _, out := range outs {
		for _, m := range line.FindAllStringSubmatch(out, -1) {
			reported[m[1]+" "+m[2]+" -> "+m[3]]++
		}
	}
	logged := map[string]int{}
	for _, c := range got.Log {
		logged[c.String()]++
	}
	for r, k := range reported {
		if logged[r] != k {
			t.Errorf("raise %q reported %d time(s), logged %d", r, k, logged[r])
		}
	}
	for l, k := range logged {
		if reported[l] != k {
			t.Errorf("raise %q logged %d time(s), reported %d", l, k, reported[l])
		}
	}
	// Each floor's log is one chain from unset, rising at every step, to
	// the floor in the file.
	last := map[string]*float64{}
	for _, c := range got.Log {
		prev, seen := last[c.Metric]
		switch {
		case !seen && c.Old != nil:
			t.Errorf("first log entry of %s has old %v, want unset", c.Metric, *c.Old)
		case seen && (c.Old == nil || *c.Old != *prev):
			t.Errorf("log entry %s does not follow the previous %s -> %v", c, c.Metric, *prev)
		case c.Old != nil && c.New <= *c.Old:
			t.Errorf("log entry %s does not raise the floor", c)
		}
		v := c.New
		last[c.Metric] = &v
	}
	for key, w := range want {
		if p := last[key]; p == nil || *p != got.Floors[key] {
			t.Errorf("log of %s ends at %v, the file holds %v (want %v)", key, p, got.Floors[key], w)
		}
	}
	if _, err := os.Stat(floors + ".lock"); !os.IsNotExist(err) {
		t.Errorf("lock file left behind: %v", err)
	}
	if t.Failed() {
		t.Logf("floors file:\n%s\noutputs:\n%s", data, strings.Join(outs, "\n---\n"))
	}
}

// roundDown4 is how Ratchet stores a floor: truncated to 4 decimals.
func roundDown4(v float64) float64 { return math.Floor(v*1e4+1e-7) / 1e4 }
