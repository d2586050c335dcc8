#!/bin/sh
# End-to-end figures of the built-in engine on BEIR SciFact (test split, 300
# queries, 5,183 documents), through the CLI: nDCG@10, R@100, R@1000 for
# BM25 and BM25+RM3, wall and CPU time and peak RSS of the assay process.
# Reads ../shared/datasets/scifact; not part of `go test`.
# Usage: bench/engine_scifact.sh [RUNS]   (from the repository root)
set -eu
runs=${1:-3}
data=$(cd .. && pwd)/shared/datasets/scifact
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/assay" ./cmd/assay
cd "$tmp"
for spec in builtin builtin:rm3; do
  echo "== $spec ($runs runs)"
  i=0
  while [ $i -lt "$runs" ]; do
    /usr/bin/time -f "%e s wall  %U s user  %M KiB max RSS" ./assay run "$data" --target "$spec" --no-store --json run.json >/dev/null 2>time.txt || true
    tail -1 time.txt
    i=$((i+1))
  done
  grep -E '"(ndcg@10|recall@100|recall@1000)": \{' -A1 run.json | tr -d ' \n' | sed 's/--/ /g; s/$/\n/'
done
