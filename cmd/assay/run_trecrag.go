package main

import (
	"github.com/assay-eval/assay/cmd/assay/internal/cli"
	"github.com/spf13/pflag"
)

// trecRAGFlags adds assay run's --trec-rag: the run's answers written in
// the TREC RAG answer format (docs/targets.md#trec-rag), which the
// trecrag: target reads back.
func trecRAGFlags(fl *pflag.FlagSet, p *cli.RunPlan) {
	fl.StringVar(&p.TrecRAG, "trec-rag", "", "write each case's answer to `FILE` in the TREC RAG answer format (JSONL: topic_id, references, answer sentences with citations), for the track's tools or --target trecrag:FILE")
}
