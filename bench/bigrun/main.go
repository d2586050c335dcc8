// Command bigrun writes a synthetic complete run into a run store, for
// measuring what reads large runs (bench/report_html_memory.sh). Each
// case trial carries an observation of about -kb KiB: an answer and ten
// retrieved documents with text. It prints the run id.
//
//	go run ./bench/bigrun -store DIR -cases N [-kb K] [-variant V]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/runner"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/store/sqlite"
)

func main() {
	dir := flag.String("store", ".assay", "the run store (a directory)")
	n := flag.Int("cases", 10000, "cases")
	kb := flag.Int("kb", 25, "KiB of observation per case")
	variant := flag.Int("variant", 0, "shifts which cases fail, so two runs differ")
	flag.Parse()
	if err := write(*dir, *n, *kb, *variant); err != nil {
		fmt.Fprintln(os.Stderr, "bigrun:", err)
		os.Exit(2)
	}
}

func write(dir string, n, kb, variant int) error {
	st, err := store.Open(dir, store.OpenOptions{Directory: sqlite.Open})
	if err != nil {
		return err
	}
	defer st.Close()
	metrics := []string{"ndcg@10", "mrr"}
	run := &assay.Run{
		Suite:     assay.SuiteRef{Name: "big", Fingerprint: "sha256:big"},
		Target:    assay.TargetInfo{Kind: "http", Spec: "http://127.0.0.1:8088/ask"},
		Options:   assay.RunOptions{Trials: 1, Concurrency: 4, Metrics: metrics},
		StartedAt: time.Now().UTC(),
	}
	w, err := st.Begin(context.Background(), run)
	if err != nil {
		return err
	}
	// Each of the ten documents gets a tenth of the observation's bytes.
	text := strings.Repeat("lorem ipsum dolor sit amet, consectetur adipiscing elit. ", max(1, kb*1024/10/57))
	rows := make([]assay.CaseResult, 0, n)
	for i := range n {
		pass := (i+variant)%10 != 0
		lat := float64(5 + (i*7+variant)%200)
		v := float64((i*13+variant*7)%100) / 100
		r := assay.CaseResult{
			ID: fmt.Sprintf("q%07d", i), Pass: &pass, LatencyMs: &lat,
			Checks:    []assay.Check{{Kind: "answer_includes", Pass: pass, Detail: map[bool]string{true: "", false: `missing "sha-256"`}[pass]}},
			Metrics:   map[string]float64{"ndcg@10": v, "mrr": v},
			Tags:      map[string]string{"lang": []string{"en", "de", "zh"}[i%3]},
			Retrieved: 10, Citations: 1,
		}
		o := &assay.Observation{Case: r.ID, Answer: fmt.Sprintf("Answer %d (variant %d): tokens are hashed with SHA-256.", i, variant), LatencyMs: &lat,
			Citations: []assay.Citation{{ID: "doc-1.md", Quote: "hashed with SHA-256"}}}
		for k := range 10 {
			o.Retrieved = append(o.Retrieved, assay.Hit{ID: fmt.Sprintf("doc-%d.md", (k+i)%5000), Score: 10 - float64(k), Title: fmt.Sprintf("Document %d", k), Text: text})
		}
		r.Observation = o
		if err := w.Append(r); err != nil {
			return err
		}
		r.Observation = nil
		rows = append(rows, r)
	}
	run.Cases = rows
	run.Summary = runner.Summarize(rows, metrics)
	run.FinishedAt = time.Now().UTC()
	run.Status = assay.StatusComplete
	if err := w.Finish(run); err != nil {
		return err
	}
	fmt.Println(run.RunID)
	return nil
}
