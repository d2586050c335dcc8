// Command trecgen writes a synthetic TREC qrels + run pair (package
// internal/trecgen) for benchmarks of `assay trec`:
//
//	go run ./cmd/trecgen -queries 7000 -depth 1000 -qrels big.qrels -run big.run
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/assay-eval/assay/internal/trecgen"
)

func main() {
	p := trecgen.Defaults()
	flag.Uint64Var(&p.Seed, "seed", p.Seed, "random seed")
	flag.IntVar(&p.Queries, "queries", p.Queries, "qrels topics")
	flag.IntVar(&p.Depth, "depth", p.Depth, "documents per run topic")
	flag.IntVar(&p.JudgedMin, "judged-min", p.JudgedMin, "judgments per topic, at least")
	flag.IntVar(&p.JudgedMax, "judged-max", p.JudgedMax, "judgments per topic, at most")
	flag.IntVar(&p.MaxRel, "max-rel", p.MaxRel, "highest grade")
	flag.Float64Var(&p.NoRelFrac, "norel-frac", p.NoRelFrac, "topics with only grade-0 judgments")
	flag.Float64Var(&p.MissingFrac, "missing-frac", p.MissingFrac, "qrels topics left out of the run")
	flag.Float64Var(&p.ExtraFrac, "extra-frac", p.ExtraFrac, "run-only topics (fraction of -queries)")
	flag.Float64Var(&p.TieFrac, "tie-frac", p.TieFrac, "probability of repeating the previous score")
	flag.Float64Var(&p.DupFrac, "dup-frac", p.DupFrac, "probability of a duplicated docno per topic")
	flag.Float64Var(&p.UnjudgedFrac, "unjudged-frac", p.UnjudgedFrac, "qrels lines with grade -1")
	flag.BoolVar(&p.Shuffle, "shuffle", p.Shuffle, "interleave the run lines of all topics")
	flag.StringVar(&p.Tag, "tag", p.Tag, "run tag")
	qrels := flag.String("qrels", "", "qrels output file (required)")
	run := flag.String("run", "", "run output file (required)")
	flag.Parse()
	if *qrels == "" || *run == "" {
		fmt.Fprintln(os.Stderr, "trecgen: error: -qrels and -run are required")
		os.Exit(2)
	}
	if err := write(*qrels, *run, p); err != nil {
		fmt.Fprintf(os.Stderr, "trecgen: error: %v\n", err)
		os.Exit(2)
	}
}

func write(qrels, run string, p trecgen.Params) error {
	qf, err := os.Create(qrels)
	if err != nil {
		return err
	}
	defer qf.Close()
	rf, err := os.Create(run)
	if err != nil {
		return err
	}
	defer rf.Close()
	if err := trecgen.Write(qf, rf, p); err != nil {
		return err
	}
	if err := qf.Close(); err != nil {
		return err
	}
	return rf.Close()
}
